"""What the operator of ``kibitz serve`` allows a browser to ask for: the bots' budgets per move,
threads, memory and plug-ins, the number of tables, the size and rate of messages.

A bot spec chosen in the lobby is checked here before any bot is made (:func:`check_bot_spec`):
one that would search longer, wider or with more memory than the limits allow is refused with
an error naming the limit and the ``kibitz serve`` flag that raises it. Every search also stops
at ``max_time_ms`` of wall clock, whatever its iteration budget.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any

from kibitz import plugins
from kibitz.bots import PLUGIN_KEY, SearchBot, make_bot, parse_spec
from kibitz.errors import OptionError, shown
from kibitz.game import Game, ascii_text
from kibitz.levels import LevelBot

SPEC_LIMIT = 200  # characters of a bot spec
STATIC_LIMITS = ("max_iterations", "max_time_ms", "hint_bot", "move_pause_ms")  # what bounds a table with no server (kibitz web export)


class LimitError(OptionError):
    """A request beyond what the operator allows (a bot spec, a table too many)."""


def limit(default: Any, help: str) -> Any:
    """A limit's field: its default and its help (the ``kibitz serve`` flag's)."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Limits:
    """The operator's limits, each set by the ``kibitz serve`` flag of its name
    (``max_iterations`` by ``--max-iterations``)."""

    max_iterations: int = limit(200_000, "iterations of one bot's search for one move")
    max_time_ms: int = limit(10_000, "wall-clock milliseconds of one search (a bot's move, a hint, an analysis); it stops then")
    max_threads: int = limit(min(4, os.cpu_count() or 1), "search threads of one bot")
    max_memory_mb: int = limit(1024, "megabytes of one search's tree (memory_mb)")
    hint_bot: str = limit("ismcts:iterations=3000", "the search behind the hint button, from the person's view (ismcts, mo_ismcts or pimc)")
    max_tables: int = limit(64, "tables open at once; the oldest without a browser gives way")
    max_tables_per_client: int = limit(8, "tables open at once per browser address; its oldest without a browser gives way")
    idle_seconds: int = limit(1800, "seconds a table without any browser is kept")
    max_message_bytes: int = limit(4096, "bytes of one WebSocket message from a browser")
    messages_per_second: float = limit(20.0, "a browser's steady message rate (bursts of twice as many pass)")
    max_upload_bytes: int = limit(2_000_000, "bytes of a record file opened in the replay view")
    move_pause_ms: int = limit(250, "the least milliseconds between two bot moves, so that a person can follow them")

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
                raise LimitError(f"--{item.name.replace('_', '-')}: {value} is negative")
        check_bot_spec(self.hint_bot, self, what="the hint bot")
        hint = make_bot(self.hint_bot)
        if not isinstance(hint, SearchBot) or hint.sees_everything:
            raise LimitError(f"--hint-bot {shown(self.hint_bot, 60)}: the hint searches the person's view: use ismcts, mo_ismcts or pimc")

    @property
    def burst(self) -> float:
        return 2 * self.messages_per_second


def flag(name: str) -> str:
    """The ``kibitz serve`` flag that sets the limit ``name``."""
    return "--" + name.replace("_", "-")


def check_bot_spec(spec: object, limits: Limits, what: str = "bot", game: Game | None = None) -> str:
    """``spec`` stripped, if the operator's limits allow it; raises LimitError (or OptionError
    for a spec that does not read) naming what is beyond which limit. A plug-in named in it
    loads only if it is allowed (the shipped examples, the ``kibitz.plugins`` entry points, the
    modules ``kibitz serve --allow-plugin`` names); any other is refused before it is imported. A
    network file loads only if ``--allow-plugin`` named it too (it is data, but a browser does not
    choose which files of the server's disk are read). A difficulty level (``level=<n>``) is a search whose settings
    depend on the game: it is checked as the level of ``game`` (an OptionError when the game
    has no such level, a LimitError without a game)."""
    if not isinstance(spec, str):
        raise OptionError(f"{what}: a bot spec is text, got {shown(spec)}")
    spec = ascii_text(spec, f"{what} spec", OptionError).strip()
    if len(spec) > SPEC_LIMIT:
        raise LimitError(f"{what}: a bot spec has at most {SPEC_LIMIT} characters, got {len(spec)}")
    plugin = parse_spec(spec)[1].get(PLUGIN_KEY)  # the spec's syntax first
    if plugin is not None and plugins.is_network_file(plugin) and not plugins.is_allowed_by_hand(plugin):
        raise LimitError(
            f"{what} {shown(spec, 60)}: this server loads only the network files its operator names "
            f"(kibitz serve {plugins.ALLOW_FLAG} FILE{plugins.NETWORK_SUFFIX})"
        )
    bot = make_bot(spec)  # a plug-in it names loads only if allowed (kibitz.plugins.load_allowed), checked before any import
    if isinstance(bot, LevelBot):
        if game is None:
            raise LimitError(f"{what} {shown(spec, 60)}: a difficulty level is a search of one game; it cannot serve here")
        bot = bot.resolve(game.new_initial_state(0))
    if not isinstance(bot, SearchBot):
        return spec  # the heuristic bots answer at once
    params = bot.params
    checks = [
        ("iterations", params.iterations, limits.max_iterations, "max_iterations"),
        ("time_ms", params.time_ms, limits.max_time_ms, "max_time_ms"),
        ("threads", params.threads, limits.max_threads, "max_threads"),
        ("memory_mb", params.memory_mb, limits.max_memory_mb, "max_memory_mb"),
    ]
    for key, value, allowed, limit in checks:
        if value > allowed:
            raise LimitError(
                f"{what} {shown(spec, 60)}: {key}={value:g} is beyond this server's limit of {allowed} "
                f"(the operator sets it with kibitz serve {flag(limit)})"
            )
    return spec
