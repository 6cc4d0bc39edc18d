"""The text-protocol engine (kibitz engine) driven as a real subprocess over stdin/stdout."""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import threading
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kibitz
from fuzz_protocol import HUGE_NUMBERS, NAME_PIECES, NON_ASCII, handle_checked, usable
from test_search import BLOCKED_POSITION
from kibitz import SearchParams
from kibitz.bots import SearchBot
from kibitz.protocol import COMMANDS, Engine

GAME = "just4fun_colours"


class EngineProcess:
    """A running ``python -m kibitz engine``; ``ask`` sends lines and returns what the engine
    printed up to the ``readyok`` that answers a trailing ``isready``."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kibitz", "engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate, timeout: float = 30.0) -> list[str]:
        out: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            out.append(line)
            if predicate(line):
                return out

    def ask(self, *lines: str) -> list[str]:
        self.send(*lines, "isready")
        return self.read_until(lambda line: line == "readyok")[:-1]

    def close(self) -> int:
        self.send("quit")
        return self.proc.wait(timeout=30)


@pytest.fixture
def engine():
    e = EngineProcess()
    yield e
    if e.proc.poll() is None:
        e.close()


def opening(players: int = 2, seed: int = 1) -> kibitz.State:
    return kibitz.Game(GAME, players=players).new_initial_state(seed)


def test_handshake_lists_every_option_then_kgiok(engine):
    out = engine.ask("kgi")
    assert out[0].startswith("id name ") and out[1].startswith("id author ")
    assert out[-1] == "kgiok"
    names = [line.split()[2] for line in out if line.startswith("option name ")]
    assert {"Algorithm", "Iterations", "Exploration", "Threads", "Seed", "SeeAll"} <= set(names)


def test_go_answers_a_legal_bestmove_with_statistics(engine):
    s = opening()
    seat = s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}", "setoption name Seed value 7")
    engine.send("go iterations 3000")
    out = engine.read_until(lambda line: line.startswith("bestmove"))
    assert out[-1].split()[1] in s.legal_moves()
    info = next(line for line in out if line.startswith("info iterations"))
    assert int(info.split()[2]) == 3000
    assert any(line.startswith("info multipv 1 move ") for line in out)
    assert engine.close() == 0


def test_stop_ends_go_infinite_with_a_bestmove(engine):
    s = opening()
    seat = s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}")
    engine.send("go infinite")
    assert engine.ask("isready") == []  # answered while searching
    engine.send("stop")
    out = engine.read_until(lambda line: line.startswith("bestmove"))  # an infinite search that ignored stop never gets here
    assert out[-1].split()[1] in s.legal_moves()


def test_a_long_search_reports_progress_before_its_bestmove():
    """Progress lines come every info_period_s while a search runs (here 10 ms, so that the
    test waits for lines, not for seconds): totals, then the most visited moves."""
    s = opening()
    seat = s.current_player
    out: list[str] = []
    engine = Engine(out.append, info_period_s=0.01)
    for line in (f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}", "go infinite"):
        engine.handle(line)
    deadline = time.monotonic() + 120  # only a failing test waits this long
    while not any(line.startswith("info multipv") for line in out) and time.monotonic() < deadline:
        time.sleep(0.01)
    engine.handle("stop")
    final = out.index(next(line for line in out if " nodes " in line))
    progress = [line.split() for line in out[:final] if line.startswith("info iterations")]
    assert progress, out
    assert all(words[1::2] == ["iterations", "time", "ips", "value"] for words in progress)
    assert [int(words[2]) for words in progress] == sorted(int(words[2]) for words in progress)  # they only grow
    first_moves = next(i for i, line in enumerate(out) if line.startswith("info multipv"))
    assert first_moves < final and out[first_moves - 1].startswith("info iterations")  # moves follow their totals
    moves = out[first_moves].split()
    assert moves[:3] == ["info", "multipv", "1"] and moves[4] in s.legal_moves() and int(moves[6]) > 0
    assert out[-1].startswith("bestmove ")
    assert int(out[final].split()[2]) >= int(progress[-1][2]) > 0  # stop keeps what was searched


def play_random(state: kibitz.State, rng: random.Random) -> int:
    """One random action (chance sampled with its probabilities); returns it, not applied."""
    if state.is_chance():
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


def test_observe_lines_keep_the_engine_on_its_seats_view_through_a_whole_game(engine):
    s = kibitz.Game(GAME, players=3).new_initial_state(11)
    rng = random.Random(11)
    seat = 2
    engine.ask(f"newgame {GAME} players 3 seat {seat}", f"position view {s.view(seat).notation()}")
    while not s.is_terminal():
        batch = []
        for _ in range(15):
            if s.is_terminal():
                break
            action = play_random(s, rng)
            batch.append(f"observe {s.observation_text(seat, action)}")
            s.apply(action)
        out = engine.ask(*batch, "query view")
        assert out == [f"response {s.view(seat).notation()}"]
    assert engine.ask("query result") == ["response " + " ".join(f"{r:g}" for r in s.returns())]


def test_impossible_observations_are_refused_and_change_nothing(engine):
    s = opening(seed=4)
    seat = 1 - s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}")
    before = engine.ask("query view")
    cases = [
        ("observe", "expected: observe"),
        ("observe zz", "'zz' is not a just4fun_colours move"),
        ("observe blocked", "a blocked turn shows the hand"),
        ("observe blocked:RRRRRRRRRRR", "blocked hand: more than 10 cards of colour R"),
    ]
    for line, named in cases:
        out = engine.ask(line)
        assert len(out) == 1 and out[0].startswith("info string error: ") and named in out[0], (line, out)
        assert engine.ask("query view") == before
    # the opponent's move is public, its draw is not: a colour would be a leak
    move = s.legal_moves()[0]
    s.apply(move)
    out = engine.ask(f"observe {move}", "observe R")
    assert len(out) == 1 and "observe it as '?'" in out[0]


def test_go_with_clock_fields_budgets_time_from_the_seats_clock(monkeypatch):
    searched: list[kibitz.SearchParams] = []
    to_core = kibitz.SearchParams.to_core

    def recording(params):
        searched.append(params)
        return to_core(params.with_(iterations=50))  # the budget is what is checked, not the search

    monkeypatch.setattr(kibitz.SearchParams, "to_core", recording)
    engine, out, s = j4fc_session()
    seat = s.current_player
    reply = answer(engine, out, f"go s{seat}time 4000 s{1 - seat}time 100 s{seat}inc 0")
    assert reply[-1].split()[1] in s.legal_moves()
    # an even share of 4 s over 20 decisions less the margin, not the whole clock; no iteration cap
    assert (searched[-1].time_ms, searched[-1].iterations) == (4000 / 20 - 30, 0)
    answer(engine, out, f"go s{seat}time 60000 s{seat}inc 1000 movestogo 10")
    assert searched[-1].time_ms == 6000 + 750 - 30
    error = answer(engine, out, "go s7time 100")
    assert len(error) == 1 and "seat 7 does not exist" in error[0]


@pytest.mark.parametrize(
    "line,named",
    [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("go", "no game"),
        ("position view x", "no game"),
        ("setoption name Bogus value 1", "unknown option 'Bogus'"),
        ("setoption name Iterations value lots", "Iterations"),
        ("setoption name Algorithm value minimax", "minimax"),
        ("newgame chess players 2 seat 0", "unknown game 'chess'"),
        ("newgame just4fun_colours players 9 seat 0", "players"),
        ("newgame just4fun_colours players 2 seat 5", "seat 5"),
        ("perft x", "no game"),
        ("query colour", "no game"),
    ],
)
def test_bad_lines_get_exactly_one_error_line_and_the_engine_keeps_running(engine, line, named):
    out = engine.ask(line)
    assert len(out) == 1 and out[0].startswith("info string error: ") and named in out[0], out
    assert engine.ask("kgi")[-1] == "kgiok"


def test_bad_input_leaves_the_position_unchanged(engine):
    s = opening()
    seat = s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}")
    before = engine.ask("d", "legal")
    errors = engine.ask("position view just4fun_colours seat=0 players=2 board=garbage", "go movetime x", "query colour", "perft 99")
    assert len(errors) == 4 and all(e.startswith("info string error: ") for e in errors)
    assert engine.ask("d", "legal") == before


def test_go_when_it_is_not_the_seats_turn_is_refused(engine):
    s = opening()
    other = 1 - s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {other}")
    out = engine.ask(f"position view {s.view(other).notation()}", "go iterations 10")
    assert len(out) == 1 and "not seat" in out[0]


def test_another_seats_hidden_cards_do_not_change_the_output():
    """Two full states that differ only in the opponent's hand and the stock: with SeeAll off
    the engine sees only its seat's view, so its whole output is identical for one seed."""
    s = opening(seed=3)
    seat = s.current_player
    other = s.determinize(seat, 99)
    assert other.notation() != s.notation() and other.view(seat).notation() == s.view(seat).notation()
    outputs = []
    for state in (s, other):
        e = EngineProcess()
        e.ask(f"newgame {GAME} players 2 seat {seat}", "setoption name Seed value 5", f"position state {state.notation()}", "d")
        e.send("go iterations 2000")
        out = e.read_until(lambda line: line.startswith("bestmove"))
        outputs.append([line for line in out if not line.startswith("info iterations")])  # time and ips vary
        e.close()
    assert outputs[0] == outputs[1]


