"""Saved formats are versioned (docs/formats.md): what an older kibitz saved reads, a newer
version is refused naming the version it needs, and the old attribute ``View.notation`` works
and warns. The files in tests/data/formats/ were written by the build of 2026-11-29 (commit
a931aa0; tests/data/formats/make_old_files.py says how)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import kibitz
from kibitz.bots import PARAMETER_SET_FORMAT, read_presets
from kibitz.errors import NotationError, OptionError
from kibitz.game import NotationText
from kibitz.match import replay
from kibitz.records import GameRecord

OLD = Path(__file__).parent / "data" / "formats"
OLD_GAMES = ("just4fun_colours", "yucata", "canasta_tiles")
CANASTA_V2_FIELDS = ("tiebreak", "jokers_left", "played")


def old_positions(game: str) -> list[tuple[str, str, str]]:
    """(kind, notation, legal moves there) as the old build wrote them."""
    return [tuple(line.split("\t")) for line in (OLD / f"{game}.txt").read_text().splitlines()]  # type: ignore[misc]


def read(kind: str, text: str) -> kibitz.State:
    game = kibitz.Game.of_notation(text)
    return game.state_from_view(text) if kind == "view" else game.state_from_notation(text)


def written(kind: str, state: kibitz.State, text: str) -> str:
    return state.view(int(kibitz.notation_fields(text)["seat"])).notation() if kind == "view" else state.notation()


def test_the_versions_of_the_notations() -> None:
    assert {g.name: g.notation_version for g in kibitz.games()} == {
        "just4fun_colours": 1, "yucata": 1, "canasta_tiles": 2, "yak": 1, "biased_rps": 1, "goofspiel": 1}
    canasta = kibitz.Game("canasta_tiles").new_initial_state(1)
    assert canasta.notation().endswith(" version=2") and canasta.view(0).notation().endswith(" version=2")
    assert canasta.fields()["version"] == "2"
    assert "version" not in kibitz.Game("yak", players=3).new_initial_state(1).fields()  # version 1 writes none


@pytest.mark.parametrize("game", ["just4fun_colours", "yucata"])
def test_notations_an_older_build_wrote_read_back_exactly(game: str) -> None:
    """Version 1 still: every old text reads, is written again unchanged, and has the legal moves
    the old build listed."""
    for kind, text, legal in old_positions(game):
        state = read(kind, text)
        assert written(kind, state, text) == text
        if legal != "-":
            assert " ".join(state.legal_moves()) == legal


def test_canasta_notations_of_version_1_read_with_the_documented_defaults() -> None:
    """Every Canasta text the old build wrote failed with "missing field 'tiebreak'"; each reads
    now, and written again it is the old text with the version-2 fields at their defaults and
    the version mark."""
    positions = old_positions("canasta_tiles")
    assert len(positions) > 50
    for kind, text, legal in positions:
        assert not any(f" {name}=" in text for name in CANASTA_V2_FIELDS)
        state = read(kind, text)
        again = written(kind, state, text)
        old_fields, new_fields = kibitz.notation_fields(text), kibitz.notation_fields(again)
        assert {k: v for k, v in new_fields.items() if k not in (*CANASTA_V2_FIELDS, "version")} == old_fields
        assert new_fields["version"] == "2" and new_fields["played"] == "-"
        assert new_fields["tiebreak"] == "0"  # these matches never reached a tie at their end
        used = old_fields["jokers_used"].split(".")
        assert new_fields["jokers_left"] == ".".join("0" if u == "1" else "1" for u in used)
        assert read(kind, again) == state  # and the new text reads to the same state
        if legal != "-":
            assert set(state.legal_moves()) >= set(legal.split())  # the rules since added moves (Joker allowance aside), none went


def test_a_version_1_canasta_tie_break_round_reads_as_one() -> None:
    """A round played after the match's end in version 1 was a tie-break: tiebreak defaults to 1
    there, and to 0 otherwise."""
    state = kibitz.Game("canasta_tiles", mode="three_rounds").new_initial_state(3)
    fields = state.fields()
    assert fields["tiebreak"] == "0"
    old = " ".join(w for w in state.notation().split() if w.split("=")[0] not in (*CANASTA_V2_FIELDS, "version"))
    tied = old.replace(f"rounds={fields['rounds']}", "rounds=3").replace(f"totals={fields['totals']}", "totals=150,150")
    assert kibitz.Game("canasta_tiles", mode="three_rounds").state_from_notation(tied).fields()["tiebreak"] == "1"
    assert kibitz.Game("canasta_tiles", mode="three_rounds").state_from_notation(old).fields()["tiebreak"] == "0"


def test_a_notation_newer_than_this_build_is_refused_naming_its_version() -> None:
    state = kibitz.Game("canasta_tiles").new_initial_state(1)
    newer = state.notation().replace("version=2", "version=3")
    with pytest.raises(NotationError, match=r"canasta_tiles notation is version 3: reading it needs a kibitz that reads canasta_tiles notation version 3; this one reads versions 1\.\.2"):
        kibitz.Game("canasta_tiles").state_from_notation(newer)
    j4fc = kibitz.Game("just4fun_colours", players=2).new_initial_state(1)
    with pytest.raises(NotationError, match=r"just4fun_colours notation is version 2: .*reads versions 1\.\.1"):
        kibitz.Game("just4fun_colours", players=2).state_from_view(j4fc.view(0).notation() + " version=2")
    assert kibitz.Game("just4fun_colours", players=2).state_from_notation(j4fc.notation() + " version=1") == j4fc
    for bad, message in (("version=x", "version: expected a notation version 1..2, got 'x'"), ("version=0", "got '0'"),
                         ("version=2 version=2", "field 'version' given twice")):
        with pytest.raises(NotationError, match=message):
            kibitz.Game("canasta_tiles").state_from_notation(state.notation().replace("version=2", bad))


def test_the_protocol_reads_an_old_canasta_view_and_refuses_a_newer_one() -> None:
    from kibitz.protocol import Engine

    kind, text, _ = next(p for p in old_positions("canasta_tiles") if p[0] == "view")
    seat = kibitz.notation_fields(text)["seat"]
    out: list[str] = []
    engine = Engine(out.append)
    engine.handle(f"newgame canasta_tiles players 4 seat {seat}")
    engine.handle(f"position view {text}")
    engine.handle("query view")
    assert out == [f"response {read(kind, text).view(int(seat)).notation()}"]
    engine.handle(f"position view {text} version=9")
    assert out[-1].startswith("info string error: this canasta_tiles notation is version 9")


@pytest.mark.parametrize("game", OLD_GAMES)
def test_records_an_older_build_wrote_read_and_say_where_they_stop(game: str) -> None:
    """Records of the old build (format 1, no version field) read. Just 4 Fun Colours and
    Yucata' replay to the same results; tile Canasta's rules changed on 2026-12-01, and its
    record stops with an error naming the move the rules now refuse."""
    records = [GameRecord.from_json(line) for line in (OLD / f"{game}.jsonl").read_text().splitlines()]
    assert [r.version for r in records] == [1, 1]
    for record in records:
        if game == "canasta_tiles":
            with pytest.raises(kibitz.IllegalMoveError, match="illegal move"):
                replay(record)
        else:
            assert replay(record).returns() == record.returns


def test_a_record_of_a_newer_format_names_the_format_it_needs() -> None:
    line = (OLD / "yucata.jsonl").read_text().splitlines()[0]
    with pytest.raises(ValueError, match=r"format 3 is not one this kibitz reads \(1\.\.2\); reading it needs a kibitz that reads record format 3"):
        GameRecord.from_json(json.dumps({**json.loads(line), "version": 3}))


def test_presets_and_parameter_sets_name_their_format(tmp_path: Path) -> None:
    shipped = json.loads((Path(__file__).parents[1] / "bots" / "default.json").read_text())
    assert shipped["format"] == 1 and "format" not in kibitz.bots.presets()
    old = tmp_path / "old.json"
    old.write_text(json.dumps({k: v for k, v in shipped.items() if k != "format"}))  # before presets files named a format
    assert read_presets(old) == {k: v for k, v in shipped.items() if k != "format"}
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**shipped, "format": 2}))
    with pytest.raises(OptionError, match=r"presets file .*newer.json: format 2 is newer than this kibitz reads \(formats 1\.\.1\)"):
        read_presets(newer)
    folder = tmp_path / "sets"
    path = kibitz.bots.write_parameter_set(folder, "yak", "mine", "ismcts", {"iterations": 50}, {}, {})
    assert json.loads(path.read_text())["format"] == PARAMETER_SET_FORMAT == 1
    path.write_text(json.dumps({**json.loads(path.read_text()), "format": 2}))
    with pytest.raises(OptionError, match=r"parameter set .*mine.json: format 2 is newer than this kibitz reads"):
        kibitz.bots.write_parameter_set(folder, "yak", "mine", "ismcts", {"iterations": 50}, {}, {})


def test_view_notation_read_as_the_old_attribute_works_and_warns() -> None:
    """``view.notation`` was the text until 2026-12-01: code written so still works, and is told
    to call it; calling it warns about nothing."""
    game = kibitz.Game("just4fun_colours", players=2)
    view = game.new_initial_state(1).view(0)
    text = view._text
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert view.notation() == text and type(view.notation()) is str
        assert isinstance(view.notation, NotationText)
        assert game.state_from_view(view.notation).view(0).notation() == text  # passed where text is taken
        assert json.dumps(view.notation) == json.dumps(text)
    old_uses = [
        lambda n: n == text,
        lambda n: n.split()[0] == "just4fun_colours",
        lambda n: "seat=0" in n,
        lambda n: f"position view {n}" == f"position view {text}",
        lambda n: "position view " + n == "position view " + text,
        lambda n: n + "" == text,
        lambda n: str(n) == text and type(str(n)) is str,
        lambda n: len(n) == len(text),
        lambda n: n.startswith("just4fun_colours"),
        lambda n: {n: 1}[text] == 1,
        lambda n: n[:16] == "just4fun_colours",
    ]
    for use in old_uses:
        with pytest.warns(DeprecationWarning, match=r"View.notation is a method since 2026-12-01: call view.notation\(\)") as caught:
            assert use(view.notation)
        assert caught[0].filename == __file__  # the warning points at the caller's line
