"""The lobby: the games and their options, the seat menu, and reading a table's request.

:func:`seat_menu` is the one place that lists who may sit at a seat: the heuristic bots, the
game's difficulty levels (``kibitz.levels``), its parameter sets (``kibitz.bots.parameter_sets()``)
and the shipped presets, each checked against the operator's limits; a browser may also type any
bot spec (checked the same way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kibitz import plugins
from kibitz.bots import parameter_sets, presets
from kibitz.errors import OptionError, shown
from kibitz.experts import GAME_MODULES
from kibitz.game import SEED_LIMIT, Game, games
from kibitz.levels import levels
from kibitz.web.limits import Limits, check_bot_spec
from kibitz.web.table import Seat

SEAT_KINDS = ("person", "invite", "bot")
NAME_CHARS = 24  # a person's name at the table
OPTION_CHARS = 100  # a game option's value
HEURISTIC_BOTS = [
    ("random", "Random", "plays any legal move"),
    ("greedy", "Greedy", "the move whose result looks best, one move ahead"),
]


def seat_menu(game: str, limits: Limits) -> list[dict[str, Any]]:
    """Who may sit at a seat of ``game``, as menu entries ``{group, label, spec, summary}``:
    the game's difficulty levels (each entry with the ``players`` counts its ladder serves, since
    a level is measured for a number of players), heuristic bots, then the game's parameter sets
    and the shipped presets, each within the operator's limits."""
    info = next(i for i in games() if i.name == game)
    entries: list[dict[str, Any]] = []
    for players in range(info.min_players, info.max_players + 1):
        try:
            ladder = levels(game, players)
        except OptionError:
            continue  # no ladder for this many players
        if ladder[0].players[0] != players:
            continue  # the ladder is listed once, at the first count it serves
        for level in ladder:
            rating = f" (rating {level.rating})" if level.rating else " (not yet calibrated)"
            entry = {"group": "Difficulty levels", "label": level.name, "spec": level.spec, "summary": level.summary + rating}
            try:
                check_bot_spec(level.spec, limits, game=Game(game, players=players))
            except (OptionError, ValueError):
                continue  # beyond the operator's limits
            entries.append({**entry, "players": list(level.players)})
    entries += [{"group": "Heuristic bots", "label": label, "spec": spec, "summary": summary} for spec, label, summary in HEURISTIC_BOTS]
    if game in GAME_MODULES:
        entries.append({"group": "Heuristic bots", "label": "Expert", "spec": "expert", "summary": "hand-written rules of good play"})
    for name, data in sorted(parameter_sets().get(game, {}).items()):
        bot = data.get("bot", "ismcts")
        summary = ", ".join(f"{k}={v}" for k, v in data.get("params", {}).items())
        entries.append({"group": "Search bots", "label": f"{bot} {name}", "spec": f"{bot}:preset={game}/{name}", "summary": summary})
    for name, data in sorted(presets().items()):
        summary = ", ".join(f"{k}={v}" for k, v in data.get("params", {}).items())
        entries.append({"group": "Search bots", "label": f"{data.get('bot', name)} ({name})", "spec": name, "summary": summary})
    allowed = []
    for entry in entries:
        if "players" in entry:  # a level, checked above
            allowed.append(entry)
            continue
        try:
            check_bot_spec(entry["spec"], limits)
        except (OptionError, ValueError):
            continue  # beyond the operator's limits, or not for this game
        allowed.append(entry)
    return allowed


def game_list(limits: Limits, views: set[str], styles: set[str]) -> dict[str, Any]:
    """What the lobby shows: every game with its players, options and seat menu, whether it has
    a drawn view (``views``) and a stylesheet (``styles``), and the limits a bot spec must keep."""
    listed = []
    for info in games():
        listed.append(
            {
                "name": info.name,
                "description": info.description,
                "minPlayers": info.min_players,
                "maxPlayers": info.max_players,
                "options": [{"name": name, "help": help} for name, help in info.options if name != "players"],
                "bots": seat_menu(info.name, limits),
                "view": info.name in views,
                "style": info.name in styles,
            }
        )
    return {
        "games": listed,
        "limits": {
            "maxIterations": limits.max_iterations,
            "maxTimeMs": limits.max_time_ms,
            "maxThreads": limits.max_threads,
            "maxMemoryMb": limits.max_memory_mb,
            "plugins": plugins.allowed(),
            "hintBot": limits.hint_bot,
        },
    }


def read_options(data: object) -> dict[str, str]:
    """A table request's game options (name -> text); raises OptionError. The game checks the
    names and values (kibitz.Game)."""
    if not isinstance(data, dict):
        raise OptionError(f"'options' must be an object of option names to values, got {shown(data)}")
    options = {}
    for name, value in data.items():
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise OptionError(f"option {shown(name)}: expected text or a whole number, got {shown(value)}")
        text = str(value).strip()
        if len(text) > OPTION_CHARS:
            raise OptionError(f"option {shown(name)}: at most {OPTION_CHARS} characters")
        if text:
            options[name] = text
    return options


def read_seats(data: object, players: int, check_spec: Callable[[str], str]) -> list[Seat]:
    """A table request's seats: one ``{kind, name, spec}`` per seat; raises OptionError."""
    if not isinstance(data, list) or len(data) != players:
        raise OptionError(f"'seats' must be a list of {players} seats, got {shown(data)}")
    seats = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or item.get("kind") not in SEAT_KINDS:
            raise OptionError(f"seat {i}: expected {{kind: {' | '.join(SEAT_KINDS)}, name, spec}}, got {shown(item)}")
        kind = item["kind"]
        name = item.get("name") or ""
        if not isinstance(name, str) or len(name) > NAME_CHARS or not name.isprintable():
            raise OptionError(f"seat {i}: a name is up to {NAME_CHARS} printable characters, got {shown(name)}")
        if kind == "bot":
            spec = check_spec(item.get("spec", ""))
            seats.append(Seat("bot", name.strip() or spec, spec))
        else:
            seats.append(Seat(kind, name.strip() or f"Player {i + 1}"))
    return seats


def read_seed(value: object) -> int | None:
    """A table request's seed: None (drawn at random) or a whole number 0..2^63-1."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < min(SEED_LIMIT, 1 << 63):
        raise OptionError(f"the seed is a whole number 0..{(1 << 63) - 1}, or empty for a random deal; got {shown(value)}")
    return value
