"""Search speed in iterations per CPU-second of two kibitz builds, alternating: each build's
interpreter runs every case once per round in a fresh process, and the table gives each
build's range and the ratio of the bests (docs/research-log/performance.md, "Plug-ins").

    python bench/search_cpu_time.py /path/to/old-venv/bin/python .venv/bin/python --rounds 5

CPU time (``time.process_time()``) rather than wall time, because on a shared machine wall
time moves with the other processes' load far more than the differences worth measuring.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

# name -> (game, players, search parameters); every search from the game's first decision, seed 1.
CASES: dict[str, tuple[str, int, dict[str, object]]] = {
    "J4FC 4 players, SO-ISMCTS, heuristic rollouts": ("just4fun_colours", 4, {"iterations": 20_000}),
    "J4FC 4 players, SO-ISMCTS, random rollouts": ("just4fun_colours", 4, {"iterations": 30_000, "rollout": "random"}),
    "J4FC 2 players, SO-ISMCTS, heuristic rollouts": ("just4fun_colours", 2, {"iterations": 20_000}),
    "Yucata' 2 players, UCT, no solver": ("yucata", 2, {"iterations": 100_000, "algorithm": "uct", "solve_stones": 0}),
    "Yak 4 players, SO-ISMCTS": ("yak", 4, {"iterations": 3_000}),
    "tile Canasta, SO-ISMCTS": ("canasta_tiles", 4, {"iterations": 3_000}),
}


def measure() -> dict[str, float]:
    """Every case once in this interpreter: iterations per CPU-second."""
    import kibitz

    rates = {}
    for name, (game, players, params) in CASES.items():
        state = kibitz.Game(game, players=players).new_initial_state(1)
        while state.current_player == kibitz.CHANCE:
            state.apply(state.sample_chance(1))
        seat = state.choosing_seats()[0] if state.is_simultaneous() else None
        start = time.process_time()
        result = state.search(kibitz.SearchParams(seed=1, **params), seat=seat)  # type: ignore[arg-type]
        rates[name] = result.iterations / (time.process_time() - start)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the interpreter of the first build (its venv's bin/python)")
    parser.add_argument("after", help="the interpreter of the second build")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; each build measured once per round (default 5)")
    args = parser.parse_args()
    runs: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for _ in range(args.rounds):
        for side in ("before", "after"):
            out = subprocess.run([getattr(args, side), __file__, "--measure"], check=True, capture_output=True, text=True).stdout
            for name, rate in json.loads(out).items():
                runs[side].setdefault(name, []).append(rate)
    print(f"| figure (iterations per CPU-second; {args.rounds} alternating rounds) | before | after | best after / best before |")
    print("|---|---:|---:|---:|")
    for name in CASES:
        before, after = runs["before"][name], runs["after"][name]
        print(f"| {name} | {min(before):,.0f}–{max(before):,.0f} | {min(after):,.0f}–{max(after):,.0f} | {max(after) / max(before):.3f} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--measure"]:
        print(json.dumps(measure()))
    else:
        main()
