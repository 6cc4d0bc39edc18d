"""Does the inference move the deals toward the truth? In two-player Just 4 Fun Colours games
between a search seat (seat 0) and an opponent, at every decision of seat 0 with a choice, the
mean number of cards a determinization gives seat 1 in common with seat 1's true hand, weighted
by the decision likelihood, minus the same mean unweighted (docs/games/just4fun_colours.md §10).

    python bench/inference_overlap.py --opponent ismcts --games 8
    python bench/inference_overlap.py --opponent greedy --games 12

Seat 0 plays ``ismcts:iterations=400``; the opponent ``greedy`` or ``ismcts:iterations=1000``.
Game g is dealt from seed 500 + g; each decision reads 300 deals. Prints, per model setting
(turns, temperature, epsilon), the mean gain in cards and two standard errors.
"""

from __future__ import annotations

import argparse
import math
import random

import kibitz
from kibitz import SearchParams

SETTINGS = [(4, 1e4, 0.1), (4, 200.0, 0.1), (4, 1e4, 0.02), (8, 1e4, 0.1)]
DEALS = 300


def opponent_hand(state: kibitz.State) -> list[int]:
    hand = state.notation().split("hands=")[1].split()[0].split(",")[1]
    return [hand.count(ch) for ch in "ROYGBP"]


def gains(opponent: str, games: int) -> dict[tuple[int, float, float], list[float]]:
    out: dict[tuple[int, float, float], list[float]] = {s: [] for s in SETTINGS}
    game = kibitz.Game("just4fun_colours", players=2)
    for g in range(games):
        state = game.new_initial_state(seed=500 + g)
        rng = random.Random(g)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng.getrandbits(63)))
                continue
            if len(state.legal_actions()) == 1:
                state.apply(state.legal_actions()[0])
                continue
            if state.current_player == 0:
                truth = opponent_hand(state)
                deals = [state.determinize(0, k) for k in range(DEALS)]
                common = [sum(min(a, b) for a, b in zip(opponent_hand(d), truth)) for d in deals]
                uniform = sum(common) / DEALS
                for turns, temperature, epsilon in SETTINGS:
                    w = [math.exp(d._s.decision_log_likelihood(0, turns, temperature, epsilon, k)) for k, d in enumerate(deals)]
                    out[(turns, temperature, epsilon)].append(sum(x * c for x, c in zip(w, common)) / sum(w) - uniform)
                action = state.search(SearchParams(iterations=400, seed=g)).action
            elif opponent == "greedy":
                action = state._s.greedy_action(rng.getrandbits(32), [])
            else:
                action = state.search(SearchParams(iterations=1000, seed=g + 7)).action
            state.apply(action)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", choices=("greedy", "ismcts"), default="ismcts")
    parser.add_argument("--games", type=int, default=8)
    args = parser.parse_args()
    for setting, values in gains(args.opponent, args.games).items():
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (len(values) - 1))
        print(f"{args.opponent}  turns, temperature, epsilon = {setting}: {mean:+.3f} ± {2 * sd / math.sqrt(len(values)):.3f} cards ({len(values)} decisions)")


if __name__ == "__main__":
    main()
