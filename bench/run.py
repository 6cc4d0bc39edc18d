"""Prints kibitz speed figures: ``python bench/run.py --json`` gives one JSON object.

Measure ratios within one run; absolute numbers vary with machine load.
"""

from __future__ import annotations

import argparse
import json

from kibitz.benchmark import figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--scale", type=float, default=1.0, help="workload multiplier (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args()
    result = figures(args.scale, args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        width = max(map(len, result))
        for name, value in result.items():
            print(f"{name:<{width}}  {value:,}")


if __name__ == "__main__":
    main()