def test_query_and_perft_with_see_all(engine):
    s = opening()
    seat = s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {seat}", "setoption name SeeAll value true", f"position state {s.notation()}")
    assert engine.ask("perft 2") == [f"perft {s.perft(2)}"]
    assert engine.ask("query gameover") == ["response false"]
    assert engine.ask("query turn") == [f"response seat {seat}"]


# -- fuzz: random and mutated lines never break the engine -----------------------------------

SEED_LINES = [
    "kgi",
    "isready",
    f"newgame {GAME} players 2 seat 0",
    f"position view {opening(seed=2).view(0).notation()}",
    "setoption name Iterations value 50",
    "go iterations 20",
    "go movetime 18446744073709551616",
    "legal",
    "d",
    "query turn",
    "perft 1",
    "setoption name Plugin value kibitz.plugins.just4fun_colours:choose",
]


def mutated_line():
    words = st.sampled_from(
        [*COMMANDS, "name", "value", "players", "seat", "view", "state", "iterations", "movetime", "Iterations", "Seed", "Plugin", "..", "/"]
        + ["2", "0", "x", "=", "?7", *HUGE_NUMBERS, *NON_ASCII]
    )
    random_line = st.lists(words, min_size=0, max_size=6).map(" ".join)
    text = st.text(alphabet=st.one_of(st.characters(min_codepoint=32, max_codepoint=126), st.sampled_from(NON_ASCII)), max_size=40)
    edited = st.tuples(st.sampled_from(SEED_LINES), st.integers(0, 400), text).map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :])
    plugin = st.lists(st.sampled_from(NAME_PIECES), min_size=1, max_size=5).map(lambda pieces: "setoption name Plugin value " + "".join(pieces))
    return st.one_of(random_line, text, edited, plugin)


