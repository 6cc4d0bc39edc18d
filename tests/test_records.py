"""Game records (kibitz.records): typed reading, the format version, and results files that
resume after a run was killed mid-line."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import pytest

import kibitz
from kibitz.cli import main
from kibitz.match import replay, run_match
from kibitz.records import RECORD_VERSION, GameRecord, TornRecordWarning, read_results

GAME = kibitz.Game("just4fun_colours", players=2)
BOTS = ["random", "greedy"]


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return kibitz.play_game(GAME, BOTS, seed=3)


def record_data(record: GameRecord, **changes) -> str:
    data = json.loads(record.to_json())
    data.update(changes)
    return json.dumps(data)


def test_a_record_names_its_format_version(record):
    assert json.loads(record.to_json())["version"] == RECORD_VERSION == 2
    old = json.loads(record.to_json())
    del old["version"], old["bots_seed"]  # written before versions: read as version 1
    assert GameRecord.from_json(json.dumps(old)) == dataclasses.replace(record, version=1)


@pytest.mark.parametrize(
    "changes,named",
    [
        ({"seed": "x"}, "seed: expected an integer, got 'x'"),
        ({"seed": 1.5}, "seed: expected an integer"),
        ({"seed": True}, "seed: expected an integer"),
        ({"actions": [1, "2"]}, "actions[1]: expected an integer"),
        ({"actions": [2**40]}, "actions[0]: 1099511627776 is out of range"),
        ({"moves": "c4"}, "moves: expected a list"),
        ({"options": {"players": 2}}, "options: expected an object of text values"),
        ({"returns": [1.0]}, "returns: 1 entries for 2 seats"),
        ({"ranks": [1, 0]}, "ranks[1]: 0 is out of range"),
        ({"index": -1}, "index: -1 is out of range"),
        ({"adjudication": {"seat": 5, "label": "x", "reason": "y"}}, "seat 5 does not exist"),
        ({"adjudication": {"seat": 0, "label": "x", "reason": "y", "phase": "later"}}, "phase 'later'"),
        ({"version": 3}, "version: format 3 is not one this kibitz reads (1..2)"),
        ({"bots_seed": -1}, "bots_seed: -1 is out of range"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_a_record_of_the_wrong_shape_is_refused_naming_the_field(record, changes, named):
    with pytest.raises(ValueError, match="not a game record") as error:
        GameRecord.from_json(record_data(record, **changes))
    assert named in str(error.value)


def test_a_missing_field_is_named(record):
    data = json.loads(record.to_json())
    del data["seed"]
    with pytest.raises(ValueError, match="missing field 'seed'"):
        GameRecord.from_json(json.dumps(data))


# -- torn tails --------------------------------------------------------------------------------


def matched(path: Path, games: int) -> kibitz.MatchResult:
    return run_match(GAME, BOTS, games=games, seed=4, processes=1, record_path=str(path))


def test_a_cut_off_last_line_is_set_aside_and_its_game_played_again(tmp_path):
    path = tmp_path / "r.jsonl"
    full = matched(tmp_path / "whole.jsonl", 3)
    lines = (tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    torn = lines[2][: len(lines[2]) // 2]
    path.write_bytes(lines[0] + lines[1] + torn)
    with pytest.warns(TornRecordWarning, match=r"last line was cut off.*r\.jsonl\.torn"):
        resumed = matched(path, 3)
    assert (tmp_path / "r.jsonl.torn").read_bytes() == torn  # kept, not lost
    assert path.read_bytes() == b"".join(lines) and resumed.records == full.records
    assert main(["replay", str(path)]) == 0
    # a second torn tail gets its own copy
    path.write_bytes(lines[0] + lines[1][:10])
    with pytest.warns(TornRecordWarning):
        read_results(str(path), lambda r: None)
    assert (tmp_path / "r.jsonl.torn.1").read_bytes() == lines[1][:10] and path.read_bytes() == lines[0]


def test_a_cut_in_the_middle_of_a_utf8_character_is_a_torn_tail_too(tmp_path, record):
    path = tmp_path / "r.jsonl"
    # kibitz writes ASCII (JSON escapes), but another tool may write UTF-8 itself
    line = json.dumps(dataclasses.asdict(dataclasses.replace(record, index=0, specs=["é", "ü"])), ensure_ascii=False).encode()
    cut = line[: line.index("é".encode()) + 1]  # half of the two bytes of é
    path.write_bytes(cut)
    with pytest.warns(TornRecordWarning):
        assert read_results(str(path), lambda r: None).records == {}
    assert path.read_bytes() == b""


def test_a_last_record_without_its_newline_is_kept_and_the_next_one_starts_a_new_line(tmp_path):
    path = tmp_path / "r.jsonl"
    matched(path, 2)
    text = path.read_text()
    path.write_text(text.rstrip("\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing was lost: no warning
        matched(path, 3)
    lines = path.read_text().splitlines()
    assert lines[:2] == text.splitlines() and len(lines) == 3
    assert main(["replay", str(path)]) == 0


def test_a_broken_line_before_the_last_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    matched(path, 2)
    first, second = path.read_text().splitlines()
    path.write_text(first[:20] + "\n" + second + "\n")
    with pytest.raises(kibitz.OptionError, match="r.jsonl line 1: not a game record"):
        matched(path, 2)


def test_a_game_in_the_file_twice_is_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    matched(path, 2)
    first = path.read_text().splitlines()[0]
    path.write_text(path.read_text() + first + "\n")
    with pytest.raises(kibitz.OptionError, match="line 3: game 0 is in the file twice"):
        matched(path, 2)


def test_match_out_resumes_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    argv = ["match", "just4fun_colours", "--bots", "random", "greedy", "--games", "3", "--processes", "1", "--out", str(path), "--json"]
    assert main(argv) == 0 and main(argv) == 0
    records = [GameRecord.from_json(line) for line in path.read_text().splitlines()]
    assert [r.index for r in records] == [0, 1, 2]
    for r in records:
        replay(r)
    first, second = capsys.readouterr().out.split("\n}\n", 1)
    assert json.loads(first + "}") == json.loads(second)  # the resumed run reports the same match
