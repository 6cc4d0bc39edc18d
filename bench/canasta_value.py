"""Fits the tile Canasta evaluator's weights (``VALUE_WEIGHTS`` in bots/canasta_tiles/plugin.pyx)
to the outcomes of recorded rounds, and prints them as the table the plug-in holds
(docs/research-log/strength.md, "A fitted evaluation for tile Canasta").

The evaluator reads the searching seat's tensor through ``value_features`` and returns its team's
chance to win the round, a logistic function of those features. This script takes every seat's
features at every other decision of each round, labels them with that seat's result (1 a win,
0 a loss, 0.5 a tie), and fits an L2-regularised logistic regression by maximum likelihood
(scipy's L-BFGS). It reports the log-loss on a quarter of the rounds held out, against the
constant guess (ln 2), and then fits on every round for the table. The records of the shipped
weights (the commands are also in docs/research-log/strength.md):

    kibitz match canasta_tiles --bots "ismcts:iterations=2000,epsilon=0.3" greedy --games 400 --seed 771 --out a.jsonl
    kibitz match canasta_tiles --bots "ismcts:iterations=300,epsilon=0.3" "ismcts:iterations=300,epsilon=0.3" \\
        --games 1000 --seed 773 --out b.jsonl
    kibitz match canasta_tiles --bots greedy greedy --games 2000 --seed 774 --out c.jsonl
    python bench/canasta_value.py a.jsonl b.jsonl c.jsonl

No expert plays in them: the expert is the opponent the strength table reports, so nothing is
fitted to its rounds.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.optimize import minimize

from kibitz.match import positions
from kibitz.plugins import canasta_tiles as plugin  # type: ignore[attr-defined]
from kibitz.records import read_records


def rounds(paths: list[str], every: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, results and round numbers of every seat at every `every`-th decision."""
    features, results, groups = [], [], []
    round_number = 0
    for path in paths:
        with open(path) as f:
            for record in read_records(f):
                round_number += 1
                decision = 0
                for state, _ in positions(record):
                    if not state.is_chance():
                        decision += 1
                        if decision % every == 0:
                            for seat in range(4):
                                features.append(plugin.value_features(state.observation_tensor(seat)))
                                results.append(record.returns[seat])
                                groups.append(round_number)
    return np.array(features), np.array(results), np.array(groups)


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Logistic regression weights (the intercept last) minimising mean log-loss + l2 |w|²."""
    a = np.hstack([x, np.ones((len(x), 1))])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = 1 / (1 + np.exp(-(a @ w)))
        penalty = np.r_[w[:-1], 0.0]
        value = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)) + l2 * penalty @ penalty
        return value, a.T @ (p - y) / len(y) + 2 * l2 * penalty

    return minimize(loss, np.zeros(a.shape[1]), jac=True, method="L-BFGS-B").x


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1 / (1 + np.exp(-(x @ w[:-1] + w[-1]))), 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="records of one-round canasta_tiles matches (kibitz match --out)")
    parser.add_argument("--every", type=int, default=2, help="take every n-th decision of a round")
    parser.add_argument("--l2", type=float, default=1e-3, help="the weight of the L2 penalty")
    parser.add_argument("--seed", type=int, default=0, help="draws the held-out rounds")
    args = parser.parse_args()
    x, y, groups = rounds(args.records, args.every)
    held_out = np.random.default_rng(args.seed).permutation(np.unique(groups))
    test = np.isin(groups, held_out[: len(held_out) // 4])
    w = fit(x[~test], y[~test], args.l2)
    print(f"{len(x)} positions from {len(np.unique(groups))} rounds")
    print(f"held-out log-loss {log_loss(x[test], y[test], w):.4f} (the constant guess {np.log(2):.4f}), "
          f"training {log_loss(x[~test], y[~test], w):.4f}")
    w = fit(x, y, args.l2)
    print("VALUE_WEIGHTS[:] = [")
    for i in range(0, len(w), 6):
        print("    " + ", ".join(f"{v:.4f}" for v in w[i : i + 6]) + ",")
    print("]")


if __name__ == "__main__":
    main()