@settings(max_examples=200, deadline=None)
@given(st.lists(mutated_line(), min_size=1, max_size=8))
def test_random_lines_never_break_the_engine(lines):
    """Each line either works or gets exactly one error line; the session always survives
    (a search started by a fuzzed 'go' is stopped before the next line)."""
    out: list[str] = []
    engine = Engine(out.append)
    for line in SEED_LINES[:4] + lines:
        new, violation = handle_checked(engine, out, line)
        assert violation is None, (line, violation, new)
        if not engine.running:
            break
    else:
        assert usable(engine, out) is None
    engine.handle("quit")


def test_clock_budget_shares_the_remaining_time_and_keeps_a_margin():
    from kibitz.protocol import CLOCK_MARGIN_MS, clock_budget

    assert clock_budget(60_000, 0, None) == 60_000 // 20 - CLOCK_MARGIN_MS
    assert clock_budget(60_000, 1_000, 10) == 6_000 + 750 - CLOCK_MARGIN_MS
    assert clock_budget(1_000, 5_000, 1) == 500 - CLOCK_MARGIN_MS  # never more than half the clock
    assert clock_budget(10, 0, None) == 1  # almost out of time: the shortest search


# -- UGI mode ------------------------------------------------------------------------------------


def test_ugi_handshake_lists_the_games_it_can_play(engine):
    out = engine.ask("ugi")
    assert out[0].startswith("id name ") and out[-1] == "ugiok"
    assert "option name UGIGame type combo default yucata var yucata" in out
    assert not any("SeeAll" in line for line in out)  # nothing is hidden in a UGI game
    assert engine.ask("position startpos", "query p1turn", "query gameover", "query result") == [
        "response true",
        "response false",
        "response none",
    ]


def test_a_whole_ugi_game_between_two_engine_processes_as_a_tournament_manager_drives_it():
    """Like a UGI tournament manager: startpos plus the moves so far, clocks for p1 and p2;
    the engines' answers must be legal and their final result the game's."""
    engines = [EngineProcess(), EngineProcess()]
    try:
        for e in engines:
            assert e.ask("ugi")[-1] == "ugiok"
            e.ask("setoption name Seed value 3", "uginewgame")
        state = kibitz.Game("yucata", players=2, start=0).new_initial_state(0)
        moves: list[str] = []
        clocks = [2_000, 2_000]
        while True:
            position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            e = engines[len(moves) % 2]
            over, turn = e.ask(position, "query gameover", "query p1turn")
            if over == "response true":
                break
            assert turn == f"response {'true' if state.current_player == 0 else 'false'}"
            e.send(f"go p1time {clocks[0]} p2time {clocks[1]} p1inc 100 p2inc 100")
            move = e.read_until(lambda line: line.startswith("bestmove"))[-1].split()[1]
            assert move in state.legal_moves()
            state.apply(move)
            moves.append(move)
        first, second = state.returns()
        expected = "p1win" if first > second else "p2win" if second > first else "draw"
        assert e.ask("query result") == [f"response {expected}"]  # e was told the final position
    finally:
        for e in engines:
            e.close()


