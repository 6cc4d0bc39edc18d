"""Tests of the kibitz command line (kibitz.cli.main), run in-process with captured output."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kibitz
from kibitz.cli import main
from kibitz.records import GameRecord

GAME = "just4fun_colours"
FIELDS = [f"{column}{row}" for column in "abcdef" for row in range(1, 7)]


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # rich sizes tables to COLUMNS when output is not a terminal; wide enough for whole labels
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture(scope="module")
def records_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    argv = ["match", GAME, "--bots", "random", "greedy", "--games", "4", "--seed", "2", "--processes", "1"]
    assert main([*argv, "--out", str(path)]) == 0
    return path


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    assert "usage: kibitz" in out
    assert all(command in out for command in ("games", "play", "match", "replay", "bench"))


def test_games_lists_games_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert f"{GAME}  (2-4 players)" in out
    assert "Just 4 Fun Colours" in out
    assert re.search(r"^\s+line\s+line length", out, re.MULTILINE)
    assert re.search(r"^\s+players\s+number of players", out, re.MULTILINE)
    # a game's rule constants, the reconstructed ones marked
    assert re.search(r"^\s+\[R\] GROUP_POINTS\s+2, 4, 7, 11, 16, 22 .*\(R\)$", out, re.MULTILINE)
    assert re.search(r"^\s{8}yurt limit\s+8\s+\(C\)$", out, re.MULTILINE)
    # the rollout policy's weights, as bot specs and kibitz tune name them, with their ranges
    block = next(w for w in kibitz.Game(GAME).policy_weights if w.name == "block")
    assert re.search(rf"^\s+policy\.block\s+{block.default:g} in {block.low:g}\.\.{block.high:g}\s+opponents", out, re.MULTILINE)
    # the research metadata (docs/research.md)
    assert "sequential, perfect information, no chance after setup; action ids < 7; at most 77 decisions by default" in out
    assert "action ids < 381; no length bound by default" in out


def test_a_human_at_a_simultaneous_node_sees_only_its_own_choice(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["choose market", "take meat milk", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "yak", "--players", "2", "--bots", "random", "--human", "1", "--seed", "4"]) == 1
    out = capsys.readouterr().out
    assert "legal moves: choose build choose restock choose market" in out
    assert re.search(r"seats \d, \d choose at once: (\? \| choose market|choose market \| \?); reveal \d \w+", out)


def test_match_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", GAME, "--bots", "ismcts:iterations=50", "random", "--games", "2", "--processes", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ismcts:iterations=50" in out and "random" in out
    assert "2 games, seed 0" in out


def test_match_json_and_records(records_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", GAME, "--bots", "random", "greedy", "--games", "4", "--seed", "2", "--processes", "1", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4 and data["seed"] == 2
    assert [bot["label"] for bot in data["bots"]] == ["random", "greedy"]
    assert sum(bot["win_share"] for bot in data["bots"]) == pytest.approx(4.0)
    records = [GameRecord.from_json(line) for line in records_file.read_text().splitlines()]
    assert len(records) == 4
    greedy_won = [
        record.returns[seat] > 0 for record in records for seat, spec in enumerate(record.specs) if spec == "greedy"
    ]
    assert data["bots"][1]["wins"] + data["bots"][1]["shared_wins"] == sum(greedy_won)


def test_match_options_reach_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", GAME, "--bots", "random", "greedy", "--games", "2", "--processes", "1", "--json"]
    assert main([*argv, "--players", "3", "--option", "line=5"]) == 0
    assert json.loads(capsys.readouterr().out)["options"] == {"players": "3", "line": "5"}


def test_replay_verifies_every_record(records_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(records_file)]) == 0
    out = capsys.readouterr().out
    assert [int(n) for n in re.findall(r"^record (\d+): verified", out, re.MULTILINE)] == [0, 1, 2, 3]
    assert out.count("winner") == 4


def test_replay_one_record_and_show_it(records_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(records_file), "--index", "2", "--show"]) == 0
    out = capsys.readouterr().out
    assert "record 2: verified" in out and "record 1" not in out
    assert "a   b   c   d   e   f" in out  # the final board


def test_replay_reports_a_tampered_record(
    records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = records_file.read_text().splitlines()
    record = GameRecord.from_json(lines[1])
    tampered = dataclasses.replace(record, scores=[score + 1 for score in record.scores])
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join([lines[0], tampered.to_json()]) + "\n")
    assert main(["replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert "record 0: verified" in captured.out
    assert "record 1: does not replay: replayed scores" in captured.err


def test_replay_rejects_a_file_that_is_not_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text("hello\n")
    assert main(["replay", str(path)]) == 2
    assert "not a game record" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["match", "nosuchgame", "--bots", "random", "greedy"], "nosuchgame"),
        (["play", "nosuchgame"], "nosuchgame"),
        (["match", GAME, "--bots", "random", "nosuchbot:depth=3"], "nosuchbot"),
        (["match", GAME, "--bots", "random", "ismcts:iterations=lots"], "lots"),
        (["play", GAME, "--bots", "random", "nosuchbot"], "nosuchbot"),
        (["match", GAME, "--bots", "random", "greedy", "--option", "line=9"], "line"),
        (["play", GAME, "--bots", "random", "greedy", "--human", "5"], "--human 5"),
        (["replay", "no/such/file.jsonl"], "no/such/file.jsonl"),
    ],
)
def test_bad_input_is_an_error_message(argv: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert named in err
    assert "Traceback" not in err


def test_malformed_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", GAME, "--bots", "random", "greedy", "--option", "line"]) == 2
    assert "expected KEY=VALUE, got 'line'" in capsys.readouterr().err


def test_play_prints_boards_moves_and_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", GAME, "--bots", "random", "greedy", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "seed 4: seat 0 random, seat 1 greedy" in out
    assert re.search(r"^seat [01] \((random|greedy)\) plays [a-f][1-6]$", out, re.MULTILINE)
    assert "  chance: " in out
    assert "seat 1   hand" in out  # no human at the table: the whole state is shown
    assert re.search(r"^(winner|joint winners): seat", out, re.MULTILINE)


def _human_input(lines: list[str]) -> io.StringIO:
    # after the given lines, every field in turn, many times: enough to find a legal move each turn
    return io.StringIO("\n".join(lines + FIELDS * 25) + "\n")


def test_play_as_human_shows_only_your_view(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", _human_input(["zz", "blocked"]))
    assert main(["play", GAME, "--bots", "greedy", "--human", "0", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "error: 'zz' is not a just4fun_colours move" in out
    assert "error: illegal move 'blocked'" in out
    assert "seat 0 (human) plays" in out
    assert "seat 1 (greedy) plays" in out
    # never the full state with its hands: in the rendered views the other hand is hidden
    own_hands = re.findall(r"^seat 0 [ *] hand (\S+)", out, re.MULTILINE)
    other_hands = re.findall(r"^seat 1 [ *] hand (\S+)", out, re.MULTILINE)
    assert own_hands and all(re.fullmatch(r"[ROYGBP]+|-", hand) for hand in own_hands)
    assert other_hands and all(re.fullmatch(r"\?*", hand) for hand in other_hands)
    assert re.search(r"^(winner|joint winners): seat", out, re.MULTILINE)


def test_play_at_a_level_seats_the_level_and_refuses_one_the_game_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "yucata", "--level", "1", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "seed 4: seat 0 level=1, seat 1 level=1" in out and re.search(r"^seat [01] \(level=1\) plays ", out, re.MULTILINE)
    have = len(kibitz.levels.levels(GAME, 2))
    assert have < kibitz.levels.most_levels()  # another game has more levels than Just 4 Fun Colours
    assert main(["play", GAME, "--level", str(have + 1)]) == 2
    assert f"{GAME} with 2 players has levels 1..{have}; there is no level {have + 1}" in capsys.readouterr().err
    assert main(["play", GAME, "--level", "0"]) == 2
    assert "--level: level '0' does not exist" in capsys.readouterr().err
    assert main(["play", "yucata", "--level", "1", "--bots", "greedy"]) == 2
    assert "give --bots or --level, not both" in capsys.readouterr().err


def test_play_as_human_until_input_ends(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", GAME, "--bots", "greedy", "--human", "1", "--seed", "5"]) == 1
    assert "the input ended" in capsys.readouterr().err


def test_bench_without_its_module(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "kibitz.benchmark", None)  # makes the import fail
    assert main(["bench"]) == 1
    assert "bench not available" in capsys.readouterr().err


def test_python_m_kibitz_runs_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "kibitz", "games"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert GAME in done.stdout


def test_a_partnership_win_is_reported_as_the_winning_team(capsys):
    assert main(["play", "canasta_tiles", "--bots", "greedy", "random", "--seed", "1"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    # greedy holds seats 0 and 2, one team; a single winner would be a bug in the wording
    assert last.startswith("winning team: seat 0 (greedy), seat 2 (greedy);") or last.startswith(
        "winning team: seat 1 (random), seat 3 (random);"
    ), last


# -- the human at the prompt ----------------------------------------------------------------------


def test_play_as_human_in_any_case_with_help_hint_and_undo(monkeypatch, capsys):
    upper = [field.upper() for field in FIELDS]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(["help", "undo", "hint", "A1", "B1", "undo", *upper * 25]) + "\n"))
    assert main(["play", GAME, "--bots", "greedy", "--human", "0", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.count("help, hint") >= 2 and "nothing to undo: this is your first move" in out
    hint = re.search(r"^seat 0> hint \(ismcts:iterations=5000\): ([a-f][1-6])$", out, re.MULTILINE)
    assert hint is not None
    assert "seat 0 (human) plays a1" in out and "seat 0 (human) plays b1" in out  # typed A1, B1
    assert "taken back: your last move and everything after it (1 undo)" in out
    legal = re.findall(r"^legal moves: .*$", out, re.MULTILINE)
    assert legal[3] == legal[1]  # after the undo, the decision before B1 again
    # the last screen: the board as seat 0 sees it, the last move, why it ended, the result
    assert re.search(r"seat [01] \((human|greedy)\) plays [a-f][1-6]\ngame over", out)  # the final move (after a prompt, if the human's)
    end = out.split("game over; your view (seat 0):\n")[1]
    assert "a   b   c   d   e   f" in end and "hand ???" in end and "wins" in end
    assert re.search(r"^(winner|joint winners): seat", end, re.MULTILINE)
    assert "just4fun_colours seat=0" not in out  # never the raw view notation


def test_play_as_human_quit(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", GAME, "--bots", "greedy", "--human", "0", "--seed", "5"]) == 1
    assert capsys.readouterr().err.strip() == "game abandoned: you quit"


def test_ctrl_c_at_the_prompt_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupted)
    assert main(["play", GAME, "--bots", "greedy", "--human", "0", "--seed", "5"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"


# -- errors: one line, non-zero exit ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["match", GAME, "--bots", "random", "greedy", "--games", "1", "--processes", "1", "--out", "/tmp"], "Is a directory: /tmp"),
        (["referee", GAME, "--bots", "random", "greedy", "--games", "1", "--results", "/tmp"], "Is a directory: /tmp"),
        (["referee", GAME, "--bots", "engine:kibitz 'engine", "greedy", "--games", "1"], "No closing quotation"),
        (["match", GAME, "--bots", "greedy", "--engine", "kibitz 'engine", "--games", "1"], "No closing quotation"),
        (["replay", "/tmp"], "Is a directory: /tmp"),
    ],
)
def test_files_and_commands_that_cannot_be_used_are_one_error_line(argv, named, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and named in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_closed_output_pipe_is_one_line_and_exit_141(records_file: Path):
    process = subprocess.Popen(
        [sys.executable, "-m", "kibitz", "replay", str(records_file), "--show"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # like `| head -1` that has read its line: every write fails
    err = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert err == "error: the output was closed before everything was written (broken pipe)\n"


def test_version_and_the_bots_in_help(capsys):
    from importlib.metadata import version

    from kibitz.bots import presets

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"kibitz {version('kibitz')}"
    for argv in (["--help"], ["match", "--help"], ["play", "--help"], ["referee", "--help"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert all(name in out for name in ("random", "greedy", "uct", "pimc", "ismcts", "mo_ismcts"))
        assert all(f"preset {name}: " in out for name in presets())
        assert re.search(r"\n +iterations +an integer in 0\.\.1000000000", out)  # aligned to the longest name
