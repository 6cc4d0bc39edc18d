"""What a search's trees take in memory against its budget (``memory_mb``, the protocol's ``Hash``).

    python bench/memory.py [--memory-mb 16] [--seconds 90 | --iterations N] [--cases yak4-noon,...]

Each case runs in a fresh process: it builds a position, reads the process's resident set
(VmRSS), searches it with ``memory_mb`` for ``--seconds`` (or ``--iterations``; long enough for
the trees to fill: ``tree_full``), and reads the peak resident set (VmHWM). It prints, per case,
the tree records (``nodes``), whether the trees filled, the peak growth over the start (MiB),
that growth less the budget (the overhead beyond ``memory_mb``, which docs/architecture.md
states) and the bytes per record. Linux only (/proc/self/status). tests/test_search.py runs one
case with an iteration budget.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

CASES = {
    # name: (game, players, what to search, algorithm, threads)
    "j4fc2": ("just4fun_colours", 2, "opening", "so_ismcts", 1),
    "j4fc4-mo": ("just4fun_colours", 4, "opening", "mo_ismcts", 1),
    "yucata3": ("yucata", 3, "opening", "so_ismcts", 1),
    "yucata2-uct": ("yucata", 2, "opening", "uct", 1),
    "canasta": ("canasta_tiles", 4, "opening", "so_ismcts", 1),
    "yak4-sunrise": ("yak", 4, "sunrise", "so_ismcts", 1),
    "yak4-noon": ("yak", 4, "noon", "so_ismcts", 1),
    "yak4-noon-mo": ("yak", 4, "noon", "mo_ismcts", 1),
    "yak4-sunrise-2t": ("yak", 4, "sunrise", "so_ismcts", 2),
    "yak4-noon-pimc": ("yak", 4, "noon", "pimc", 2),
}


def status_mib(field: str) -> float:
    """A field of /proc/self/status (VmRSS, VmHWM) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def position(game_name: str, players: int, where: str):  # type: ignore[no-untyped-def]
    """The case's position: an opening decision, a Yak Sunrise (a simultaneous node) or the
    first Noon decision of Yak's second round, reached by seeded random play."""
    import kibitz

    state = kibitz.Game(game_name, players=players).new_initial_state(7)
    rng = random.Random(7)
    sunrises = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng.getrandbits(63)))
        elif state.is_simultaneous():
            if where == "sunrise" or (where == "opening" and sunrises == 0):
                return state
            state.apply_joint({seat: rng.choice(state.legal_actions_for(seat)) for seat in state.choosing_seats()})
            sunrises += 1
        elif where == "opening" or (where == "noon" and sunrises == 2):
            return state
        else:
            state.apply(rng.choice(state.legal_actions()))
    raise RuntimeError(f"no {where} position in {game_name}")


def run_case(name: str, memory_mb: int, seconds: float, iterations: int = 0) -> dict[str, object]:
    """One case in this process (a fresh one): the figures of the module docstring."""
    import kibitz

    game, players, where, algorithm, threads = CASES[name]
    state = position(game, players, where)
    seat = state.choosing_seats()[0] if state.is_simultaneous() else None
    start = status_mib("VmRSS")
    budget = {"iterations": iterations, "time_ms": 0.0} if iterations else {"iterations": 0, "time_ms": 1000.0 * seconds}
    params = kibitz.SearchParams(algorithm=algorithm, memory_mb=memory_mb, threads=threads, seed=1, **budget)
    began = time.perf_counter()
    result = state.search(params, seat=seat)
    return {
        "case": name,
        "nodes": result.nodes,
        "full": result.tree_full,
        "seconds": round(time.perf_counter() - began, 1),
        "peak_mib": round(status_mib("VmHWM") - start, 1),
        "over_mib": round(status_mib("VmHWM") - start - memory_mb, 1),
        "bytes_per_node": round((status_mib("VmHWM") - start) * 2**20 / max(result.nodes, 1), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memory-mb", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=90.0, help="search time per case (long enough to fill the trees)")
    parser.add_argument("--iterations", type=int, default=0, help="an iteration budget per case instead of --seconds")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of: {', '.join(CASES)}")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # run one case here (the parent runs each in its own process)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_case(args.one, args.memory_mb, args.seconds, args.iterations)))
        return 0
    budget = f"{args.iterations} iterations" if args.iterations else f"{args.seconds:g} s"
    print(f"memory_mb={args.memory_mb}, search {budget} per case; MiB over the resident set before the search")
    print(f"{'case':<18}{'nodes':>10}{'full':>6}{'peak MiB':>10}{'over cap':>10}{'B/node':>8}")
    for name in args.cases.split(","):
        command = [sys.executable, __file__, "--one", name, "--memory-mb", str(args.memory_mb), "--seconds", str(args.seconds), "--iterations", str(args.iterations)]
        row = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        print(f"{name:<18}{row['nodes']:>10}{'yes' if row['full'] else 'no':>6}{row['peak_mib']:>10}{row['over_mib']:>10}{row['bytes_per_node']:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
