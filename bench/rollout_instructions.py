"""Instructions per rollout, counted by valgrind's callgrind: repeatable to a fraction of a per cent
even on a loaded machine, where the iterations per second of bench/run.py move with the load.

    python bench/rollout_instructions.py            # every case below
    python bench/rollout_instructions.py yak        # the cases whose name contains "yak"

For each game, from the opening of bench/run.py's figures (seed 1): whole playouts with the
game's heuristic rollout policy and with uniformly random moves (``heuristic_playouts`` and
``random_playouts``, the same seed), and SO-ISMCTS iterations with either rollout. Only the
C++ call is counted (callgrind's --toggle-collect), not the interpreter around it. Each line
gives instructions per playout or iteration, and the heuristic over the random figure.

valgrind 3.19 stops at AVX-512 instructions, which ``-march=native`` emits on such CPUs: count
with a build for ``-march=x86-64-v3`` (popcount, BMI2 and AVX2, as the native build uses them),
in a venv of its own, and pass its interpreter with ``--python``:

    pip install --no-build-isolation -Cbuild-dir=build/cg -Ccmake.define.KIBITZ_NATIVE=OFF \
        -Ccmake.define.CMAKE_CXX_FLAGS=-march=x86-64-v3 .
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# name -> (game, players, playouts, search iterations)
CASES: dict[str, tuple[str, int, int, int]] = {
    "just4fun_colours/4": ("just4fun_colours", 4, 200, 2000),
    "just4fun_colours/2": ("just4fun_colours", 2, 200, 2000),
    "canasta_tiles/4": ("canasta_tiles", 4, 20, 200),
    "yak/4": ("yak", 4, 40, 400),
}
# What the child runs, and the C++ function callgrind counts inside.
KINDS = {
    "heuristic_playout": "kibitz::StateImpl<*>::heuristic_playouts(*",
    "random_playout": "kibitz::StateImpl<*>::random_playouts(*",
    "ismcts_heuristic_iteration": "kibitz::StateImpl<*>::search(*",
    "ismcts_random_iteration": "kibitz::StateImpl<*>::search(*",
}


def child(case: str, kind: str) -> None:
    import kibitz

    game, players, playouts, iterations = CASES[case]
    state = kibitz.Game(game, players=players).new_initial_state(1)
    if kind.endswith("playout"):
        getattr(state._s, f"{kind}s")(playouts, 12345)
        return
    seat = state.choosing_seats()[0] if state.is_simultaneous() else None
    rollout = "random" if "random" in kind else "heuristic"
    state.search(kibitz.SearchParams(algorithm="so_ismcts", iterations=iterations, seed=1, rollout=rollout), seat=seat)


def instructions(python: str, case: str, kind: str) -> int:
    """Instructions callgrind counts inside the C++ call (children traced: --python may be a
    wrapper script that execs the interpreter)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={tmp}/callgrind.%p",
             f"--toggle-collect={KINDS[kind]}", python, __file__, "--child", case, kind],
            check=True, capture_output=True,
        )
        totals = [re.search(r"^(?:summary|totals): (\d+)", f.read_text(), re.MULTILINE) for f in Path(tmp).iterdir()]
        counted = [int(t.group(1)) for t in totals if t]
        assert counted, "callgrind wrote no totals"
        return sum(counted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="substrings of the case names (default: every case)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the build to count (default: this one)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print("| case | heuristic playout | random playout | ratio | SO-ISMCTS iteration, heuristic | random | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for case, (_, _, playouts, iterations) in CASES.items():
        if args.cases and not any(c in case for c in args.cases):
            continue
        per = {kind: instructions(args.python, case, kind) / (playouts if kind.endswith("playout") else iterations) for kind in KINDS}
        h, r = per["heuristic_playout"], per["random_playout"]
        hi, ri = per["ismcts_heuristic_iteration"], per["ismcts_random_iteration"]
        print(f"| {case} | {h:,.0f} | {r:,.0f} | {h / r:.2f} | {hi:,.0f} | {ri:,.0f} | {hi / ri:.2f} |", flush=True)


if __name__ == "__main__":
    main()
