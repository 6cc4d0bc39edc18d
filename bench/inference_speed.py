"""What policy-based inference (``infer_pool``) costs: SO-ISMCTS iterations per CPU-second in
two-player Just 4 Fun Colours with and without it (docs/performance.md, "Inference").

    python bench/inference_speed.py --rounds 3

The positions are the seat to move's decisions after 4, 7, 10 and 13 turns of a game the
rollout policy plays (the first from seed 1 up that lasts that long; the inference reads up to
``infer_turns`` earlier decisions, so the opening would cost it nothing). CPU time (``time.process_time()``), the best of ``--rounds``
runs per case, because wall time on a shared machine moves with the other processes' load.
"""

from __future__ import annotations

import argparse
import random
import time

import kibitz
from kibitz import SearchParams

CASES: dict[str, dict[str, object]] = {
    "plain": {},
    "infer_pool=256": {"infer_pool": 256},
    "infer_pool=1024": {"infer_pool": 1024},
}


def positions(turns: tuple[int, ...] = (4, 7, 10, 13)) -> list[kibitz.State]:
    """Decision nodes of the first games, played by the rollout policy from seeds 1, 2, ...,
    that last past the last of `turns`."""
    for seed in range(1, 100):
        state = kibitz.Game("just4fun_colours", players=2).new_initial_state(seed)
        rng = random.Random(seed)
        out, decisions = [], 0
        while len(out) < len(turns) and not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng.getrandbits(63)))
                continue
            if decisions in turns:
                out.append(state.clone())
            state.apply(state._s.heuristic_action(rng.getrandbits(32)))
            decisions += 1
        if len(out) == len(turns):
            return out
    raise RuntimeError("no game lasted long enough")


def rate(states: list[kibitz.State], iterations: int, extra: dict[str, object]) -> float:
    """Iterations per CPU-second over one search of each position."""
    start = time.process_time()
    for s in states:
        s.search(SearchParams(iterations=iterations, seed=1, **extra))
    return iterations * len(states) / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs per case; the best counts (default 3)")
    args = parser.parse_args()
    states = positions()
    for iterations in (2_000, 20_000):
        for name, extra in CASES.items():
            best = max(rate(states, iterations, extra) for _ in range(args.rounds))
            print(f"{iterations:>6} iterations  {name:<16} {best:>10,.0f} iterations per CPU-second")


if __name__ == "__main__":
    main()
