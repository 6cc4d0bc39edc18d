"""Iterations a CPU-second of the presets' searches in the positions of real games: what "1 s a
decision" buys in each game, the figure behind the "about 1 s" rows of docs/strength.md.

    python bench/match_rates.py                 # every case, 2 games each
    python bench/match_rates.py --games 4 --iterations 20000

Positions: every decision of seat 0 in games between greedy players (seeded, so every build
searches the same positions). Each is searched once with the preset's parameters at a fixed
iteration budget, timed by ``time.process_time()``: CPU time, so other processes' load moves
the figure less than it moves wall time. A search of 1 s builds a larger tree than a short one,
so the budget should be near the figure printed.
"""

from __future__ import annotations

import argparse
import statistics
import time

import kibitz
from kibitz.bots import make_bot
from kibitz.game import State
from kibitz.match import play_bots

# name -> (game, options, preset spec)
CASES: dict[str, tuple[str, dict[str, object], str]] = {
    "J4FC 2 players": ("just4fun_colours", {"players": 2}, "ismcts:preset=just4fun_colours/strong"),
    "J4FC 4 players": ("just4fun_colours", {"players": 4}, "ismcts:preset=just4fun_colours/strong"),
    "Yucata' 4 players, random layouts": ("yucata", {"players": 4, "layout": "random"}, "uct:preset=yucata/strong-4p"),
    "tile Canasta": ("canasta_tiles", {}, "ismcts:preset=canasta_tiles/strong"),
}


def positions(game: kibitz.Game, games: int) -> list[State]:
    """Seat 0's decisions with a choice in ``games`` games of greedy players (seeds 1, 2, ...)."""
    found: list[State] = []

    def keep(state: State, _action: object) -> None:
        if state.current_player == 0 and len(state.legal_actions()) > 1:  # a forced move is not searched
            found.append(state.clone())

    for seed in range(1, games + 1):
        play_bots(game, [make_bot("greedy", seed=seed) for _ in range(game.num_players)], seed, record=False, on_move=keep)
    return found


def rates(spec: str, states: list[State], iterations: int) -> list[float]:
    """Iterations per CPU-second of ``spec``'s search at each state, from seat 0's view."""
    bot = make_bot(spec)
    params = bot.params.with_(iterations=iterations, time_ms=0)  # type: ignore[attr-defined]
    out = []
    for i, state in enumerate(states):
        start = time.process_time()
        result = state.search(params.with_(seed=i))
        out.append(result.iterations / max(time.process_time() - start, 1e-9))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2, help="greedy games whose positions are searched (default 2)")
    parser.add_argument("--iterations", type=int, default=50_000, help="iterations a search (default 50,000)")
    parser.add_argument("--cases", default="", help="only the cases whose name contains this text")
    args = parser.parse_args()
    print(f"{'case':40} {'positions':>9} {'median it/s':>12} {'lowest':>10} {'highest':>10}")
    for name, (game_name, options, spec) in CASES.items():
        if args.cases not in name:
            continue
        states = positions(kibitz.Game(game_name, **options), args.games)  # type: ignore[arg-type]
        figures = rates(spec, states, args.iterations)
        print(f"{name:40} {len(figures):9d} {statistics.median(figures):12,.0f} {min(figures):10,.0f} {max(figures):10,.0f}", flush=True)


if __name__ == "__main__":
    main()
