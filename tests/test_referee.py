"""The referee (kibitz.referee, ``kibitz referee``, ``kibitz match --engine``) with real
engine subprocesses: full games for every game, adjudication of broken engines, resuming."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest

import kibitz
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.game import TERMINAL
from kibitz.match import replay
from kibitz.records import GameRecord
from kibitz.referee import Tournament, forfeit_results

ENGINE = f"engine:{sys.executable} -m kibitz engine"
BROKEN = str(Path(__file__).with_name("broken_engine.py"))
FAST = {"movetime_ms": 2000, "margin_ms": 3000, "iterations": 200}  # generous time, small searches


def broken(fault: str, decision: int = 1) -> str:
    return f"engine:{sys.executable} {BROKEN} {fault} {decision}"


@pytest.mark.parametrize("info", kibitz.games(), ids=lambda info: info.name)
@pytest.mark.parametrize("incremental", [False, True], ids=["position", "observe"])
def test_full_game_between_two_engine_processes(info, incremental):
    game = kibitz.Game(info.name, players=info.min_players)
    result = Tournament(game, [ENGINE, ENGINE], games=1, seed=5, incremental=incremental, **FAST).run()
    (record,) = result.records
    assert record.adjudication is None, record.adjudication
    final = replay(record)  # every move was legal and the recorded result is the game's
    per_team = {final.team(seat): record.returns[seat] for seat in range(final.num_players)}  # partners share one result
    assert final.is_terminal() and sum(per_team.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("info", [info for info in kibitz.games() if info.simultaneous], ids=lambda info: info.name)
def test_builtin_bots_play_simultaneous_games_under_the_referee(info):
    game = kibitz.Game(info.name, players=info.max_players)
    bots = ["greedy", "random", "greedy", "random"][: game.num_players]
    result = Tournament(game, bots, games=2, seed=6).run()
    assert [r.adjudication for r in result.records] == [None, None]
    for record in result.records:
        assert replay(record).returns() == record.returns


@pytest.mark.parametrize("incremental", [False, True], ids=["position", "observe"])
def test_engines_play_four_player_yak_with_a_go_per_choosing_seat_at_each_sunrise(incremental):
    game = kibitz.Game("yak", players=4)
    fast = {**FAST, "iterations": 60}
    result = Tournament(game, [ENGINE, "greedy", ENGINE, "random"], games=1, seed=3, incremental=incremental, **fast).run()
    (record,) = result.records
    assert record.adjudication is None, record.adjudication
    assert replay(record).returns() == record.returns


def test_engine_plays_against_a_builtin_bot_with_every_seat_seen_only_through_its_view():
    game = kibitz.Game("just4fun_colours", players=3)
    result = Tournament(game, [ENGINE, "greedy", "random"], games=3, seed=2, incremental=True, **FAST).run()
    assert [r.adjudication for r in result.records] == [None] * 3
    assert [b.games for b in result.bots] == [3, 3, 3]
    for record in result.records:
        replay(record)


@pytest.mark.parametrize(
    "fault, reason",
    [
        ("crash", "crashed (exit code 3); last stderr line: 'broken_engine: crashing on purpose'"),
        ("closeout", "closed its output (the process still runs)"),
        ("quit", "exited (exit code 0) before the game was over"),
        ("hang", "no bestmove within 1500 ms"),
        ("illegal", "illegal move 'blocked'"),
        ("garbage", "sent a line that is not protocol: 'hello referee'"),
        ("nonsense", "unreadable move 'z9'"),
        ("malformed", "malformed reply 'bestmove'"),
        ("error", "engine reported: error: no idea"),
    ],
)
def test_a_broken_engine_forfeits_and_the_tournament_goes_on(fault, reason, tmp_path):
    game = kibitz.Game("just4fun_colours", players=2)
    results = tmp_path / "results.jsonl"
    t = Tournament(
        game, [broken(fault, decision=2), "greedy"], games=2, seed=3, movetime_ms=500, margin_ms=1000, results_path=str(results)
    )
    result = t.run()
    assert len(result.records) == 2
    for record in result.records:
        seat = record.specs.index(t.labels[0])
        assert record.adjudication is not None
        assert record.adjudication["seat"] == seat and record.adjudication["reason"].startswith(reason)
        assert record.returns[seat] == 0 and record.returns[1 - seat] == 1
        assert record.ranks[seat] == 2 and record.ranks[1 - seat] == 1
        # the record stops at the forfeited decision, the engine's second: it replays up to there
        state = replay(record)
        assert not state.is_terminal() and state.current_player == seat
    assert [b.faults for b in result.bots] == [2, 0]
    assert [b.wins for b in result.bots] == [0, 2]
    lines = results.read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == [0, 1]


def test_bytes_that_are_not_utf8_forfeit_at_once():
    game = kibitz.Game("just4fun_colours", players=2)
    # a margin of a minute: a reader thread killed by the bytes would show as a timeout
    t = Tournament(game, [broken("badbytes"), "greedy"], games=1, seed=3, movetime_ms=500, margin_ms=60_000)
    (record,) = t.run().records
    assert record.adjudication is not None
    assert record.adjudication["reason"] == "sent bytes that are not UTF-8: b'bestmove \\xff\\xfe'"
    replay(record)


def test_engines_closed_after_their_games_leave_no_open_pipes():
    import gc

    game = kibitz.Game("just4fun_colours", players=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Tournament(game, [ENGINE, broken("crash", decision=1)], games=2, seed=1, **FAST).run()
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_faulty_engine_is_restarted_for_the_next_game():
    game = kibitz.Game("just4fun_colours", players=2)
    result = Tournament(game, [broken("crash", decision=1), ENGINE], games=2, seed=1, **FAST).run()
    # a fresh process crashes again at its first decision: both games are forfeits, not start failures
    assert all(r.adjudication["reason"].startswith("crashed (exit code 3)") for r in result.records)


@pytest.mark.parametrize(
    "player,reason",
    [("engine:/nonexistent/engine-binary", "cannot start '/nonexistent/engine-binary'"), (broken("startup"), "crashed (exit code 4)")],
    ids=["no binary", "no kgiok"],
)
def test_an_engine_that_cannot_start_forfeits_each_game_and_the_records_replay(player, reason, tmp_path):
    game = kibitz.Game("just4fun_colours", players=2)
    path = tmp_path / "r.jsonl"
    result = Tournament(game, [player, "greedy"], games=4, seed=1, results_path=str(path), **FAST).run()
    assert [b.faults for b in result.bots] == [4, 0]
    for record in result.records:
        seat = record.specs.index(player)
        assert record.adjudication == {"seat": seat, "label": player, "reason": record.adjudication["reason"], "phase": "start"}
        assert record.adjudication["reason"].startswith(reason) and record.actions == []
        assert record.returns[seat] == 0 and replay(record).current_player != TERMINAL
    # every start-up forfeit replays, also one of a seat that was not the first to move
    assert any(replay(r).current_player != r.adjudication["seat"] for r in result.records)
    assert main(["replay", str(path)]) == 0


def test_an_interrupted_tournament_resumes_without_replaying_finished_games(tmp_path):
    game = kibitz.Game("just4fun_colours", players=2)
    path = tmp_path / "results.jsonl"
    first = Tournament(game, [ENGINE, "greedy"], games=2, seed=9, results_path=str(path), **FAST).run()
    written = path.read_text().splitlines()
    # "interrupted" after two of four games: the resumed run plays games 2 and 3 only
    resumed = Tournament(game, [ENGINE, "greedy"], games=4, seed=9, results_path=str(path), **FAST).run()
    lines = path.read_text().splitlines()
    assert lines[:2] == written and [json.loads(line)["index"] for line in lines] == [0, 1, 2, 3]
    assert resumed.records[:2] == first.records
    assert sum(b.games for b in resumed.bots) == 8
    # nothing left to play: the file is not touched
    Tournament(game, [ENGINE, "greedy"], games=4, seed=9, results_path=str(path), **FAST).run()
    assert path.read_text().splitlines() == lines


def test_a_tournament_resumes_after_a_torn_last_line(tmp_path):
    game = kibitz.Game("just4fun_colours", players=2)
    path = tmp_path / "results.jsonl"
    whole = Tournament(game, ["random", "greedy"], games=3, seed=9, results_path=str(tmp_path / "whole.jsonl")).run()
    lines = (tmp_path / "whole.jsonl").read_text().splitlines(keepends=True)
    for kept in (lines[0] + lines[1][:-1], lines[0] + lines[1] + lines[2][:30]):  # newline lost / line cut off
        path.write_text(kept)
        with warnings.catch_warnings(record=True):
            resumed = Tournament(game, ["random", "greedy"], games=3, seed=9, results_path=str(path)).run()
        assert path.read_text() == "".join(lines) and resumed.records == whole.records
    assert (tmp_path / "results.jsonl.torn").read_text() == lines[2][:30]


def test_a_results_file_of_another_tournament_is_refused(tmp_path):
    game = kibitz.Game("just4fun_colours", players=2)
    path = tmp_path / "results.jsonl"
    Tournament(game, ["random", "greedy"], games=1, seed=9, results_path=str(path)).run()
    with pytest.raises(OptionError, match="line 1 is not a game of this tournament"):
        Tournament(game, ["random", "greedy"], games=1, seed=10, results_path=str(path)).run()


def test_bad_specs_fail_before_any_game():
    game = kibitz.Game("just4fun_colours", players=2)
    with pytest.raises(OptionError, match=r"movetime must be 1\.\.1000000000 ms and the margin 0\.\.1000000000 ms, got 10000000000000"):
        Tournament(game, ["random", ENGINE], games=1, movetime_ms=10**13)
    with pytest.raises(OptionError, match=r"iterations must be 1\.\.1000000000, got 99999999999999999999"):
        Tournament(game, ["random", ENGINE], games=1, iterations=99999999999999999999)
    with pytest.raises(OptionError, match="unknown bot 'nobot'"):
        Tournament(game, ["nobot", ENGINE], games=1)
    with pytest.raises(OptionError, match="an engine needs a command"):
        Tournament(game, ["engine:", "greedy"], games=1)


def test_forfeit_results_give_every_other_seat_a_shared_win():
    state = kibitz.Game("just4fun_colours", players=3).new_initial_state(1)
    assert forfeit_results(state, 1) == ([0.5, 0.0, 0.5], [1, 2, 1])


def test_referee_command_and_match_with_engine(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    args = ["just4fun_colours", "--games", "2", "--seed", "4", "--movetime", "2000", "--iterations", "100", "--json"]
    assert main(["referee", *args, "--bots", ENGINE, "random", "--results", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [b["games"] for b in result["bots"]] == [2, 2]
    assert len(path.read_text().splitlines()) == 2
    assert main(["match", *args, "--bots", "random", "--engine", f"{sys.executable} -m kibitz engine"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [b["label"] for b in result["bots"]] == ["random", ENGINE]
    assert [GameRecord.from_json(line).adjudication for line in path.read_text().splitlines()] == [None, None]


def test_game_options_reach_the_engines():
    # the engines get newgame with the game's options; one they refused would be a forfeit
    game = kibitz.Game("yucata", players=2, layout="random", q="distance", start=1)
    result = Tournament(game, [ENGINE, ENGINE], games=1, seed=2, **FAST).run()
    (record,) = result.records
    assert record.adjudication is None and record.options == {"players": "2", "layout": "random", "q": "distance", "start": "1"}
    assert replay(record).is_terminal()
