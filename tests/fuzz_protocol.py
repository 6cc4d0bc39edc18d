"""Long protocol fuzz: ``python tests/fuzz_protocol.py --lines 100000 [--seed S]``.

Feeds random and mutated lines to an in-process engine (the same checks as the hypothesis
test in test_protocol.py, at a size the suite cannot afford): every line either works or
gets exactly one ``info string error:`` line, no internal error is reported, and the engine
keeps running. Prints the counts; exits 1 on the first violation, naming the line.
"""

from __future__ import annotations

import argparse
import random
import string
import sys

import kibitz
from kibitz.protocol import COMMANDS, Engine

GAME = "just4fun_colours"
WORDS = [
    *COMMANDS,
    *("name", "value", "players", "seat", "view", "state", "iterations", "movetime", "infinite", "startpos", "fen"),
    *("moves", "p1time", "s0time", "nodes", "p1turn", "2", "0", "x", "=", "?", "?7", "S", "blocked:RR"),
    *("yucata", "canasta_tiles", "discard:7", "rank:9", "lay:9x3+2", "draw", "take", "done", "Q"),
]


def seed_lines(rng: random.Random) -> list[str]:
    state = kibitz.Game(GAME, players=2).new_initial_state(rng.getrandbits(32))
    seat = state.current_player
    return [
        "kgi",
        f"newgame {GAME} players 2 seat {seat}",
        f"position view {state.view(seat).notation}",
        f"position state {state.notation()}",
        "setoption name Iterations value 20",
        "go iterations 20",
        f"observe {state.legal_moves()[0]}",
        "observe ?",
        "go s0time 100 s1time 100 movestogo 5",
        "legal",
        "d",
        "query turn",
        "query view",
        "ugi",
        "uginewgame",
        "position startpos moves 5 S 3",
        "setoption name UGIGameOptions value q=distance",
        "go nodes 20 p1time 100 p2time 100",
        "query p1turn",
        *other_games(rng),
    ]


def other_games(rng: random.Random) -> list[str]:
    """Valid lines for the other games: a new game, its view and full state, one move."""
    lines = []
    for name, players in (("yucata", 3), ("canasta_tiles", 4)):
        state = kibitz.Game(name, players=players).new_initial_state(rng.getrandbits(32))
        seat = max(state.current_player, 0)
        lines += [
            f"newgame {name} players {players} seat {seat}",
            f"position view {state.view(seat).notation}",
            f"position state {state.notation()}",
            f"observe {state.observation_text(seat, state.legal_actions()[0])}",
        ]
    return lines


def random_line(rng: random.Random, seeds: list[str]) -> str:
    kind = rng.random()
    if kind < 0.3:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))
    if kind < 0.5:
        return "".join(rng.choice(string.printable[:95]) for _ in range(rng.randint(0, 40)))
    line = list(rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(line) + 1)
        if rng.random() < 0.5 and line:
            del line[min(i, len(line) - 1)]
        else:
            line.insert(i, rng.choice(string.printable[:95]))
    return "".join(line)


def handle_checked(engine: Engine, out: list[str], line: str) -> tuple[list[str], str | None]:
    """Hands ``line`` to the engine (stopping any search it starts) and returns the lines it
    printed and what was wrong, if anything: more than one error line, an internal error, or
    the session ending on a line other than quit."""
    before = len(out)
    engine.handle(line)
    if engine.searching():
        engine.handle("stop")
    new = out[before:]
    if sum(x.startswith("info string error:") for x in new) > 1:
        return new, "more than one error line"
    if any("internal error" in x for x in new):
        return new, "an internal error"
    if not engine.running and line.split()[:1] != ["quit"]:
        return new, "the session ended"
    return new, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out: list[str] = []
    engine = Engine(out.append)
    seeds = seed_lines(rng)
    errors = 0
    for n in range(args.lines):
        line = rng.choice(seeds) if rng.random() < 0.2 else random_line(rng, seeds)
        new, violation = handle_checked(engine, out, line)
        if violation:
            print(f"line {n}: {line!r}: {violation}: {new}", file=sys.stderr)
            return 1
        errors += sum(x.startswith("info string error:") for x in new)
        if not engine.running:
            engine = Engine(out.append)
        if len(out) > 10_000:
            out.clear()
    print(f"{args.lines} lines, {errors} error replies, no violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