@pytest.mark.parametrize(
    "line,named",
    [
        ("position startpos moves Q", "move 1 'Q'"),
        ("position startpos moves 5 5", "move 2 '5'"),
        ("position fen yucata nonsense", "expected key=value, got 'nonsense'"),
        ("position startpos extra", "unexpected 'extra'"),
        ("go depth 3", "no depth"),
        ("setoption name UGIGameOptions value q=sideways", "sideways"),
        ("setoption name UGIGame value just4fun_colours", "not one of yucata"),
        ("setoption name SeeAll value false", "stays true in UGI mode"),
    ],
)
def test_bad_ugi_lines_are_refused_and_change_nothing(engine, line, named):
    engine.ask("ugi", "position startpos moves 3")
    out = engine.ask(line)
    assert len(out) == 1 and out[0].startswith("info string error: ") and named in out[0], out
    assert engine.ask("query p1turn") == ["response false"]


def test_ugi_commands_need_ugi_mode_first(engine):
    engine.ask(f"newgame {GAME} players 2 seat 0")
    out = engine.ask("position startpos")
    assert len(out) == 1 and "send ugi first" in out[0]


def test_ugi_game_options_change_the_start_position(engine):
    layout = "D" * 9 + "P" * 25
    engine.ask("ugi", f"setoption name UGIGameOptions value layout={layout} start=1", "position startpos")
    assert engine.ask("query p1turn") == ["response false"]
    state = kibitz.Game("yucata", players=2, layout=layout, start=1).new_initial_state(0)
    engine.ask(f"position fen {state.notation()}")
    assert engine.ask("query p1turn") == ["response false"]


# -- options: one table, bounds enforced -------------------------------------------------------


def session(*lines: str) -> tuple[Engine, list[str]]:
    """An in-process engine after ``lines``; returns it and everything it printed."""
    out: list[str] = []
    engine = Engine(out.append)
    for line in lines:
        engine.handle(line)
    return engine, out


@pytest.mark.parametrize(
    "name,value,allowed",
    [
        ("Iterations", "2000000000", "0..1000000000"),
        ("Iterations", "99999999999999999999", "0..1000000000"),
        ("Seed", "1e23", "0..9223372036854775807"),
        ("Seed", "-1", "0..9223372036854775807"),
        ("Determinizations", "100001", "1..100000"),
        ("SolveStones", "65", "0..64"),
        ("Threads", "0", "1..256"),
        ("Exploration", "inf", "0..100"),
        ("Epsilon", "nan", "0..1"),
        ("Iterations", "9" * 5000, "0..1000000000"),
    ],
)
def test_announced_option_bounds_are_enforced(name, value, allowed):
    engine, out = session()
    before = engine.params
    engine.handle(f"setoption name {name} value {value}")
    assert len(out) == 1 and out[0].startswith(f"info string error: option {name}: ") and allowed in out[0], out
    assert value[:20] in out[0] and len(out[0]) < 200  # names the value, shortened
    assert engine.params == before


def test_the_handshake_announces_every_parameter_with_its_range():
    from kibitz.params import PARAMETERS

    _, out = session("kgi")
    for p in PARAMETERS:
        if p.option:
            line = next(line for line in out if line.startswith(f"option name {p.option} "))
            assert f" default {p.default} " in line + " "
            assert (f"min {p.low} max {p.high}" in line) if p.kind is int else True
            assert all(f"var {c}" in line for c in p.choices)


