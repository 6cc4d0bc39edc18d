"""Long protocol fuzz: ``python tests/fuzz_protocol.py --lines 100000 [--seed S]``.

Feeds random and mutated lines to an in-process engine (the same checks as the hypothesis
test in test_protocol.py, at a size the suite cannot afford): every line either works or
gets exactly one ``info string error:`` line, every ``go`` ends in exactly one ``bestmove``
or one error line, no internal error is reported, the engine keeps running and stays usable
(after every error on a ``go`` a valid search still answers), and a refused ``setoption``
imports nothing (a plug-in name that is not allowed, or not a module name). The lines mix protocol words, huge and malformed
numbers, non-ASCII text, plug-in names (shipped, not allowed, not module names) and mutations of
valid lines of every game, a tile Canasta view of notation version 1 among them.
Prints the counts; exits 1 on the first violation, naming the line.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from pathlib import Path

import kibitz
from kibitz import plugins
from kibitz.protocol import COMMANDS, Engine

GAME = "just4fun_colours"
WORDS = [
    *COMMANDS,
    *("name", "value", "players", "seat", "view", "state", "iterations", "movetime", "infinite", "startpos", "fen"),
    *("moves", "p1time", "s0time", "nodes", "p1turn", "2", "0", "x", "=", "?", "?7", "S", "blocked:RR"),
    *("yucata", "canasta_tiles", "discard:7", "rank:9", "lay:9x3+2", "draw", "take", "done", "Q"),
    *("setoption", "Iterations", "Seed", "Determinizations", "SolveStones", "Threads", "Exploration", "Algorithm", "uct"),
    *("Plugin", "EvalDepth", "<empty>", *plugins.examples(), "kibitz.plugins.yak:choose", "os", "../../etc/passwd", ".os", "a..b", "x:y"),
]
NAME_PIECES = ["kibitz", ".plugins", ".yak", ".just4fun_colours", "os", "..", ".", "/", ":", "choose", ":evaluate", "-", "1", "é", "_x"]
# A tile Canasta seat view as the build of 2026-11-29 wrote it (notation version 1: tests/data/formats).
OLD_CANASTA_VIEW = next(
    line.split("\t")[1] for line in (Path(__file__).parent / "data" / "formats" / "canasta_tiles.txt").read_text().splitlines() if line.startswith("view")
)
HUGE_NUMBERS = [
    "18446744073709551616",  # 2^64
    "99999999999999999999",
    "9223372036854775808",  # 2^63
    "2000000000",
    "1e23",
    "-1",
    "1e13",
    "inf",
    "nan",
    "0x10",
    "9" * 5000,  # beyond Python's int-string limit
]
NON_ASCII = "é²½ÿ\ufffd\u0301\u00a0€😀ß"  # accents, superscript digit, U+FFFD, combining, NBSP, emoji
NOISE = string.printable[:95] + NON_ASCII


def seed_lines(rng: random.Random) -> list[str]:
    state = kibitz.Game(GAME, players=2).new_initial_state(rng.getrandbits(32))
    seat = state.current_player
    return [
        "kgi",
        f"newgame {GAME} players 2 seat {seat}",
        f"position view {state.view(seat).notation()}",
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
        "setoption name Plugin value kibitz.plugins.just4fun_colours",
        "setoption name Plugin value <empty>",
        "setoption name Plugin value kibitz.stats",
        f"newgame canasta_tiles players 4 seat {OLD_CANASTA_VIEW.split('seat=')[1].split()[0]}",
        f"position view {OLD_CANASTA_VIEW}",
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
            f"position view {state.view(seat).notation()}",
            f"position state {state.notation()}",
            f"observe {state.observation_text(seat, state.legal_actions()[0])}",
        ]
    return lines


def random_line(rng: random.Random, seeds: list[str]) -> str:
    kind = rng.random()
    if kind < 0.25:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))
    if kind < 0.4:
        return "".join(rng.choice(NOISE) for _ in range(rng.randint(0, 40)))
    if kind < 0.55:
        return huge_number_line(rng, seeds)
    if kind < 0.57:  # a plug-in name: shipped, not allowed, or not a module name at all
        return "setoption name Plugin value " + "".join(rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 5)))
    line = list(rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(line) + 1)
        if rng.random() < 0.5 and line:
            del line[min(i, len(line) - 1)]
        else:
            line.insert(i, rng.choice(NOISE))
    return "".join(line)


def huge_number_line(rng: random.Random, seeds: list[str]) -> str:
    """A valid line with one of its numbers (or one field value) replaced by a huge or
    malformed number, or by non-ASCII text."""
    words = rng.choice([*seeds, *NUMBER_LINES]).split()
    spots = [i for i, w in enumerate(words) if any(c.isdigit() for c in w)] or [len(words) - 1]
    i = rng.choice(spots)
    value = rng.choice([*HUGE_NUMBERS, rng.choice(NON_ASCII) * rng.randint(1, 3)])
    key, eq, _ = words[i].partition("=")
    words[i] = f"{key}={value}" if eq else value
    return " ".join(words)


NUMBER_LINES = [
    "go iterations 20",
    "go nodes 20",
    "go movetime 20",
    "go s0time 100 s1time 100 s0inc 10 s1inc 10 movestogo 5",
    "setoption name Iterations value 20",
    "setoption name Seed value 5",
    "setoption name Determinizations value 5",
    "setoption name SolveStones value 5",
    "setoption name Threads value 1",
    "setoption name Exploration value 0.5",
    "newgame just4fun_colours players 2 seat 0",
    "perft 1",
]


def handle_checked(engine: Engine, out: list[str], line: str) -> tuple[list[str], str | None]:
    """Hands ``line`` to the engine (stopping any search it starts) and returns the lines it
    printed and what was wrong, if anything: more than one error line, an internal error, a
    ``go`` that did not end in exactly one bestmove or one error line, an engine still
    searching after stop, or the session ending on a line other than quit."""
    before = len(out)
    modules = set(sys.modules) if line.startswith("setoption") else None
    engine.handle(line)
    if engine.searching():
        engine.handle("stop")
    engine.wait()  # the search thread has written everything it will write
    new = out[before:]
    errors = sum(x.startswith("info string error:") for x in new)
    if errors > 1:
        return new, "more than one error line"
    if any("internal error" in x for x in new):
        return new, "an internal error"
    if line.split()[:1] == ["go"] and errors + sum(x.startswith("bestmove") for x in new) != 1:
        return new, "a go that did not end in exactly one bestmove or one error line"
    if engine.searching():
        return new, "still searching after stop"
    if modules is not None and errors and set(sys.modules) - modules:
        return new, f"a refused setoption imported {sorted(set(sys.modules) - modules)}"
    if not engine.running and line.split()[:1] != ["quit"]:
        return new, "the session ended"
    return new, None


USABLE_CHECK = (
    "setoption name Plugin value <empty>",  # a plug-in set by an earlier line may be another game's
    "newgame yucata start=0 players 2 seat 0",
    "position view " + kibitz.Game("yucata", players=2, start=0).new_initial_state(0).view(0).notation(),
)


def usable(engine: Engine, out: list[str]) -> str | None:
    """None if the engine still answers a valid search with a bestmove (it is left in a new
    game: the check changes the session), else what went wrong."""
    for line in USABLE_CHECK:
        new, violation = handle_checked(engine, out, line)
        if violation or any(x.startswith("info string error:") for x in new):
            return f"the engine refused {line!r} afterwards: {new}"
    new, violation = handle_checked(engine, out, "go iterations 10")
    if violation or not new or not new[-1].startswith("bestmove"):
        return f"the engine no longer searches: {new}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out: list[str] = []
    engine = Engine(out.append)
    seeds = seed_lines(rng)
    errors = searches = 0
    for n in range(args.lines):
        line = rng.choice(seeds) if rng.random() < 0.2 else random_line(rng, seeds)
        new, violation = handle_checked(engine, out, line)
        if not violation and line.split()[:1] == ["go"] and new[-1].startswith("info string error:") and rng.random() < 0.05:
            violation = usable(engine, out)
        if violation:
            print(f"line {n}: {line!r}: {violation}: {new}", file=sys.stderr)
            return 1
        errors += sum(x.startswith("info string error:") for x in new)
        searches += sum(x.startswith("bestmove") for x in new)
        if not engine.running:
            engine = Engine(out.append)
        if len(out) > 10_000:
            out.clear()
    print(f"{args.lines} lines, {errors} error replies, {searches} searches answered, no violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
