"""A kibitz engine that misbehaves on purpose, for the referee's adjudication tests.

    python tests/broken_engine.py <fault> [<decision>]

It answers like ``kibitz engine`` until its ``<decision>``-th ``go`` (default 1), then:
``crash`` exits with code 3; ``hang`` never answers; ``illegal`` answers ``bestmove blocked``
(in Just 4 Fun Colours illegal while a field can be taken); ``garbage`` prints a line that is
not protocol; ``nonsense`` answers ``bestmove`` with unreadable text; ``malformed`` sends
``bestmove`` alone; ``error`` reports an error instead of moving; ``badbytes`` answers with
bytes that are not UTF-8; ``closeout`` closes its output and goes on running (reading its
input); ``quit`` exits with code 0. ``startup`` exits (code 4) at the handshake, before any decision.
"""

from __future__ import annotations

import os
import sys
import time

from kibitz.protocol import Engine

REPLIES = {
    "illegal": "bestmove blocked",
    "garbage": "hello referee",
    "nonsense": "bestmove z9",
    "malformed": "bestmove",
    "error": "info string error: no idea",
}
FAULTS = ("crash", "hang", "badbytes", "startup", "closeout", "quit", *REPLIES)


def main() -> int:
    fault = sys.argv[1]
    if fault not in FAULTS:
        print(f"unknown fault {fault!r}; one of {', '.join(FAULTS)}", file=sys.stderr)
        return 2
    faulty_decision = int(sys.argv[2]) if len(sys.argv) > 2 else 1

    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    engine = Engine(write)
    decisions = 0
    for line in sys.stdin:
        if fault == "startup" and line.startswith("kgi"):
            return 4
        if line.startswith("go"):
            decisions += 1
            if decisions == faulty_decision:
                if fault == "crash":
                    print("broken_engine: crashing on purpose", file=sys.stderr)
                    return 3
                if fault == "hang":
                    time.sleep(3600)
                if fault == "quit":
                    return 0
                if fault == "closeout":
                    sys.stdout.flush()
                    os.close(sys.stdout.fileno())
                    for _ in sys.stdin:  # still running, reading what it is sent
                        pass
                    return 0
                if fault == "badbytes":
                    sys.stdout.buffer.write(b"bestmove \xff\xfe\n")
                    sys.stdout.flush()
                    continue
                write(REPLIES[fault])
                continue
        engine.handle(line.strip())
        if not engine.running:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
