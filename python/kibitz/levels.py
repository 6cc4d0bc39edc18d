"""Difficulty levels: per game and player count a ladder of bots from a beginner to the strongest
preset, each rated on one measured scale (docs/levels.md).

A level is a preset: a search bot, its budget and a weakening of its final move choice (the
``temperature`` of the search, csrc/search/move_choice.h: the move is drawn among the searched
moves by their values, so a low level makes a weaker player's mistakes, never a random click).
The ladders are in ``bots/<game>/levels.json`` (:data:`LEVELS_FORMAT`), found in the folders
parameter sets are found in (:func:`kibitz.bots.bot_folders`).

A bot spec plays a level with ``level=<n>``: alone (``level=3``, the level's own bot) or in any
search spec (``ismcts:level=3,threads=2``: the level's settings under that algorithm and the
spec's other options). The game and the number of players come from the position the bot first
plays, so one spec serves every game.

>>> [(level.number, level.name) for level in levels("yucata", 2)][:2]
[(1, '1 · Beginner'), (2, '2 · Novice')]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kibitz import plugins
from kibitz.bots import ALGORITHM_NAMES, LEVEL_KEY, LEVELS_FILE, PLUGIN_KEY, SearchBot, bot_folders, options_over
from kibitz.errors import OptionError, shown
from kibitz.game import Game, Move, SearchResult, State, View
from kibitz.params import SearchParams, parse_number

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

LEVELS_FORMAT = 1
"""The format of ``bots/<game>/levels.json``::

    {"format": 1, "version": 1, "game": "<game>",
     "ladders": [{"players": [2], "scale": "Elo", "anchor": "greedy",
                  "calibration": {"command": "kibitz match …", "games": 1200, "seed": 7, …},
                  "levels": [{"level": 1, "name": "Beginner", "bot": "uct",
                              "params": {"iterations": 200, "temperature": 0.3},
                              "summary": "what it guarantees, one line",
                              "rating": {"value": -350, "low": -420, "high": -280}}, …]}]}

