"""Game records and the results files that hold them, one JSON object per line.

A record is one finished (or forfeited) game: enough to replay it exactly
(:func:`kibitz.match.replay`) and to score it. Reading one checks every field's type, so a
record with ``"seed": "x"`` is refused instead of replaying another deal. A results file is
appended to as games end; :func:`read_results` reads it back to resume, and sets aside a
last line that a killed run left cut off (the torn tail) instead of failing on it.

>>> record = GameRecord("yucata", {"players": "2"}, 7, ["greedy", "random"], [], [], [1.0, 0.0], [3.0, 1.0], [1, 2])
>>> GameRecord.from_json(record.to_json()) == record
True
>>> GameRecord.from_json(record.to_json().replace('"seed":7', '"seed":"x"'))
Traceback (most recent call last):
...
ValueError: not a game record (seed: expected an integer, got 'x'): ...
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from typing import Any

from kibitz.errors import OptionError, shown

RECORD_VERSION = 2
"""The format written. Version 2 added ``bots_seed`` (duplicate deals seed the deal and the
bots apart) and draws the k-th chance outcome from the k-th chance seed. Older records are read
(a record without ``version`` is version 1) and replay, but are not games of a version-2 plan
(see :meth:`kibitz.match.MatchPlan.mismatch`); a newer version than this is refused."""

ADJUDICATION_PHASES = ("start", "decision")
"""When a seat forfeited: at start-up (its engine did not start or answer the handshake,
before any action) or at one of its decisions (the record stops there)."""

ACTION_LIMIT = 1 << 32  # action ids are 32-bit


class TornRecordWarning(UserWarning):
    """A results file ended in a cut-off line, which was set aside (see :func:`read_results`)."""


@dataclass(frozen=True)
class GameRecord:
    """One game: enough to replay it exactly and to score it.

    ``actions`` holds every applied action id in order, decisions and chance outcomes alike;
    ``moves`` the same as text. Both are empty when the game was played with ``record=False``.
    ``specs`` names the player of each seat (its label in a match); ``returns``, ``scores``
    and ``ranks`` are per seat, as :class:`kibitz.State` gives them. ``index`` is the game's
    number in its match or tournament. ``adjudication``, when a seat forfeited, holds
    ``seat``, ``label``, ``reason`` and ``phase`` (see :data:`ADJUDICATION_PHASES`): the game
    stops there, the forfeiting team gets return 0 and the last rank, and scores are 0.
    ``bots_seed``, when set, is the seed the bots' seeds were derived from (a duplicate deal
    replays one ``seed`` with fresh bots); None means ``seed``. ``version`` is the record
    format (:data:`RECORD_VERSION`).
    """

    game: str
    options: dict[str, str]
    seed: int
    specs: list[str]
    actions: list[int]
    moves: list[str]
    returns: list[float]
    scores: list[float]
    ranks: list[int]
    index: int | None = None
    adjudication: dict[str, Any] | None = None
    bots_seed: int | None = None
    version: int = RECORD_VERSION

    def to_json(self) -> str:
        """The record as one line of JSON."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> GameRecord:
        """Reads a line written by :meth:`to_json`; raises ValueError naming the first field
        that is missing or of the wrong type, or for anything that is not a record."""
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"not a game record ({err}): {shown(line.strip(), 80)}") from None
        return cls.from_dict(data, line)

    @classmethod
    def from_dict(cls, data: Any, line: str = "") -> GameRecord:
        """A record from plain data (as :func:`json.loads` gives it), every field checked."""
        try:
            return cls(**_checked(data))
        except ValueError as err:
            raise ValueError(f"not a game record ({err}): {shown(line.strip() or repr(data), 80)}") from None


