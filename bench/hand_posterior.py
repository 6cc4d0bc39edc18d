"""How much of the other seat's hand can a seat infer from what it has seen? Two-player Just 4 Fun Colours.

    kibitz match just4fun_colours --bots ismcts:iterations=2000 ismcts:iterations=2000 --games 1000 --seed 7002 --out train.jsonl --processes 2
    kibitz match just4fun_colours --bots ismcts:preset=just4fun_colours/strong expert --games 100 --seed 992 --out test.jsonl --processes 2
    python bench/hand_posterior.py --train train.jsonl test.jsonl

At every decision with a choice in the test records, each seat in turn is the observer, and four
predictions of the other seat's hand (its count of each colour) are scored against the hand it
really holds:

- ``unseen``: seven of the cards the observer has not seen (60 minus its hand minus the discard
  pile), a multivariate hypergeometric; the reading of the game's expert bot.
- ``determinize``: the engine's deals, as a search draws them (``State.determinize``).
- ``exact``: the exact posterior over the 792 count vectors a hand can have, given everything the
  observer saw: a forward filter over the game, every unseen card equally likely at the deal, a
  placement proving the cards it paid, and each card the observer draws counted as evidence of
  what the stock (so the other hand) holds.
- ``exact+model``: the same, with every decision of the other seat also weighted by a model of
  play P(field | hand, board): a conditional logit over the features below, fitted by maximum
  likelihood to the decisions of the ``--train`` records, where every hand is known.

Scores: cards in common with the true hand (7 would be seeing it), the log-probability of the true
counts (not for ``determinize``, a sample), and the Brier score of "holds at least one (two) cards
of colour c" over the six colours. Each row is compared with ``determinize`` decision by decision:
mean difference and two standard errors. docs/research-log/strength.md, "How much of a hidden hand can be inferred at all".
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize

import kibitz
from kibitz.experts.just4fun_colours import COLOURS, HAND_SIZE, HandModel, geometry
from kibitz.match import positions
from kibitz.records import GameRecord, read_records

# The board (field colours read from the engine, the lines of 4, the neighbours) and the
# multivariate hypergeometric over the unseen cards are the J4FC expert's own.
LINE = 4
BOARD = geometry(LINE)
FIELD_COLOUR = BOARD.colour
FEATURES = ("wins", "blocks", "builds", "breaks", "takes", "covers_own", "area", "height", "cards_left", "colour_share")

Hand = tuple[int, ...]


class Position(NamedTuple):
    """What the notation says: the hands, the stock and discard counts, the top owners and heights."""

    hands: list[Hand]
    stock: list[int]
    discard: list[int]
    owner: list[int]
    height: list[int]


def position(state: kibitz.State) -> Position:
    fields = state.fields()
    rows = fields["board"].split("/")
    owner, height = [-1] * 36, [0] * 36
    for f in range(36):
        cell = rows[f // 6][2 * (f % 6) : 2 * (f % 6) + 2]
        if cell[0] != ".":
            owner[f], height[f] = int(cell[0]), int(cell[1])
    hands = [tuple(hand.count(c) for c in COLOURS) for hand in fields["hands"].split(",")]
    return Position(hands, [int(n) for n in fields["stock"].split(".")], [int(n) for n in fields["discard"].split(".")], owner, height)


def board_features(pos: Position, mover: int) -> np.ndarray:
    """Per field, the features that do not depend on the mover's hand (the last two are filled per hand)."""
    owner = pos.owner
    threats = [line for line in BOARD.lines for q in (0, 1) if q != mover and sum(owner[x] == q for x in line) == LINE - 1]
    out = np.zeros((36, len(FEATURES)))
    for f in range(36):
        for line in (BOARD.lines[n] for n in BOARD.lines_through[f]):
            others = [owner[x] for x in line if x != f]
            mine = others.count(mover)
            opponents = [o for o in others if o not in (-1, mover)]
            out[f, 0] = max(out[f, 0], mine == LINE - 1)
            if not opponents:
                out[f, 2] += mine * mine
            elif mine == 0 and len(set(opponents)) == 1:
                out[f, 3] += len(opponents) ** 2
        out[f, 1] = sum(f in line for line in threats)
        out[f, 4] = owner[f] not in (-1, mover)
        out[f, 5] = owner[f] == mover
        out[f, 6] = sum(owner[n] == mover for n in BOARD.neighbours[f])
        out[f, 7] = pos.height[f]
    return out


