"""What a seat of a web table may see, worked out from a finished game's record independently of
the server: every model a browser of that seat may receive, and the strings it must never
receive before the game is over. Shared by tests/test_web_server.py and the browser tests.

- :func:`expected_views`: for every position of the game, the seat's view notation, its legal
  moves there, and the moves as it observed them (``State.observation_text``,
  ``State.joint_observation_text``). A frame's model must equal one of them.
- :func:`secrets`: the parts of the full notation that differ from the seat's view (the other
  seats' hands, the stock ...), as words long enough that finding one in a frame cannot be
  chance. Shorter ones (a Yak Sunrise card) are checked through the moves as the seat saw them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

import kibitz
from kibitz.match import initial_state
from kibitz.records import GameRecord

SECRET_CHARS = 5  # shorter hidden parts ("build", "R") are checked through the moves instead


@dataclass(frozen=True)
class Seen:
    """One position as a seat may see it."""

    notation: str
    legal: tuple[str, ...]
    moves: tuple[tuple[int, str], ...]


def positions(record: GameRecord) -> list[tuple[kibitz.State, list[tuple[int | None, list[str]]]]]:
    """Every position of the game (each chance outcome and decision applied in turn), with the
    entries so far: (mover or None, what each seat saw)."""
    state = initial_state(kibitz.Game(record.game, **record.options), record.seed)
    out = [(state.clone(), [])]
    entries: list[tuple[int | None, list[str]]] = []
    actions = record.actions
    i = 0
    while i < len(actions):
        if state.is_simultaneous():
            seats = state.choosing_seats()
            joint = dict(zip(seats, actions[i : i + len(seats)]))
            seen = [state.joint_observation_text(s, joint).split(kibitz.JOINT_SEPARATOR) for s in range(state.num_players)]
            for k, seat in enumerate(seats):
                entries.append((seat, [parts[k] for parts in seen]))
            state.apply_joint(joint)
            i += len(seats)
        else:
            mover = state.current_player
            entries.append((mover if mover >= 0 else None, [state.observation_text(s, actions[i]) for s in range(state.num_players)]))
            state.apply(actions[i])
            i += 1
        out.append((state.clone(), list(entries)))
    return out


def expected_views(record: GameRecord, seat: int) -> set[Seen]:
    """Every (view notation, legal moves, moves as seen) the seat may be shown during the game;
    the legal moves as the seat's browser gets them when it is to decide (else empty)."""
    found = set()
    for state, entries in positions(record):
        moves = tuple((mover, seen[seat]) for mover, seen in entries if mover is not None)
        notation = state.view(seat).notation()
        found.add(Seen(notation, (), moves))
        if not state.is_terminal() and not state.is_chance():
            found.add(Seen(notation, tuple(state.legal_moves_for(seat)), moves))
    return found


def model_seen(model: dict) -> Seen:
    return Seen(model["notation"], tuple(model["legal"]), tuple((m["seat"], m["text"]) for m in model["moves"]))


def secrets(record: GameRecord, seat: int) -> set[str]:
    """The hidden parts the seat must never receive while the game runs: each component of a
    notation field (split at ``,`` ``/`` ``|`` and spaces) that differs between the full state and
    the seat's view at some position, at least SECRET_CHARS long, and never a part of any view
    of the seat (an opponent's hand equal to the seat's own would be no secret)."""
    hidden: set[str] = set()
    visible: set[str] = set()
    for state, _ in positions(record):
        full = kibitz.notation_fields(state.notation())
        view = kibitz.notation_fields(state.view(seat).notation())
        for key, value in view.items():
            visible.update(split(value))
        for key, value in full.items():
            mine = split(view.get(key, ""))
            for k, part in enumerate(split(value)):
                if (k >= len(mine) or mine[k] != part) and len(part) >= SECRET_CHARS:
                    hidden.add(part)
    return hidden - visible


def parts(notation: str) -> set[str]:
    """Every component of every field of a notation."""
    return {part for value in kibitz.notation_fields(notation).values() for part in split(value)}


def split(value: str) -> list[str]:
    return [part for part in re.split(r"[,/| ]", value) if part]


def leaks(texts: Iterable[str], hidden: set[str]) -> list[str]:
    """The hidden strings found in ``texts`` as whole words (a hand of ``RRGB`` is no leak of a
    hidden ``RGB``; a word is a run of letters, digits, '.' and '_')."""
    return sorted({word for text in texts for word in re.findall(r"[A-Za-z0-9._]+", text)} & hidden)


def table_frames(frames: Iterable[str]) -> list[dict]:
    """The ``table`` messages among WebSocket frames' texts."""
    out = []
    for frame in frames:
        try:
            message = json.loads(frame)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("kind") == "table":
            out.append(message)
    return out


def check_frames(frames: list[str], record: GameRecord, held: set[int]) -> int:
    """Asserts that every frame a browser holding ``held`` received before the game ended shows
    only what those seats may see: each model one of :func:`expected_views`, only the held
    seats' views, and none of the other seats' :func:`secrets` anywhere in the frame's text.
    Returns the number of models checked."""
    expected = {seat: expected_views(record, seat) for seat in held}
    hidden = set.intersection(*(secrets(record, seat) for seat in held))  # what none of the held seats may see
    checked = 0
    for text in frames:
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if message.get("over") or message.get("kind") != "table" and message.get("kind") != "progress":
            if message.get("over"):
                break  # from here on the game is over: every hand may show
            continue
        found = leaks([text], hidden)
        assert not found, f"a frame holds another seat's hidden {found}: {text[max(0, text.find(found[0]) - 400) : text.find(found[0]) + 100]}"
        if message["kind"] == "progress":
            continue
        assert {v["seat"] for v in message["views"]} <= held, message["views"]
        for model in message["views"]:
            seen = model_seen(model)
            assert seen in expected[model["seat"]], f"a model not built from seat {model['seat']}'s view: {seen}"
            checked += 1
    return checked