def _checked(data: Any) -> dict[str, Any]:
    """``data`` as GameRecord fields; raises ValueError naming the first bad field."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    names = [f.name for f in fields(GameRecord)]
    unknown = [key for key in data if key not in names]
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}")
    missing = [name for name in names[:9] if name not in data]
    if missing:
        raise ValueError(f"missing field {missing[0]!r}")
    values = {name: FIELD_CHECKS[name](name, data[name]) for name in names if name in data}
    version = values.setdefault("version", 1)  # written before records named their version
    if version < 1 or version > RECORD_VERSION:
        newer = f"; reading it needs a kibitz that reads record format {version} (a newer one)" if version > RECORD_VERSION else ""
        raise ValueError(f"version: format {version} is not one this kibitz reads (1..{RECORD_VERSION}){newer}")
    players = len(values["specs"])
    for name in ("returns", "scores", "ranks"):
        if len(values[name]) != players:
            raise ValueError(f"{name}: {len(values[name])} entries for {players} seats")
    if len(values["moves"]) != len(values["actions"]):
        raise ValueError(f"moves: {len(values['moves'])} moves for {len(values['actions'])} actions")
    adjudication = values.get("adjudication")
    if adjudication is not None and not 0 <= adjudication["seat"] < players:
        raise ValueError(f"adjudication: seat {adjudication['seat']} does not exist; seats are 0..{players - 1}")
    return values


def _integer(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name}: expected an integer, got {shown(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name}: {value} is out of range {low}..{'' if high is None else high}")
    return value


def _number(name: str, value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"{name}: expected a number, got {shown(value)}")
    return value


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected text, got {shown(value)}")
    return value


def _list(item: Callable[[str, Any], Any]) -> Callable[[str, Any], list[Any]]:
    def check(name: str, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise ValueError(f"{name}: expected a list, got {shown(value)}")
        return [item(f"{name}[{i}]", v) for i, v in enumerate(value)]

    return check


def _options(name: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{name}: expected an object of text values, got {shown(value)}")
    return value


def _adjudication(name: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not {"seat", "label", "reason"} <= set(value) <= {"seat", "label", "reason", "phase"}:
        raise ValueError(f"{name}: expected null or an object with seat, label, reason and phase, got {shown(value)}")
    phase = value.get("phase", "decision")  # records before phases were written all stopped at a decision
    if phase not in ADJUDICATION_PHASES:
        raise ValueError(f"{name}: phase {shown(phase)} is not one of {', '.join(ADJUDICATION_PHASES)}")
    return {
        "seat": _integer(f"{name}.seat", value["seat"], 0),
        "label": _text(f"{name}.label", value["label"]),
        "reason": _text(f"{name}.reason", value["reason"]),
        "phase": phase,
    }


FIELD_CHECKS: dict[str, Callable[[str, Any], Any]] = {
    "game": _text,
    "options": _options,
    "seed": _integer,
    "specs": _list(_text),
    "actions": _list(lambda name, v: _integer(name, v, 0, ACTION_LIMIT - 1)),
    "moves": _list(_text),
    "returns": _list(_number),
    "scores": _list(_number),
    "ranks": _list(lambda name, v: _integer(name, v, 1)),
    "index": lambda name, v: None if v is None else _integer(name, v, 0),
    "adjudication": _adjudication,
    "bots_seed": lambda name, v: None if v is None else _integer(name, v, 0),
    "version": lambda name, v: _integer(name, v),
}


def read_records(lines: Iterable[str]) -> Iterator[GameRecord]:
    """The records of a JSON-lines file's lines, skipping blank lines."""
    for line in lines:
        if line.strip():
            yield GameRecord.from_json(line)


# -- results files -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Resumed:
    """What a results file already holds: the records by game index, and where a torn last
    line was set aside (None if the file ended cleanly)."""

    records: dict[int, GameRecord]
    torn_copy: str | None = None


def read_results(path: str, belongs: Callable[[GameRecord], str | None], what: str = "match") -> Resumed:
    """The games already in the results file ``path`` (none if it does not exist), to resume.

    ``belongs(record)`` says why a record is not a game of this match (None if it is); such a
    record, or a line that is not a record, raises OptionError naming the line. A last line
    without its newline is what a killed run leaves: a complete record gets its newline back;
    a cut-off one is moved to ``<path>.torn`` (``.torn.1`` ... if that exists) and its game is
    played again.
    """
    if not os.path.exists(path):
        return Resumed({})
    with open(path, "rb") as file:
        data = file.read()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with its newline
    torn_copy = None
    if tail.strip():
        try:
            GameRecord.from_json(tail.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            torn_copy = _set_aside(path, tail, len(data) - len(tail))
            warnings.warn(
                TornRecordWarning(f"{path}: its last line was cut off (a run stopped while writing it); set aside in {torn_copy}, its game is played again"),
                stacklevel=2,
            )
        else:
            lines.append(tail)
            with open(path, "ab") as file:
                file.write(b"\n")
    records: dict[int, GameRecord] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = GameRecord.from_json(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as err:
            raise OptionError(f"{path} line {number}: {err}") from None
        reason = belongs(record)
        if reason is not None:
            raise OptionError(
                f"{path} line {number} is not a game of this {what} ({reason}; game, options, players, seed and number of games must match)"
            )
        if record.index in records:
            raise OptionError(f"{path} line {number}: game {record.index} is in the file twice")
        assert record.index is not None  # belongs() refuses a record without its index
        records[record.index] = record
    return Resumed(records, torn_copy)


def _set_aside(path: str, tail: bytes, keep: int) -> str:
    """Copies the torn ``tail`` to a new ``<path>.torn[.n]`` and cuts the file to ``keep`` bytes."""
    copy, n = f"{path}.torn", 0
    while os.path.exists(copy):
        n += 1
        copy = f"{path}.torn.{n}"
    with open(copy, "wb") as file:
        file.write(tail)
    os.truncate(path, keep)
    return copy


@contextmanager
def appender(path: str | None) -> Iterator[Callable[[GameRecord], None]]:
    """A function that appends a record to the results file (one line, flushed at once so
    that a killed run loses at most the line being written), or does nothing without a path."""
    if path is None:
        yield lambda record: None
        return
    with open(path, "a", encoding="utf-8") as file:

        def append(record: GameRecord) -> None:
            file.write(record.to_json() + "\n")
            file.flush()

        yield append