def test_the_docs_options_table_matches_the_parameter_table():
    from pathlib import Path

    from kibitz.protocol import OPTIONS

    text = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text()
    table = [[cell.strip().strip("`") for cell in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("| `")]
    rows = {cells[0]: cells for cells in table}
    for o in OPTIONS:
        _, kind, default, allowed = rows[o.name][:4]
        assert (kind, default) == (o.kind, o.default), o.name
        p = o.parameter
        if p is not None:
            assert allowed == ("`, `".join(p.choices) if p.choices else p.allowed().split(" in ")[1]), o.name


# -- a failed search, huge numbers, non-ASCII: one error line, the engine stays usable ----------


def j4fc_session(*lines: str, seed: int = 1) -> tuple[Engine, list[str], kibitz.State]:
    """An in-process engine with a 2-player Just 4 Fun Colours position of the seat to move."""
    s = opening(seed=seed)
    seat = s.current_player
    engine, out = session(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}", *lines)
    return engine, out, s


def answer(engine: Engine, out: list[str], line: str) -> list[str]:
    """What the engine prints for ``line``, its search (if it starts one) waited for."""
    before = len(out)
    engine.handle(line)
    engine.wait()
    return out[before:]


def assert_usable(engine: Engine, out: list[str], s: kibitz.State) -> None:
    """A small go after a failure is answered with a legal bestmove."""
    reply = answer(engine, out, "go iterations 30")
    assert reply[-1].startswith("bestmove ") and reply[-1].split()[1] in s.legal_moves(), reply


@pytest.mark.parametrize(
    "lines,named",
    [
        (["go iterations 18446744073709551616"], "go iterations: '18446744073709551616' is out of range"),
        (["go iterations " + "9" * 5000], "go iterations"),
        (["go movetime 10000000000000"], "go movetime: '10000000000000' is out of range; expected an integer in 0..1000000000"),
        (["go s0time ²"], "go s0time: '²' is not an integer"),
        (["setoption name Iterations value 99999999999999999999", "go"], "option Iterations"),
    ],
)
def test_a_huge_number_gets_one_error_line_and_the_engine_stays_usable(lines, named):
    engine, out, s = j4fc_session()
    replies = [answer(engine, out, line) for line in lines]
    errors = [line for reply in replies for line in reply if line.startswith("info string error: ")]
    assert len(errors) == 1 and named in errors[0], replies
    assert not any(line.startswith("bestmove") for line in replies[0])
    assert_usable(engine, out, s)


def test_a_huge_ugi_node_count_gets_one_error_line():
    engine, out = session("ugi", "position startpos")
    reply = answer(engine, out, "go nodes 99999999999999999999")
    assert len(reply) == 1 and reply[0].startswith("info string error: go nodes: '99999999999999999999' is out of range")
    assert answer(engine, out, "go nodes 50")[-1].startswith("bestmove ")


def test_a_search_that_fails_in_its_thread_ends_in_one_error_line(monkeypatch):
    engine, out, s = j4fc_session()

    def broken(params):
        raise TypeError("the core refused a parameter")

    monkeypatch.setattr(kibitz.SearchParams, "to_core", broken)
    reply = answer(engine, out, "go iterations 30")
    assert reply == ["info string error: search failed: TypeError: the core refused a parameter"]
    assert not engine.searching()
    monkeypatch.undo()
    assert_usable(engine, out, s)


@pytest.mark.parametrize(
    "line,named",
    [
        ("newgame just4fun_colours players ² seat 0", "players must be a number"),
        ("newgame just4fun_colours players 2 seat " + "9" * 5000, "seat must be a number"),
        ("newgame just4fun_colours line=é players 2 seat 0", "option line"),
        ("perft ²", "perft <depth 0..8>"),
        ("observe é", "non-ASCII character 'é'"),
        ("position view just4fun_colours seat=0 players=2 hands=é,?7", "field 'hands' holds the non-ASCII character 'é'"),
        ("position state " + opening().notation().replace("draws=0", "draws=" + "9" * 5000), "draws"),
        ("setoption name Seed value ²", "option Seed: '²' is not an integer"),
    ],
)
def test_non_ascii_and_overlong_input_are_ordinary_errors(line, named):
    engine, out, _ = j4fc_session()
    before = engine.position
    reply = answer(engine, out, line)
    assert len(reply) == 1 and reply[0].startswith("info string error: ") and named in reply[0], reply
    assert "internal error" not in reply[0] and len(reply[0]) < 300
    assert engine.position is before


def test_bytes_that_are_not_utf8_are_refused_and_the_engine_keeps_running(engine):
    s = opening()
    seat = s.current_player
    engine.ask(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}")
    engine.proc.stdin.buffer.write(b"observe \xff\xfe\n")  # type: ignore[union-attr]
    out = engine.ask("legal")
    assert len(out) == 2 and out[0].startswith("info string error: observation") and out[1].startswith("legal ")


# -- forced moves, and views that do not fit the game -------------------------------------------

BLOCKED_VIEW = kibitz.Game(GAME, players=3).state_from_notation(BLOCKED_POSITION).view(0).notation()  # only "blocked" is legal


def test_a_forced_move_is_answered_at_once_with_its_info_line():
    engine, out = session(f"newgame {GAME} players 3 seat 0", f"position view {BLOCKED_VIEW}")
    reply = answer(engine, out, "go iterations 5000")
    assert len(reply) == 2 and reply[0].startswith("info iterations 0 ") and reply[1] == "bestmove blocked", reply


def test_go_infinite_answers_a_forced_move_only_after_stop():
    """As in UCI: an infinite search never ends by itself, even when nothing is left to search."""
    engine, out = session(f"newgame {GAME} players 3 seat 0", f"position view {BLOCKED_VIEW}")
    engine.handle("go infinite")
    time.sleep(0.3)  # an answer written without waiting for stop would be here by now
    assert out == [] and engine.searching()
    engine.handle("position view " + BLOCKED_VIEW)
    assert len(out) == 1 and "while searching" in out[0]
    engine.handle("stop")
    assert out[1].startswith("info iterations 0 ") and out[2:] == ["bestmove blocked"] and not engine.searching()


@pytest.mark.parametrize(
    "other,named",
    [(kibitz.Game(GAME, players=3), "3 players"), (kibitz.Game(GAME, players=2, line=5), "line=5")],
)
def test_a_view_of_another_game_setup_is_refused_naming_the_field(other, named):
    s = opening()
    seat = s.current_player
    engine, out = session(f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}")
    before = engine.position
    view = other.new_initial_state(1).view(seat).notation()
    reply = answer(engine, out, f"position view {view}")
    assert len(reply) == 1 and reply[0].startswith("info string error: ") and named in reply[0], reply
    assert engine.position is before


# -- Algorithm uct, SeeAll and UGI mode ---------------------------------------------------------


def test_algorithm_uct_without_see_all_is_refused_with_the_reason():
    engine, out, s = j4fc_session("setoption name Algorithm value uct")
    reply = answer(engine, out, "go iterations 30")
    assert len(reply) == 1 and "algorithm uct" in reply[0] and "SeeAll" in reply[0] and "so_ismcts" in reply[0]
    # with SeeAll and the full state it searches that state
    engine.handle("setoption name SeeAll value true")
    engine.handle(f"position state {s.notation()}")
    assert answer(engine, out, "go iterations 30")[-1].startswith("bestmove ")


def test_algorithm_uct_is_fine_in_a_perfect_information_game():
    s = kibitz.Game("yucata", players=3, start=0).new_initial_state(0)
    engine, out = session("setoption name Algorithm value uct", "newgame yucata start=0 players 3 seat 0", f"position view {s.view(0).notation()}")
    assert answer(engine, out, "go iterations 30")[-1].startswith("bestmove ")


@pytest.mark.parametrize("handshake", ["kgi", f"newgame {GAME} players 2 seat 0"])
def test_a_new_handshake_or_game_leaves_ugi_mode(handshake):
    s = opening(seed=2)
    seat = 1 - s.current_player
    engine, out = session("ugi", "position startpos", handshake, f"newgame {GAME} players 2 seat {seat}", f"position state {s.notation()}")
    assert not engine.ugi and not engine.sees_all
    view = answer(engine, out, "query view")
    assert view == [f"response {s.view(seat).notation()}"]
    board = "\n".join(answer(engine, out, "d"))
    assert "?" in board  # the opponent's hand is hidden again
    move = s.legal_moves()[0]
    assert answer(engine, out, f"observe {move}") == []  # an ordinary observation of the seat
    assert answer(engine, out, "observe ?") == []


def test_the_final_info_block_names_what_it_counts():
    engine, out, s = j4fc_session("setoption name Seed value 4")
    reply = answer(engine, out, "go iterations 3000")
    words = reply[0].split()
    assert words[0] == "info" and words[1::2] == ["iterations", "time", "ips", "nodes", "value"], reply[0]
    counts = dict(zip(words[1::2], words[2::2]))
    assert int(counts["iterations"]) == 3000 and int(counts["nodes"]) >= 1
    if int(counts["time"]) >= 20:  # ips is iterations per second of the reported time
        assert int(counts["ips"]) == pytest.approx(3000 * 1000 / int(counts["time"]), rel=0.05)
    moves = [line.split() for line in reply[1:-1]]
    assert all(m[:2] == ["info", "multipv"] for m in moves) and sum(int(m[6]) for m in moves) <= 3000
    assert moves[0][4] == reply[-1].split()[1]  # the most visited move is the one played


# -- the engine is a thin translator: every go is its SearchBot's search ---------------------------


def expected_report(result: kibitz.SearchResult) -> list[str]:
    """The lines a go prints for ``result``, but the first line's time and speed."""
    lines = [f"info multipv {rank} move {st.move} visits {st.visits} value {st.mean_reward:.4f}" for rank, st in enumerate(result.stats[:5], 1)]
    return [f"iterations {result.iterations} nodes {result.nodes} value {result.root_value:.4f}", *lines, f"bestmove {result.move}"]


def report_of(reply: list[str]) -> list[str]:
    words = reply[0].split()
    return [" ".join(words[1:3] + words[7:]), *reply[1:]]


def test_a_go_searches_as_a_search_bot_with_the_same_seed_and_budget():
    """Two gos of one game through the protocol, and the same two decisions of a SearchBot with the
    Seed option as its seed and the go line's budget: the same moves and statistics (the second
    go, like the bot's second decision, draws the next seed)."""
    s = opening(seed=6)
    seat = s.current_player
    engine, out = session("setoption name Seed value 11", f"newgame {GAME} players 2 seat {seat}", f"position view {s.view(seat).notation()}")
    bot = SearchBot(SearchParams(seed=11))
    for _ in range(2):
        reply = searched(engine, out, "go iterations 1500")
        result = bot.search(s.view(seat), params=bot.params.with_(iterations=1500))
        assert report_of(reply) == expected_report(result)
        assert engine.bot.last_result is not None and replace(engine.bot.last_result, seconds=0) == replace(result, seconds=0)


def test_with_the_adaptive_model_the_engine_learns_from_observe_lines_as_the_bot_from_observed_moves():
    game = kibitz.Game(GAME, players=3)
    s = game.new_initial_state(seed=4)
    seat = 2
    params = SearchParams(iterations=300, seed=8, opponent_model="adaptive")
    engine, out = session("setoption name OpponentModel value adaptive", "setoption name Iterations value 300", "setoption name Seed value 8",
                          f"newgame {GAME} players 3 seat {seat}", f"position view {s.view(seat).notation()}")
    bot = SearchBot(params)
    rng = random.Random(4)
    while True:
        if s.current_player == seat and len(s.legal_actions()) > 1 and bot.opponents is not None:
            break
        action = s.sample_chance(rng.getrandbits(63)) if s.is_chance() else rng.choice(s.legal_actions())
        seen = s.observation_text(seat, action)
        assert searched(engine, out, f"observe {seen}") == []
        if s.current_player >= 0:
            bot.observe_move(s.view(seat), s.current_player, seen, seat)
        s.apply(action)
    reply = searched(engine, out, "go")
    result = bot.search(s.view(seat))
    assert engine.bot.opponents is not None and engine.bot.opponents.shares() == bot.opponents.shares()
    assert report_of(reply) == expected_report(result)


# -- simultaneous nodes: a go per choosing seat (docs/protocol.md §4, §15) ----------------------


def yak_sunrise(cards: str = "-,-,-") -> kibitz.State:
    """A 3-player Yak Sunrise (baby-yak holder 0) with the `cards` field given (`-`: still choosing)."""
    text = kibitz.Game("yak", players=3).new_initial_state(seed=3).notation().replace("cards=-,-,-", f"cards={cards}")
    return kibitz.Game("yak", players=3).state_from_notation(text)


def searched(engine: Engine, out: list[str], *lines: str) -> list[str]:
    """What the in-process engine prints for `lines`, the last a go, once its search is over."""
    start = len(out)
    for line in lines:
        engine.handle(line)
    engine.wait()
    return out[start:]


def test_each_choosing_seat_gets_its_own_go_at_a_simultaneous_node_and_sees_only_its_own_choice():
    s = yak_sunrise()
    engine, out = session("setoption name Seed value 5", "newgame yak players 3 seat 1", f"position view {s.view(1).notation()}")
    assert searched(engine, out, "query turn", "legal") == ["response seats 0 1 2", "legal choose build choose restock choose market"]
    reply = searched(engine, out, "go iterations 400")
    assert reply[-1] in {"bestmove choose build", "bestmove choose restock", "bestmove choose market"}
    multipv = [line for line in reply if line.startswith("info multipv")]
    assert len(multipv) == 3 and all(" probability " in line for line in multipv)
    assert sum(float(line.split(" probability ")[1]) for line in multipv) == pytest.approx(1.0, abs=2e-4)
    # the joint move as seat 1 saw it: its own card, the others' as ?, and the first card revealed
    joint = {0: "choose build", 1: reply[-1][len("bestmove ") :], 2: "choose restock"}
    seen = s.joint_observation_text(1, joint)
    assert seen.startswith("? | choose ") and seen.endswith("| ?; reveal 0 build")
    assert searched(engine, out, f"observe {seen}", "query turn") == ["response seat 0"]
    s.apply_joint(joint)
    assert searched(engine, out, "query view") == [f"response {s.view(1).notation()}"]


def test_a_go_in_the_middle_of_a_recorded_sunrise_searches_the_round_s_start_and_refuses_a_seat_that_has_chosen():
    replies = []
    for card in ("build", "restock", "market"):  # seat 0 chose first, in secret: seat 1's answer does not depend on it
        engine, out = session("setoption name Seed value 5", "newgame yak players 3 seat 1")
        replies.append(searched(engine, out, f"position view {yak_sunrise(f'{card},-,-').view(1).notation()}", "go iterations 400"))
    assert [r[1:] for r in replies] == [replies[0][1:]] * 3  # every line but the first, which has the time
    engine, out = session("newgame yak players 3 seat 1", f"position view {yak_sunrise('-,market,-').view(1).notation()}")
    assert searched(engine, out, "go iterations 10") == ["info string error: go: it is not seat 1's decision (to move: seats 0 2)"]


def test_with_see_all_a_joint_move_is_observed_as_every_choice_in_choosing_order():
    s = yak_sunrise()
    engine, out = session("setoption name SeeAll value true", "newgame yak players 3 seat 2", f"position state {s.notation()}")
    bad = searched(engine, out, "observe choose build | choose market")
    assert bad == ["info string error: observe: a joint move here has 3 choices (seats 0 1 2) joined by '|', got 'choose build | choose market'"]
    searched(engine, out, "observe choose build | choose market | choose build")
    s.apply_joint({0: "choose build", 1: "choose market", 2: "choose build"})
    assert engine.position == s


# -- difficulty levels: Level, LimitStrength and Elo (docs/levels.md) ----------------------------


def test_the_level_options_are_announced_with_their_ranges():
    from kibitz import levels

    _, out = session("kgi")
    low, high = levels.rating_range()
    assert f"option name Level type spin default 0 min 0 max {levels.most_levels()}" in out
    assert "option name LimitStrength type check default false" in out
    assert f"option name Elo type spin default {low} min {low} max {high}" in out
    assert low < high


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("setoption name Level value 99", "option Level: '99' is out of range; expected an integer in 0.."),
        ("setoption name Level value -1", "option Level: '-1' is out of range"),
        ("setoption name Level value two", "option Level: 'two' is not an integer"),
        ("setoption name Elo value 100000", "option Elo: '100000' is out of range; expected an integer in "),
        ("setoption name LimitStrength value yes", "option LimitStrength: expected true or false, got 'yes'"),
    ],
)
def test_level_option_values_out_of_range_are_refused_and_change_nothing(line, named):
    engine, out = session()
    before = (engine.level, engine.limit_strength, engine.elo)
    engine.handle(line)
    assert len(out) == 1 and out[0].startswith(f"info string error: {named}"), out
    assert (engine.level, engine.limit_strength, engine.elo) == before


