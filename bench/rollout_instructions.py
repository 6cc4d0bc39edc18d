"""Instructions per rollout, counted by valgrind's callgrind: repeatable to a fraction of a per cent
even on a loaded machine, where the iterations per second of bench/run.py move with the load.

    python bench/rollout_instructions.py            # every case below
    python bench/rollout_instructions.py yak        # the cases whose name contains "yak"

For each game, from the opening of bench/run.py's figures (seed 1): whole playouts with the
game's heuristic rollout policy and with uniformly random moves (``heuristic_playouts`` and
``random_playouts``, the same seed), and SO-ISMCTS iterations with either rollout. Only the
C++ call is counted (callgrind's --toggle-collect), not the interpreter around it. Each line
gives instructions per playout or iteration, and the conditional branches the simulated branch
predictor mispredicts (on a real CPU each costs some 15-20 cycles: a policy with fewer
instructions but more mispredictions can be the slower one).

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


def counts(python: str, case: str, kind: str) -> tuple[int, int]:
    """(instructions, mispredicted conditional branches) callgrind counts inside the C++ call,
    its branch predictor simulated (children traced: --python may be a wrapper script that execs
    the interpreter)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--branch-sim=yes",
                "--trace-children=yes",
                f"--callgrind-out-file={tmp}/callgrind.%p",
                f"--toggle-collect={KINDS[kind]}",
                python,
                __file__,
                "--child",
                case,
                kind,
            ],
            check=True,
            capture_output=True,
        )
        for out in Path(tmp).iterdir():
            text = out.read_text()
            events = re.search(r"^events: (.+)$", text, re.MULTILINE)
            totals = re.search(r"^(?:summary|totals): (.+)$", text, re.MULTILINE)
            if events and totals and int(totals.group(1).split()[0]) > 0:
                found = dict(zip(events.group(1).split(), map(int, totals.group(1).split())))
                return found["Ir"], found["Bcm"]
        raise RuntimeError(f"callgrind counted nothing in {KINDS[kind]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="substrings of the case names (default: every case)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the build to count (default: this one)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print("| case | per | heuristic: instructions | mispredicted branches | random: instructions | mispredicted branches |")
    print("|---|---|---:|---:|---:|---:|")
    for case, (_, _, playouts, iterations) in CASES.items():
        if args.cases and not any(c in case for c in args.cases):
            continue
        for per, count, kinds in (
            ("playout", playouts, ("heuristic_playout", "random_playout")),
            ("SO-ISMCTS iteration", iterations, ("ismcts_heuristic_iteration", "ismcts_random_iteration")),
        ):
            (hi, hb), (ri, rb) = (counts(args.python, case, kind) for kind in kinds)
            print(
                f"| {case} | {per} | {hi / count:,.0f} | {hb / count:,.0f} | {ri / count:,.0f} | {rb / count:,.0f} |", flush=True
            )


if __name__ == "__main__":
    main()