A ladder serves the player counts in ``players`` (its ratings measured at the first); its
levels are numbered 1, 2, … in order of strength. ``rating`` is the level's rating on the
ladder's ``scale`` (``Elo``: for more than two players the Plackett-Luce fit on the Elo scale of
:func:`kibitz.stats.plackett_luce_scale`; or ``openskill`` mu) with its
95 % interval, ``anchor`` at 0, or null for a level not yet calibrated. ``version`` counts the
files written for one game."""


MU_PER_100_ELO = 3.4
"""The openskill mu difference (Plackett-Luce, openskill's default beta of 25/6) that gives two
players the win chance of 100 Elo (64 %): logit(0.64) times sqrt(2) beta."""


@dataclass(frozen=True)
class LevelRating:
    """A level's measured rating: ``value`` with its 95 % interval ``low..high`` on ``scale``
    (``Elo``, or ``openskill`` mu), ``anchor`` at 0."""

    value: float
    low: float
    high: float
    scale: str
    anchor: str

    def __str__(self) -> str:
        return f"{self.value:+.0f} ({self.low:+.0f}..{self.high:+.0f}) {self.scale}, {self.anchor} = 0"

    @property
    def elo(self) -> float:
        """The rating in Elo: ``value`` itself on the Elo scale; an openskill mu converted at
        :data:`MU_PER_100_ELO` (what the protocol's ``Elo`` option compares)."""
        return self.value if self.scale == "Elo" else self.value * 100 / MU_PER_100_ELO


@dataclass(frozen=True)
class Level:
    """One level of a game's ladder for some player counts.

    ``number`` (1 = the weakest), ``name`` (``"3 · Casual"``: the number and the ladder's name
    for it), ``spec`` (a bot spec :func:`kibitz.make_bot` takes: ``level=3``), ``summary`` (what
    it guarantees, one line), ``rating`` (:class:`LevelRating`, None while not calibrated), and
    the settings: ``bot`` (the search algorithm's bot name) and ``params``
    (:attr:`search_params`)."""

    game: str
    players: tuple[int, ...]
    number: int
    name: str
    spec: str
    summary: str
    rating: LevelRating | None
    bot: str
    params: dict[str, Any] = field(repr=False)

    @property
    def search_params(self) -> SearchParams:
        """The level's search parameters (seed 0)."""
        return SearchParams.from_options(self.params, algorithm=ALGORITHM_NAMES[self.bot])

    def __str__(self) -> str:
        return f"{self.name}: {self.summary} ({'rating ' + str(self.rating) if self.rating else 'not yet calibrated'})"


def ladders() -> dict[str, list[tuple[Level, ...]]]:
    """Every game's ladders (each a tuple of its levels, weakest first), by game name."""
    return {game: list(found) for game, found in _ladders().items()}


def levels(game: str, players: int | None = None) -> list[Level]:
    """The levels of ``game`` for ``players`` players (default: the game's default number of
    players), weakest first; raises OptionError when the game has no ladder for that many.

    >>> [level.spec for level in levels("yucata", 2)][:3]
    ['level=1', 'level=2', 'level=3']
    """
    count = Game(game).num_players if players is None else players
    found = _ladders().get(game)
    if not found:
        raise OptionError(f"{game} has no difficulty levels; games with levels: {', '.join(sorted(_ladders())) or 'none'}")
    for ladder in found:
        if count in ladder[0].players:
            return list(ladder)
    served = sorted(n for ladder in found for n in ladder[0].players)
    raise OptionError(f"{game} has no difficulty levels for {count} players; it has levels for {', '.join(map(str, served))}")


def level(game: str, players: int, number: int) -> Level:
    """Level ``number`` of ``game`` for ``players`` players; raises OptionError naming the
    levels there are."""
    ladder = levels(game, players)
    if not 1 <= number <= len(ladder):
        raise OptionError(f"{game} with {players} players has levels 1..{len(ladder)}; there is no level {number}")
    return ladder[number - 1]


def nearest(game: str, players: int, rating: float) -> Level:
    """The calibrated level of ``game`` for ``players`` players whose rating is nearest to
    ``rating``, in Elo (:attr:`LevelRating.elo`; the weaker of two as near); raises OptionError
    when none is calibrated."""
    rated = [lv for lv in levels(game, players) if lv.rating is not None]
    if not rated:
        raise OptionError(f"{game} with {players} players has no calibrated level yet (docs/levels.md)")
    return min(rated, key=lambda lv: abs(lv.rating.elo - rating) if lv.rating else 0.0)


def most_levels() -> int:
    """The most levels any ladder has (the protocol's ``Level`` option goes up to it)."""
    return max((len(ladder) for ladders in _ladders().values() for ladder in ladders), default=0)


def rating_range() -> tuple[int, int]:
    """The lowest and highest rating of any calibrated level in Elo, rounded outwards (the range
    of the protocol's ``Elo`` option); (0, 0) with none calibrated."""
    values = [lv.rating.elo for ladders in _ladders().values() for ladder in ladders for lv in ladder if lv.rating]
    return (int(min(values) // 1), -int(-max(values) // 1)) if values else (0, 0)


def level_number(text: str, label: str) -> int:
    """A spec's ``level=`` value: an integer from 1 to the most levels any ladder has; raises
    OptionError naming ``label``."""
    top = most_levels()
    allowed = f"a level 1..{top}" if top else "a level (no game has levels installed)"
    number = parse_number(text, int, f"{label}: level", allowed)
    if not 1 <= number <= top:
        raise OptionError(f"{label}: level {shown(text.strip())} does not exist; expected {allowed}")
    return int(number)


class LevelBot:
    """A bot that plays level ``number`` of whatever game it is given: the game and the number
    of players are read from the first position it sees, and from then on it is the level's
    :class:`SearchBot` (``bot``). ``algorithm`` (a search bot name) replaces the level's own,
    and ``options`` (a spec's, as text) go over the level's parameters, a budget replacing its
    budget."""

    def __init__(self, number: int, seed: int = 0, algorithm: str | None = None, options: dict[str, str] | None = None) -> None:
        if algorithm is not None and algorithm not in ALGORITHM_NAMES:
            known = ", ".join(sorted(ALGORITHM_NAMES))
            raise OptionError(f"{LEVEL_KEY}={number}: {algorithm!r} is not a search bot; levels play {known}")
        self.number = number
        self.algorithm = algorithm
        self.options = dict(options or {})
        self.seed = seed
        self.name = f"{algorithm + ':' if algorithm else ''}{LEVEL_KEY}={number}"
        # a uct level (Yucata') searches the view it is given, which in a perfect-information game is the whole state
        self.sees_everything = algorithm is not None and ALGORITHM_NAMES[algorithm] == "uct"
        self.level: Level | None = None
        self.bot: SearchBot | None = None
        # a bad option fails here, not in a game
        SearchParams.from_options({k: v for k, v in self.options.items() if k != PLUGIN_KEY})

    def __repr__(self) -> str:
        return f"LevelBot({self.name!r}, seed={self.seed}{', ' + repr(self.bot) if self.bot else ''})"

    @property
    def last_result(self) -> SearchResult | None:
        return None if self.bot is None else self.bot.last_result

    def resolve(self, position: View | State) -> SearchBot:
        """The level's search bot for the game of ``position`` (made at the first call)."""
        if self.bot is None:
            state = position if isinstance(position, State) else position.state()
            self.level = level(state.game_name, state.num_players, self.number)
            options = options_over(self.level.params, self.options)
            plugin = plugins.load_allowed(options.pop(PLUGIN_KEY)) if PLUGIN_KEY in options else None  # allowed ones only, as make_bot
            algorithm = ALGORITHM_NAMES[self.algorithm or self.level.bot]
            try:
                params = SearchParams.from_options(options, algorithm=algorithm, seed=self.seed)
            except OptionError as err:
                raise OptionError(f"bot {self.name}: {err}") from None
            self.bot = SearchBot(params, name=self.name, plugin=plugin)
        return self.bot

    def act(self, view: View | State, seat: int | None = None, **search: Any) -> Move:
        """The level's move for ``view`` (see :meth:`SearchBot.act`)."""
        return self.resolve(view).act(view, seat, **search)

    def observe_move(self, before: View | State, mover: int, move: str, seat: int) -> None:
        self.resolve(before).observe_move(before, mover, move, seat)


# -- the ladders' files -------------------------------------------------------------------------


def _ladders() -> dict[str, list[tuple[Level, ...]]]:
    """game -> its ladders, each a tuple of levels (see :data:`LEVELS_FORMAT`): each game's
    file from the first folder of :func:`kibitz.bots.bot_folders` that has one."""
    files: dict[str, Traversable] = {}
    for folder in bot_folders():
        for game_folder in folder.iterdir():
            entry = game_folder / LEVELS_FILE
            if game_folder.name not in files and game_folder.is_dir() and entry.is_file():
                files[game_folder.name] = entry
    return {game: _read_cached(entry) for game, entry in files.items()}


_CACHE: dict[tuple[str, int], list[tuple[Level, ...]]] = {}


def _read_cached(entry: Traversable) -> list[tuple[Level, ...]]:
    """:func:`read_levels`, read again only when the file has changed."""
    try:
        stamp = Path(str(entry)).stat().st_mtime_ns
    except OSError:  # an installed resource that is no file of its own
        stamp = 0
    key = (str(entry), stamp)
    if key not in _CACHE:
        _CACHE[key] = read_levels(entry)
    return _CACHE[key]


def read_levels(entry: Traversable) -> list[tuple[Level, ...]]:
    """The ladders of one ``levels.json``, checked (every level's settings included); raises
    OptionError naming the file and what is wrong."""
    try:
        data = json.loads(entry.read_text())
    except (OSError, ValueError) as err:
        raise OptionError(f"levels file {entry}: {err}") from None
    try:
        return _parse(data)
    except KeyError as err:
        raise OptionError(f"levels file {entry}: a field is missing: {err}") from None
    except (TypeError, ValueError) as err:
        raise OptionError(f"levels file {entry}: {err}") from None


def _parse(data: Any) -> list[tuple[Level, ...]]:
    found = data.get("format") if isinstance(data, dict) else data
    if found != LEVELS_FORMAT:
        raise ValueError(f"not a levels file of format {LEVELS_FORMAT} (its 'format' is {shown(found)})")
    game = Game(data["game"])
    ladders: list[tuple[Level, ...]] = []
    served: set[int] = set()
    for ladder in data["ladders"]:
        players = tuple(int(n) for n in ladder["players"])
        for n in players:
            Game(game.name, players=n)  # a player count the game allows
            if n in served:
                raise ValueError(f"two ladders for {n} players")
            served.add(n)
        if not ladder["levels"]:
            raise ValueError(f"the ladder for {', '.join(map(str, players))} players has no levels")
        scale, anchor = str(ladder["scale"]), str(ladder["anchor"])
        rungs = []
        for number, entry in enumerate(ladder["levels"], start=1):
            if entry["level"] != number:
                raise ValueError(f"the levels of a ladder are numbered 1, 2, …: level {entry['level']} is number {number}")
            if entry["bot"] not in ALGORITHM_NAMES:
                raise ValueError(f"level {number}: bot {entry['bot']!r} is not a search bot")
            if ALGORITHM_NAMES[entry["bot"]] == "uct" and not game.perfect_information:
                raise ValueError(f"level {number}: uct sees every hand, and {game.name} hides some")
            params = dict(entry["params"])
            SearchParams.from_options(params, algorithm=ALGORITHM_NAMES[entry["bot"]])
            rating = entry.get("rating")
            if rating is not None and not float(rating["low"]) <= float(rating["value"]) <= float(rating["high"]):
                interval = f"{rating['low']}..{rating['high']}"
                raise ValueError(f"level {number}: its rating {rating['value']} is outside its interval {interval}")
            rungs.append(
                Level(
                    game=game.name,
                    players=players,
                    number=number,
                    name=f"{number} · {entry['name']}",
                    spec=f"{LEVEL_KEY}={number}",
                    summary=str(entry["summary"]),
                    rating=None
                    if rating is None
                    else LevelRating(float(rating["value"]), float(rating["low"]), float(rating["high"]), scale, anchor),
                    bot=str(entry["bot"]),
                    params=params,
                )
            )
        ladders.append(tuple(rungs))
    return ladders