def yucata_session(*lines: str) -> tuple[Engine, list[str], kibitz.State]:
    s = kibitz.Game("yucata", players=2, start=0).new_initial_state(0)
    engine, out = session(*lines, "newgame yucata start=0 players 2 seat 0", f"position view {s.view(0).notation()}")
    return engine, out, s


def test_a_level_plays_its_settings_and_the_go_line_may_only_shorten_its_budget():
    from kibitz import levels

    level = levels.level("yucata", 2, 2)
    options = ("setoption name Level value 2", "setoption name Iterations value 3000", "setoption name Seed value 3")
    engine, out, s = yucata_session(*options)

    def iterations(line: str) -> int:
        reply = answer(engine, out, line)
        assert reply[-1].split()[1] in s.legal_moves()
        return int([words for words in map(str.split, reply) if words[:2] == ["info", "iterations"]][-1][2])

    assert answer(engine, out, "go")[0] == f"info string level {level.name}: {level.summary}; rating {level.rating}"
    assert iterations("go") == iterations("go iterations 100000") == level.search_params.iterations
    assert iterations("go iterations 7") == 7
    assert engine._search_options().seed == 3 and engine._search_options().temperature == level.search_params.temperature
    engine.handle("setoption name Level value 0")
    assert iterations("go") == 3000  # the options again


def test_limit_strength_plays_the_level_whose_rating_is_nearest_to_elo():
    from kibitz import levels

    ladder = [level for level in levels.levels("yucata", 2) if level.rating is not None]
    target = ladder[1]
    assert target.rating is not None
    engine, out, _ = yucata_session("setoption name Level value 1", f"setoption name Elo value {round(target.rating.value) + 5}")
    assert answer(engine, out, "go")[0].startswith("info string level 1 · ")  # Level until LimitStrength is on
    engine.handle("setoption name LimitStrength value true")
    assert answer(engine, out, "go")[0].startswith(f"info string level {target.name}: ")


def test_a_level_the_game_does_not_have_is_refused_at_go_and_the_engine_stays_usable():
    from kibitz import levels

    top, have = levels.most_levels(), len(levels.levels(GAME, 2))
    assert have < top  # Just 4 Fun Colours' ladder is shorter than the longest
    engine, out, s = j4fc_session(f"setoption name Level value {top}")
    refusal = f"info string error: {GAME} with 2 players has levels 1..{have}; there is no level {top}"
    assert answer(engine, out, "go") == [refusal]
    engine.handle("setoption name Level value 1")
    assert answer(engine, out, "go")[-1].split()[1] in s.legal_moves()
