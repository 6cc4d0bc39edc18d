"""Speed figures of two kibitz builds measured in one run: each build's interpreter (a venv
with that build installed) runs ``kibitz.benchmark.figures`` once per round, the two
alternating, and each figure is the best over the rounds; the table gives both and their
ratio, for the figures both builds have.

    python bench/compare_builds.py /path/to/old-venv/bin/python .venv/bin/python --rounds 5

Alternating in one run is what makes the ratio meaningful on a shared machine: load that
comes and goes hits both builds alike (docs/performance.md). A ratio that ``figures`` takes
within a round (``*_over_*``, such as heuristic over random rollouts) is given as its median
over the rounds.

With ``--same-workloads`` both builds run this checkout's python/kibitz/benchmark.py (with their
own kibitz), so that an older build is measured on figures its own module does not have yet;
that needs the API the module uses to be the same in both builds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path

MEASURE = "import json, sys; from kibitz.benchmark import figures; print(json.dumps(figures(float(sys.argv[1]), 1)))"
# The same, with the benchmark module read from a file (argv[2]) instead of the build's own.
MEASURE_FROM_FILE = (
    "import importlib.util, json, sys; spec = importlib.util.spec_from_file_location('benchmark', sys.argv[2]); "
    "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module); "
    "print(json.dumps(module.figures(float(sys.argv[1]), 1)))"
)
BENCHMARK = Path(__file__).resolve().parents[1] / "python" / "kibitz" / "benchmark.py"


def figures_of(python: str, scale: float, same_workloads: bool = False) -> dict[str, float]:
    command = [python, "-c", MEASURE_FROM_FILE, str(scale), str(BENCHMARK)] if same_workloads else [python, "-c", MEASURE, str(scale)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return {k: v for k, v in json.loads(out).items() if isinstance(v, (int, float))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the interpreter of the first build (its venv's bin/python)")
    parser.add_argument("after", help="the interpreter of the second build")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; each build measured once per round (default 5)")
    parser.add_argument("--scale", type=float, default=1.0, help="workload multiplier (default 1)")
    parser.add_argument("--same-workloads", action="store_true", help="both builds run this checkout's kibitz/benchmark.py")
    args = parser.parse_args()
    best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
    ratios: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for _ in range(args.rounds):
        for side in ("before", "after"):
            for name, value in figures_of(getattr(args, side), args.scale, args.same_workloads).items():
                if name.endswith(("_per_s", "speedup")):  # throughputs: the best is the least disturbed
                    best[side][name] = max(best[side].get(name, value), value)
                elif "_over_" in name:  # a ratio taken within the round
                    ratios[side].setdefault(name, []).append(value)
    for side in ("before", "after"):
        best[side].update((name, statistics.median(values)) for name, values in ratios[side].items())
    print(f"| figure | before | after | after / before |  (best of {args.rounds} alternating rounds)")
    print("|---|---:|---:|---:|")
    for name in sorted(set(best["before"]) & set(best["after"])):
        before, after = best["before"][name], best["after"][name]
        shown = "{:,.0f}" if max(before, after) >= 100 else "{:.3f}"  # a throughput, or a ratio such as a speed-up
        print(f"| `{name}` | {shown.format(before)} | {shown.format(after)} | {after / before:.3f} |")
    for side in ("before", "after"):
        only = sorted(set(best[side]) - set(best["after" if side == "before" else "before"]))
        if only:
            print(f"\nonly {side}: {', '.join(only)}")


if __name__ == "__main__":
    main()