def with_hand(board: np.ndarray, height: list[int], hand: Hand) -> tuple[np.ndarray, np.ndarray]:
    """The features for ``hand`` and the mask of the fields it pays for."""
    cost = np.asarray(height) + 1
    held = np.array([hand[FIELD_COLOUR[f]] for f in range(36)])
    features = board.copy()
    features[:, 8] = np.maximum(held - cost, 0)
    features[:, 9] = held / HAND_SIZE
    return features, held >= cost


def steps(record: GameRecord) -> Iterator[tuple[kibitz.State, int]]:
    """Every state of a recorded game before an action (a decision or a chance outcome), with the action."""
    game = kibitz.Game(record.game, **record.options)
    if record.game != "just4fun_colours" or game.num_players != 2 or game.options.get("line", "4") != "4":
        raise SystemExit(f"game {record.index}: this script reads two-player just4fun_colours games with lines of 4, not {game!r}")
    return positions(record)


def fit_model(records: list[GameRecord], player: str) -> np.ndarray:
    """The conditional logit's weights: maximum likelihood over every decision with a choice of the
    seats whose spec contains ``player``."""
    data = []
    for record in records:
        for state, action in steps(record):
            if state.is_chance() or len(state.legal_actions()) < 2 or player not in record.specs[state.current_player]:
                continue
            pos, mover = position(state), state.current_player
            features, pays = with_hand(board_features(pos, mover), pos.height, pos.hands[mover])
            data.append((features[pays], int(np.flatnonzero(pays).tolist().index(action))))

    def loss(weights: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(weights)
        for features, chosen in data:
            z = features @ weights
            p = np.exp(z - z.max())
            p /= p.sum()
            total -= math.log(p[chosen])
            grad -= features[chosen] - p @ features
        return total / len(data), grad / len(data)

    result = minimize(loss, np.zeros(len(FEATURES)), jac=True, method="L-BFGS-B")
    print(f"model fitted on {len(data)} decisions: log-loss {result.fun:.3f} (uniform over the legal fields "
          f"{np.mean([math.log(len(f)) for f, _ in data]):.3f})")
    print("  " + ", ".join(f"{name} {w:+.2f}" for name, w in zip(FEATURES, result.x)))
    return result.x


def hypergeometric(unseen: list[int]) -> dict[Hand, float]:
    """Seven of the ``unseen`` cards: each count vector with its probability."""
    return dict(HandModel(unseen).hands)


class HandFilter:
    """The observer's exact belief over the other seat's colour counts (two players, so the cards it
    has not seen are that hand and the stock)."""

    def __init__(self, unseen: list[int]) -> None:
        self.belief = hypergeometric(unseen)

    def _set(self, weights: dict[Hand, float]) -> None:
        total = sum(weights.values())
        self.belief = {h: w / total for h, w in weights.items() if w > 0}

    def paid(self, colour: int, cards: int) -> None:
        moved: dict[Hand, float] = {}
        for h, p in self.belief.items():
            if h[colour] >= cards:
                rest = h[:colour] + (h[colour] - cards,) + h[colour + 1 :]
                moved[rest] = moved.get(rest, 0.0) + p
        self._set(moved)

    def drew_unseen(self, unseen: list[int]) -> None:
        """The other seat drew a card from the stock, which holds ``unseen`` minus its hand."""
        moved: dict[Hand, float] = {}
        for h, p in self.belief.items():
            stock = [u - k for u, k in zip(unseen, h)]
            size = sum(stock)
            for c in range(6):
                if stock[c]:
                    more = h[:c] + (h[c] + 1,) + h[c + 1 :]
                    moved[more] = moved.get(more, 0.0) + p * stock[c] / size
        self._set(moved)

    def observer_drew(self, unseen: list[int], colour: int) -> None:
        """The observer drew ``colour`` from the stock: likelier where the other hand holds less of it."""
        self._set({h: p * (unseen[colour] - h[colour]) / (sum(unseen) - sum(h)) for h, p in self.belief.items()})

    def chose(self, board: np.ndarray, height: list[int], field: int, model: np.ndarray, mix: float = 0.05) -> None:
        """The other seat placed on ``field``: weight each hand by the model's probability of that choice."""
        weighted = {}
        for h, p in self.belief.items():
            features, pays = with_hand(board, height, h)
            if pays[field]:
                z = np.where(pays, features @ model, -np.inf)
                e = np.exp(z - z[pays].max())
                weighted[h] = p * (mix / pays.sum() + (1 - mix) * e[field] / e.sum())
        self._set(weighted)


def scores(belief: dict[Hand, float], truth: Hand) -> dict[str, float]:
    brier = [
        (sum(p for h, p in belief.items() if h[c] >= least) - (truth[c] >= least)) ** 2 for least in (1, 2) for c in range(6)
    ]
    return {
        "cards in common": sum(p * sum(map(min, h, truth)) for h, p in belief.items()),
        "log p(true counts)": math.log(belief.get(truth, 1e-300)),
        "Brier, holds c": sum(brier) / len(brier),
    }


def evaluate(records: list[GameRecord], model: np.ndarray, deals: int, player: str) -> dict[str, dict[str, list[float]]]:
    """The scores of each prediction, observing every seat whose other seat's spec contains ``player``."""
    rows: dict[str, dict[str, list[float]]] = {name: {} for name in ("unseen", "determinize", "exact", "exact+model")}
    for record in records:
        for observer in (0, 1):
            other = 1 - observer
            if player not in record.specs[other]:
                continue
            exact = modelled = None
            mover = None
            for state, action in steps(record):
                if state.is_terminal():
                    break
                pos = position(state)
                unseen = [10 - k - d for k, d in zip(pos.hands[observer], pos.discard)]
                if exact is None:
                    exact, modelled = HandFilter(unseen), HandFilter(unseen)
                if state.is_chance():
                    if sum(pos.stock) == 0:  # this draw reshuffles the discard pile into the stock
                        unseen = [10 - k for k in pos.hands[observer]]
                    if mover == other:
                        exact.drew_unseen(unseen)
                        modelled.drew_unseen(unseen)
                    else:
                        after = state.clone()
                        after.apply(action)
                        colour = [b - a for a, b in zip(pos.hands[observer], position(after).hands[observer])].index(1)
                        exact.observer_drew(unseen, colour)
                        modelled.observer_drew(unseen, colour)
                    continue
                mover = state.current_player
                if mover == observer and len(state.legal_actions()) > 1:
                    truth = pos.hands[other]
                    sample = [position(state.determinize(observer, k)).hands[other] for k in range(deals)]
                    empirical: dict[Hand, float] = {}
                    for h in sample:
                        empirical[h] = empirical.get(h, 0.0) + 1 / deals
                    for name, belief in (("unseen", hypergeometric(unseen)), ("determinize", empirical), ("exact", exact.belief), ("exact+model", modelled.belief)):
                        for score, value in scores(belief, truth).items():
                            rows[name].setdefault(score, []).append(value)
                if mover == other:
                    if len(state.legal_actions()) > 1:
                        modelled.chose(board_features(pos, other), pos.height, action, model)
                    colour, cost = FIELD_COLOUR[action], pos.height[action] + 1
                    exact.paid(colour, cost)
                    modelled.paid(colour, cost)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("test", help="records of two-player just4fun_colours games (kibitz match --out)")
    parser.add_argument("--train", required=True, help="records to fit the model of play on")
    parser.add_argument("--fit", default="", help="fit only the decisions of seats whose spec contains this")
    parser.add_argument("--other", default="", help="predict only the hands of seats whose spec contains this")
    parser.add_argument("--deals", type=int, default=300, help="determinizations per decision")
    args = parser.parse_args()
    with open(args.train) as train, open(args.test) as test:
        model = fit_model(list(read_records(train)), args.fit)
        rows = evaluate(list(read_records(test)), model, args.deals, args.other)
    base = rows["determinize"]
    for name, row in rows.items():
        for score, values in row.items():
            if name == "determinize" and score.startswith("log"):
                continue
            line = f"{name:12s} {score:20s} {np.mean(values):8.4f}"
            if name != "determinize":
                diff = np.subtract(values, base[score]) if not score.startswith("log") else None
                if diff is not None:
                    line += f"   vs determinize {diff.mean():+.4f} ± {2 * diff.std(ddof=1) / math.sqrt(len(diff)):.4f}"
            print(line + f"   ({len(values)} decisions)")


if __name__ == "__main__":
    main()
