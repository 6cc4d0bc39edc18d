"""What a plug-in rollout policy or leaf evaluator costs (docs/plugins.md, docs/performance.md):
SO-ISMCTS iterations per second of each game with its built-in C++ policy, with its Cython
example plug-in (``kibitz.plugins.<game>``), and with a plain Python callable, on 1 and 2 threads,
all in one run; the games with an example evaluator also at ``eval_depth`` 0 and 4.

    python bench/plugins.py --scale 1 --seed 1

The Python callable is the cheapest one can write (a uniform legal move, one numpy call), so
its figure is the floor of the Python path's cost: every call takes the GIL, copies the tensor
and the mask into new arrays and returns through pybind11. Iterations per second are the
search's own count over its own clock (``SearchResult.seconds``), best of ``--repeats``.
"""

from __future__ import annotations

import argparse

import numpy as np

import kibitz
from kibitz import plugins

GAMES = {"just4fun_colours": {"players": 2}, "yucata": {"players": 2}, "canasta_tiles": {}, "yak": {"players": 3}}
ITERATIONS = {"just4fun_colours": 20_000, "yucata": 20_000, "canasta_tiles": 2_000, "yak": 2_000}


def uniform_python(observation: np.ndarray, legal: np.ndarray, seat: int, random: int) -> int:
    """The cheapest sensible Python policy: a uniform legal move from the search's random number."""
    moves = np.flatnonzero(legal)
    return int(moves[random % len(moves)])


def opening(game: str, seed: int) -> kibitz.State:
    """The game's first decision (chance at the start sampled from the seed)."""
    state = kibitz.Game(game, **GAMES[game]).new_initial_state(seed=seed)
    while state.current_player == kibitz.CHANCE:
        state.apply(state.sample_chance(seed))
    return state


def rate(state: kibitz.State, params: kibitz.SearchParams, plugin: plugins.Plugin | None, repeats: int) -> float:
    seat = state.choosing_seats()[0] if state.is_simultaneous() else None
    best = 0.0
    for _ in range(repeats):
        result = state.search(params, seat=seat, plugin=plugin)
        best = max(best, result.iterations / result.seconds)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="workload multiplier (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many searches (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the positions' and searches' seed (default 1)")
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES), help="games (default: all)")
    args = parser.parse_args()
    python_policy = plugins.from_python(uniform_python, name="uniform (Python)")
    print("| game | rollout policy / evaluator | threads | iterations | iterations/s | vs built-in |")
    print("|---|---|---:|---:|---:|---:|")
    for game in args.games:
        state = opening(game, args.seed)
        example = plugins.load(f"kibitz.plugins.{game}")
        n = max(100, int(ITERATIONS[game] * args.scale))
        rows: list[tuple[str, plugins.Plugin | None, int, int]] = [
            ("built-in C++ policy", None, 0, n),
            ("Cython example policy", example, 0, n),
            ("Python callable (uniform)", python_policy, 0, max(100, n // 20)),
        ]
        if example.evaluates:
            rows[1] = ("Cython example policy", example.only("choose"), 0, n)
            rows += [("Cython example policy + evaluator, eval_depth=4", example, 4, n),
                     ("Cython example evaluator at the leaf, eval_depth=0", example, 0, n)]
        for threads in (1, 2):
            base = 0.0
            for label, plugin, depth, iterations in rows:
                params = kibitz.SearchParams(iterations=iterations, threads=threads, seed=args.seed, eval_depth=depth, solve_stones=0)
                speed = rate(state, params, plugin, args.repeats)
                base = base or speed
                print(f"| {game} | {label} | {threads} | {iterations:,} | {speed:,.0f} | {speed / base:.2f} |", flush=True)


if __name__ == "__main__":
    main()
