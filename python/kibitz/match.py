"""Games between bots: one game (:func:`play_game`), a match of many games run in parallel
(:func:`run_match`, resumable from its results file) with its plan (:class:`MatchPlan`)
and statistics, and exact replay of a game record (:mod:`kibitz.records`), whole or position by
position (:func:`positions`).

Every random choice of a game (the deal, each chance outcome, each bot's seed) is derived
from the game's seed with :func:`derive_seed`, so a seed and the bot specs fix the whole game,
and a match gives the same result whatever the number of processes.

>>> import kibitz
>>> from kibitz.match import play_game, replay
>>> game = kibitz.Game("just4fun_colours", players=2)
>>> record = play_game(game, ["random", "greedy"], seed=1)
>>> replay(record).returns() == record.returns
True
"""

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.util
import logging
import math
import multiprocessing
import os
import socket
import statistics
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from itertools import combinations
from typing import Any, TypeAlias, TypeVar, cast

from rich import box
from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from kibitz import plugins
from kibitz.bots import Bot, SearchBot, make_bot, parse_spec
from kibitz.errors import IllegalMoveError, NotationError, OptionError
from kibitz.game import CHANCE, SIMULTANEOUS, Game, Move, State
from kibitz.params import PARAMETERS, SearchParams
from kibitz.records import RECORD_VERSION, GameRecord, appender, read_results
from kibitz.stats import (  # noqa: F401  (Z_95, standard_error: kibitz.match's names before kibitz.stats)
    SPRT,
    Z_95,
    EloEstimate,
    Estimate,
    Meeting,
    Placing,
    Rating,
    ScaleRating,
    Scores,
    SPRTResult,
    elo_estimate,
    elo_scale,
    mean_ci,
    plackett_luce,
    plackett_luce_scale,
    standard_error,
    wilson_ci,
)

SHARE_DIGITS = 2  # a win share is a sum of fractions such as 1/3
MoveHook = Callable[[State, int | dict[int, int]], None]
"""Called with the state and what is about to be applied: an action id (a decision or a chance
outcome), or at a simultaneous node the joint move, seat -> action id."""


# -- seeds ------------------------------------------------------------------------------------


def derive_seed(seed: int, *path: int | str) -> int:
    """A 63-bit seed derived from ``seed`` and a path such as ``("chance", 12)``.

    A hash rather than one shared random stream, so that each use (deal, bot of seat i,
    chance outcome k, game g of a match) gets its seed independently of the others.
    """
    text = "/".join(str(part) for part in (seed, *path))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def initial_state(game: Game, seed: int) -> State:
    """The start of the game with match seed ``seed``: the deal comes from ``derive_seed(seed, "deal")``."""
    return game.new_initial_state(derive_seed(seed, "deal"))


def seat_bots(specs: Sequence[str], seed: int) -> list[Bot]:
    """The bots of one game: seat i gets ``make_bot(specs[i])`` with a seed derived from
    ``(seed, i)``; raises OptionError for a bad spec."""
    return [make_bot(spec, seed=derive_seed(seed, "bot", seat)) for seat, spec in enumerate(specs)]


# -- one game ---------------------------------------------------------------------------------


def play_bots(
    game: Game,
    bots: Sequence[Bot],
    seed: int,
    *,
    labels: Sequence[str] | None = None,
    record: bool = True,
    on_move: MoveHook | None = None,
    bots_seed: int | None = None,
) -> GameRecord:
    """Plays one game between built bots, seat i played by ``bots[i]``.

    The deal and the chance outcomes come from ``seed``; the bots bring their own seeds.
    Each bot gets its seat's :class:`View`, or the full state if it ``sees_everything``.
    ``labels`` name the bots in the record and in errors (default: the bots' names);
    ``bots_seed``, recorded, says where the bots' seeds came from if not from ``seed``.
    A bot's illegal move raises IllegalMoveError (NotationError for unreadable text) naming
    the bot, its seat and the move.
    """
    if len(bots) != game.num_players:
        raise OptionError(f"{game.name} with {game.num_players} players needs {game.num_players} bots, got {len(bots)}")
    names = list(labels) if labels is not None else [bot.name for bot in bots]
    state = initial_state(game, seed)
    actions: list[int] = []
    moves: list[str] = []
    play_out(
        state, seed, lambda s, seat: bot_action(s, seat, bots[seat], names[seat]), showing_moves(bots, on_move), (actions, moves) if record else None
    )
    return GameRecord(
        game=game.name,
        options=dict(game.options),
        seed=seed,
        specs=names,
        actions=actions,
        moves=moves,
        returns=state.returns(),
        scores=state.scores(),
        ranks=state.ranks(),
        bots_seed=bots_seed,
    )


def showing_moves(bots: Sequence[Any], on_move: MoveHook | None = None) -> MoveHook:
    """A move hook that shows every seat's sequential decision to the bots of the other seats
    that have ``observe_move`` (the Bot protocol), each through its own seat's view (the full
    state for a bot that sees everything), then calls ``on_move``. ``bots[i]`` plays seat i;
    None for a seat no bot plays."""
    observers = [(seat, bot) for seat, bot in enumerate(bots) if hasattr(bot, "observe_move")]

    def show(before: State, action: int | dict[int, int]) -> None:
        mover = before.current_player
        if observers and isinstance(action, int) and mover >= 0:
            for seat, bot in observers:
                if seat == mover:
                    continue
                if getattr(bot, "sees_everything", False):
                    bot.observe_move(before, mover, before.move_to_string(action), seat)
                elif (seen := before.observation_text(seat, action)) != "?":
                    bot.observe_move(before.view(seat), mover, seen, seat)
        if on_move is not None:
            on_move(before, action)

    return show


def play_out(
    state: State,
    seed: int,
    decide: Callable[[State, int], int],
    on_move: MoveHook | None = None,
    record: tuple[list[int], list[str]] | None = None,
) -> None:
    """Plays ``state`` to the end: the k-th chance outcome drawn with ``derive_seed(seed,
    "chance", k)`` (so that a deal replayed with other players draws the same cards while the
    piles hold the same cards), each decision ``decide(state, seat)``. At a simultaneous node
    every choosing seat is asked, in :meth:`State.choosing_seats` order, on the same state
    before any choice is applied, so that no seat sees another's; the record lists the choices
    in that order (a game log's convention, as Yak's rules record Sunrise). Every action is shown
    to ``on_move`` and appended to ``record`` (ids, texts) before it is applied, so that an
    exception raised by ``decide`` leaves the game so far recorded."""
    draws = 0  # chance outcomes so far: the k-th is drawn the same way however the decisions went
    while not state.is_terminal():
        seat = state.current_player
        if seat == SIMULTANEOUS:
            joint = {chooser: decide(state, chooser) for chooser in state.choosing_seats()}
            if on_move is not None:
                on_move(state, joint)
            if record is not None:
                for chooser, choice in joint.items():
                    record[0].append(choice)
                    record[1].append(state.move_to_string(choice))
            state.apply_joint(joint)
            continue
        if seat == CHANCE:
            action = state.sample_chance(derive_seed(seed, "chance", draws))
            draws += 1
        else:
            action = decide(state, seat)
        if on_move is not None:
            on_move(state, action)
        if record is not None:
            record[0].append(action)
            record[1].append(state.move_to_string(action))
        state.apply(action)


def act_on_state(bot: Any, state: State, seat: int) -> Move:
    """The move of a bot that ``sees_everything``: it gets the full state, and at a
    simultaneous node also the seat it chooses for (``act(state, seat)``)."""
    return bot.act(state, seat) if state.is_simultaneous() else bot.act(state)


def bot_action(state: State, seat: int, bot: Bot, label: str) -> int:
    """The legal action id the bot at ``seat`` chooses: it gets the seat's view (the full
    state if it ``sees_everything``); an illegal or unreadable move raises IllegalMoveError or
    NotationError naming the bot (``label``), the seat and the move."""
    # Only a bot that declares sees_everything (the perfect-information baseline) gets the full state.
    move = act_on_state(bot, state, seat) if getattr(bot, "sees_everything", False) else bot.act(state.view(seat))
    try:
        action = state.parse_move(move)
    except NotationError as err:
        raise NotationError(f"bot {label!r} at seat {seat} played {move!r}: {err}") from None
    if action not in state.legal_actions_for(seat):
        legal = " ".join(state.legal_moves_for(seat))
        raise IllegalMoveError(f"bot {label!r} at seat {seat} played {move!r}, which is illegal here; legal: {legal}")
    return action


def play_game(game: Game, specs: list[str], seed: int, record: bool = True) -> GameRecord:
    """Plays one game, seat i played by the bot ``specs[i]``; everything random comes from
    ``seed``. With ``record=False`` the record keeps only the result, not the moves."""
    return play_bots(game, seat_bots(specs, seed), seed, labels=specs, record=record)


def _recorded_steps(state: State, record: GameRecord) -> Iterator[list[int]]:
    """Walks ``state`` (the record's initial state) through the record: yields each step's
    actions (one decision or chance outcome, or at a simultaneous node the choosing seats'
    choices) with ``state`` still before the step, and applies the step when resumed.

    Raises ValueError (IllegalMoveError and NotationError are ValueErrors too) if a recorded
    action or its text does not fit, or if the game ends before the record does.
    """
    if len(record.moves) != len(record.actions):
        raise ValueError(f"record has {len(record.actions)} actions but {len(record.moves)} moves")
    step, total = 0, len(record.actions)
    while step < total:
        if state.is_terminal():
            raise ValueError(f"the game ended after {step} of the {total} recorded actions")
        seats = state.choosing_seats() or [state.current_player]
        if step + len(seats) > total:
            raise ValueError(f"the record ends inside the joint move of seats {', '.join(map(str, seats))} (action {step})")
        for i in range(len(seats)):
            action, move = record.actions[step + i], record.moves[step + i]
            if state.move_to_string(action) != move:
                raise ValueError(f"action {step + i} is {action} ({state.move_to_string(action)!r}), the record says {move!r}")
        actions = record.actions[step : step + len(seats)]
        yield actions
        try:
            if state.is_simultaneous():
                state.apply_joint(dict(zip(seats, actions)))
            else:
                state.apply(actions[0])
        except (IllegalMoveError, NotationError) as err:
            moves = ", ".join(repr(m) for m in record.moves[step : step + len(seats)])
            raise type(err)(f"recorded action {step} ({moves}): {err}") from None
        step += len(seats)


def positions(record: GameRecord) -> Iterator[tuple[State, int]]:
    """Each recorded action, in order, with the position it was taken in: a state of its own
    (the caller may keep or change it) before the action, chance outcomes included. At a
    simultaneous node each choosing seat's action comes with the same position.

    Raises ValueError, as :func:`replay` does, when an action does not fit the game; the end
    of the game is not checked.

    >>> import kibitz
    >>> record = play_game(kibitz.Game("yucata", players=2), ["random", "random"], seed=3)
    >>> [state.move_to_string(action) for state, action in positions(record)] == record.moves
    True
    """
    state = initial_state(Game(record.game, **record.options), record.seed)
    for actions in _recorded_steps(state, record):
        for action in actions:
            yield state.clone(), action


def replay(record: GameRecord) -> State:
    """Rebuilds a recorded game and returns its final state. At a simultaneous node the next
    recorded actions are the choosing seats' choices, in :meth:`State.choosing_seats` order.

    Raises ValueError (IllegalMoveError, NotationError and OptionError are ValueErrors too)
    if a recorded action or its text does not fit, if the game does not end with the last
    action, or if the final result differs from the recorded one.
    """
    state = initial_state(Game(record.game, **record.options), record.seed)
    for _ in _recorded_steps(state, record):
        pass
    if record.adjudication is not None:  # a forfeit: the game stopped where the seat failed
        seat = record.adjudication["seat"]
        if record.adjudication.get("phase") == "start":
            if record.actions:
                raise ValueError(f"seat {seat} forfeited at start-up, but the record has {len(record.actions)} actions")
        elif state.is_terminal() or (state.current_player != seat and seat not in state.choosing_seats()):
            raise ValueError(f"the forfeit of seat {seat} does not fit: it was not that seat's decision")
        return state
    if not state.is_terminal():
        raise ValueError(f"the game is not over after the {len(record.actions)} recorded actions")
    replayed = {"returns": state.returns(), "scores": state.scores(), "ranks": state.ranks()}
    for name, value in replayed.items():
        if value != getattr(record, name):
            raise ValueError(f"replayed {name} {value} differ from the recorded {getattr(record, name)}")
    return state


# -- statistics -------------------------------------------------------------------------------


def _estimate_cell(estimate: Estimate, digits: int, scale: float = 1.0) -> str:
    """``mean low..high``, all times ``scale``; compact so that a table fits 80 columns, and
    unambiguous with negative numbers (``-2.62 -3.57..-1.67``)."""
    mean = f"{estimate.mean * scale:.{digits}f}"
    if estimate.low is None or estimate.high is None:
        return mean
    return f"{mean} {estimate.low * scale:.{digits}f}..{estimate.high * scale:.{digits}f}"


# -- participants -----------------------------------------------------------------------------

BotFactory: TypeAlias = Callable[[int], Bot]
"""Builds a fresh bot from a seed, e.g. ``lambda seed: MyBot(seed=seed)``."""


@dataclass(frozen=True)
class Participant:
    """A player of a match or tournament: a bot spec (``"ismcts:c=1.2"``), a
    :class:`SearchParams`, a :class:`Bot` object or a factory ``seed -> Bot``, shown as
    ``name`` (default: the spec, or the bot's name).

    A spec or SearchParams builds a fresh bot with each game's derived seed; a Bot object
    plays every game as a fresh deep copy of itself (games stay independent of one another and
    of the order they run in); a factory gets the derived seed. ``Participant.parse`` reads
    ``name=`` out of a spec: ``ismcts:c=1.2,name=wide``.
    """

    player: str | SearchParams | Bot | BotFactory
    name: str | None = None

    @classmethod
    def of(cls, player: PlayerLike) -> Participant:
        """``player`` as a Participant (a text is read by :meth:`parse`)."""
        if isinstance(player, Participant):
            return player
        if isinstance(player, str):
            return cls.parse(player)
        return cls(player)

    @classmethod
    def parse(cls, text: str) -> Participant:
        """A bot spec with an optional ``name=`` option; raises OptionError for a bad spec."""
        bot, options = parse_spec(text)
        name = options.pop("name", None)
        if name is None:
            return cls(text.strip())
        spec = bot + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
        return cls(spec, name)

    @property
    def spec(self) -> str:
        """What plays: the spec, a SearchParams as a spec, or the bot's (factory's) name."""
        player = self.player
        if isinstance(player, str):
            return player
        if isinstance(player, SearchParams):
            return params_spec(player)
        if _is_bot_object(player):
            return str(getattr(player, "name", type(player).__name__))
        return str(getattr(player, "__name__", type(player).__name__))

    @property
    def label(self) -> str:
        return self.name or self.spec

    def make(self, seed: int) -> Bot:
        """A fresh bot for one game (see the class docstring); raises OptionError for a bad spec."""
        player = self.player
        if isinstance(player, str):
            return make_bot(player, seed=seed)
        if isinstance(player, SearchParams):
            return SearchBot(player.with_(seed=seed), name=self.label)
        if _is_bot_object(player):
            return cast(Bot, copy.deepcopy(player))
        return cast(BotFactory, player)(seed)


PlayerLike: TypeAlias = "str | SearchParams | Bot | BotFactory | Participant"


def _is_bot_object(player: object) -> bool:
    return not isinstance(player, type) and isinstance(player, Bot)


def params_spec(params: SearchParams) -> str:
    """A bot spec for ``params``: the algorithm and every parameter that differs from the
    default (the seed left out: each game gets its own)."""
    default = SearchParams()
    changed = [
        f"{p.name}={getattr(params, p.name)}"
        for p in PARAMETERS
        if p.name not in ("algorithm", "seed") and getattr(params, p.name) != getattr(default, p.name)
    ]
    return params.algorithm + (":" + ",".join(changed) if changed else "")


# -- plans ------------------------------------------------------------------------------------

SCHEDULES = ("round-robin", "gauntlet", "ladder")


def seat_assignment(num_bots: int, num_seats: int, game_index: int, rotate: bool = True) -> list[int]:
    """Which bot (index into the specs) plays each seat in game ``game_index``.

    Bots fill the seats cyclically (seat s gets bot s mod num_bots); with ``rotate`` game g
    shifts that by g, so over any num_bots consecutive games every bot plays every seat
    equally often.
    """
    shift = game_index if rotate else 0
    return [(seat + shift) % num_bots for seat in range(num_seats)]


def bot_labels(specs: Sequence[str]) -> list[str]:
    """Display names of the bots: the spec, or ``spec#1``, ``spec#2``... for a spec given twice."""
    labels = []
    for index, spec in enumerate(specs):
        if specs.count(spec) > 1:
            labels.append(f"{spec}#{specs[: index + 1].count(spec)}")
        else:
            labels.append(spec)
    return labels


@dataclass(frozen=True)
class MatchPlan:
    """Who plays each seat of each game of a match or tournament, and with which seeds: the
    one place that says it, for :func:`run_match`, the referee, resuming a results file and
    the statistics.

    The participants (``players``: their names) meet at *tables*: with no more participants
    than seats, one table of all of them; with more, every combination of as many as there are
    seats (``round-robin``), the first participant with every combination of the others
    (``gauntlet``), or, for participants listed in order of strength, every combination of as
    many as there are seats within any run of one more consecutive participants (``ladder``: in
    a two-seat game each meets the next two, so that one Elo scale links them all with few
    lopsided games). A table has as many participants as the game has sides: seats, or teams in a
    team game (tile Canasta: two, each holding both seats of a team, so that a team's partners
    are one participant). Participants fill a table's sides cyclically (fewer participants than
    sides: some hold several).

    Games come in *units* played at one table. With ``duplicate`` (the default) a unit replays
    one deal once per cyclic shift of the seats, so that each participant plays each seat's
    cards once: the deal and chance come from ``derive_seed(seed, "deal", unit)``, the bots of
    game g from ``derive_seed(seed, g)``. Without it a unit is one game with the seed
    ``derive_seed(seed, g)``, seats shifted by one each round when ``rotate``. A last unit
    cut short by ``games`` counts in the per-game statistics but not in the Elo or the SPRT,
    which need whole units.

    With three or more participants meeting at tables of two, every participant is also rated on
    one Elo scale (:func:`kibitz.stats.elo_scale`, from every complete unit), with ``anchor``
    (a participant's label; default the first participant) at 0.
    """

    game: Game
    players: list[str]
    games: int
    seed: int
    rotate: bool = True
    duplicate: bool = True
    schedule: str = "round-robin"
    anchor: str | None = None

    def __post_init__(self) -> None:
        if self.anchor is not None and self.anchor not in self.labels:
            raise OptionError(f"anchor {self.anchor!r} is not one of the players: {', '.join(self.labels)}")
        if len(self.players) < 2:
            raise OptionError(f"a match needs at least 2 players, got {len(self.players)}")
        if self.schedule not in SCHEDULES:
            raise OptionError(f"schedule {self.schedule!r}: expected one of {', '.join(SCHEDULES)}")
        if self.games < 1:
            raise OptionError(f"a match needs at least 1 game, got {self.games}")

    @cached_property
    def labels(self) -> list[str]:
        return bot_labels(self.players)

    @cached_property
    def sides(self) -> int:
        """The sides of a game: its seats, or its teams in a team game."""
        return len(set(self.game.teams))

    @cached_property
    def tables(self) -> list[tuple[int, ...]]:
        """The participants of each table, in the order units visit them."""
        n, size = len(self.players), min(len(self.players), self.sides)
        if self.schedule == "gauntlet":
            return [(0, *others) for others in combinations(range(1, n), size - 1)]
        if self.schedule == "ladder":
            window = min(n, size + 1)
            runs = (combinations(range(start, start + window), size) for start in range(n - window + 1))
            return sorted({table for run in runs for table in run})
        return list(combinations(range(n), size))

    @property
    def unit_games(self) -> int:
        """Games per unit: the participants at a table with duplicate deals, else 1."""
        return min(len(self.players), self.sides) if self.duplicate else 1

    @property
    def units(self) -> int:
        """Units begun: the last may be cut short."""
        return -(-self.games // self.unit_games)

    def unit(self, g: int) -> int:
        return g // self.unit_games

    def unit_indices(self, u: int) -> range:
        return range(u * self.unit_games, (u + 1) * self.unit_games)

    def table(self, g: int) -> tuple[int, ...]:
        return self.tables[self.unit(g) % len(self.tables)]

    def seats(self, g: int) -> list[int]:
        """The player (index into ``players``) at each seat of game ``g``."""
        table = self.table(g)
        if self.duplicate:
            shift = g % self.unit_games
        else:
            shift = self.unit(g) // len(self.tables) if self.rotate else 0
        side = seat_assignment(len(table), self.sides, shift)
        return [table[side[team]] for team in self.game.teams]

    def game_seed(self, g: int) -> int:
        """The seed of game g's deal and chance (shared by a duplicate unit)."""
        return derive_seed(self.seed, "deal", self.unit(g)) if self.duplicate else derive_seed(self.seed, g)

    def bots_seed(self, g: int) -> int | None:
        """The seed of game g's bots, when not the game seed."""
        return derive_seed(self.seed, g) if self.duplicate else None

    def seat_labels(self, g: int) -> list[str]:
        return [self.labels[p] for p in self.seats(g)]

    def mismatch(self, record: GameRecord) -> str | None:
        """Why ``record`` is not game ``record.index`` of this plan, or None if it is."""
        g = record.index
        if g is None:
            return "it has no game index"
        if record.version != RECORD_VERSION:
            return f"it is in record format {record.version}, whose seeds gave other games; start a new results file (kibitz replay still reads this one)"
        if not 0 <= g < self.games:
            return f"it is game {g}, beyond the {self.games} games"
        if record.game != self.game.name or record.options != dict(self.game.options):
            return f"it is {record.game} with options {record.options}"
        if record.seed != self.game_seed(g) or record.bots_seed != self.bots_seed(g):
            return f"game {g} has the seeds {self.game_seed(g)}/{self.bots_seed(g)}, the record {record.seed}/{record.bots_seed}"
        if record.specs != self.seat_labels(g):
            return f"game {g} seats {', '.join(self.seat_labels(g))}, the record {', '.join(record.specs)}"
        return None

    def resume(self, path: str | None, what: str = "match") -> dict[int, GameRecord]:
        """The games of this plan already in the results file ``path`` (see
        :func:`kibitz.records.read_results`: a torn last line is set aside, with a warning)."""
        return {} if path is None else read_results(path, self.mismatch, what).records

    def unit_score(self, records: dict[int, GameRecord], u: int, p: int) -> float:
        """Player p's score in unit u against the others at its table: over the unit's games
        and each opponent q, 1/2 + (share_p - share_q) / 2 (a win share is as in
        :class:`BotStats`). With two players that is simply p's share of the win."""
        teams = self.game.teams
        opponents = [q for q in self.tables[u % len(self.tables)] if q != p]
        values: list[float] = []
        for g in self.unit_indices(u):
            seats = self.seats(g)
            share = {q: _bot_outcome(records[g], seats, q, teams)[0] for q in (p, *opponents)}
            values.extend(0.5 + (share[p] - share[q]) / 2 for q in opponents)
        return math.fsum(values) / len(values)

    def scores(self, records: dict[int, GameRecord], p: int) -> Scores:
        """Player p's unit scores over the complete units in ``records``."""
        units = sorted({self.unit(g) for g in records})
        complete = [u for u in units if all(g in records for g in self.unit_indices(u))]
        mine = [u for u in complete if p in self.tables[u % len(self.tables)]]
        return Scores.of((self.unit_score(records, u, p) for u in mine), self.unit_games)

    def result(self, records: dict[int, GameRecord], sees_everything: Sequence[bool], sprt: SPRTResult | None = None) -> MatchResult:
        """The statistics of the games in ``records`` (each by its index; whole units)."""
        played = sorted(records)
        teams = self.game.teams
        ratings = self._ratings(records) if len(set(teams)) >= 3 and len(self.tables[0]) >= 3 else None
        scale = None
        if len(self.players) >= 3:
            scale = self.elo_scale(records) if len(self.tables[0]) == 2 else self.plackett_luce_scale(records) if ratings else None
        bots = []
        for p, spec in enumerate(self.players):
            mine = [g for g in played if p in self.seats(g)]
            outcomes = [_bot_outcome(records[g], self.seats(g), p, teams) for g in mine]
            faults = sum(1 for g in mine if _forfeiter(records[g], self.seats(g)) == p)
            scores = self.scores(records, p)
            seat_rates: tuple[Estimate | None, ...] = ()
            if len(set(teams)) >= 3:
                seat_rates = tuple(
                    _rate([records[g].returns[s] for g in mine if self.seats(g)[s] == p]) for s in range(self.game.num_players)
                )
            bots.append(
                replace(
                    _bot_stats(self.labels[p], spec, sees_everything[p], outcomes),
                    faults=faults,
                    elo=elo_estimate(scores) if scores.units >= 2 else None,  # one unit has no spread to measure
                    rating=None if ratings is None else ratings[p],
                    scale=None if scale is None else scale[p],
                    seat_win_rates=seat_rates,
                )
            )
        return MatchResult(
            self.game.name,
            dict(self.game.options),
            self.seed,
            len(played),
            bots,
            [records[g] for g in played],
            duplicate=self.duplicate,
            schedule=self.schedule,
            unit_games=self.unit_games,
            baseline=1 / len(set(teams)),
            sprt=sprt,
            anchor=self.labels[self.anchor_index] if scale is not None else None,
        )

    @property
    def anchor_index(self) -> int:
        """The participant the Elo scale is anchored at (``anchor``, or the first)."""
        return 0 if self.anchor is None else self.labels.index(self.anchor)

    def elo_scale(self, records: dict[int, GameRecord]) -> list[ScaleRating] | None:
        """Every participant's rating on one Elo scale from the complete units in ``records``
        (tables of two), the anchor at 0; None before every participant is linked to it."""
        units = sorted({self.unit(g) for g in records})
        complete = [u for u in units if all(g in records for g in self.unit_indices(u))]
        meetings = []
        for u in complete:
            first, second = self.tables[u % len(self.tables)]
            meetings.append(Meeting(first, second, self.unit_score(records, u, first), self.unit_games))
        try:
            return elo_scale(len(self.players), meetings, anchor=self.anchor_index)
        except ValueError:  # not every participant linked to the anchor yet
            return None

    def plackett_luce_scale(self, records: dict[int, GameRecord]) -> list[ScaleRating] | None:
        """Every participant's rating on one Elo scale from the rank orders of the complete units
        in ``records`` (tables of three or more), the anchor at 0: the maximum-likelihood
        Plackett-Luce ratings (:func:`kibitz.stats.plackett_luce_scale`); None before every
        participant is linked to it."""
        units = sorted({self.unit(g) for g in records})
        complete = [[self._placing(records, g) for g in self.unit_indices(u)] for u in units if all(g in records for g in self.unit_indices(u))]
        try:
            return plackett_luce_scale(len(self.players), complete, anchor=self.anchor_index)
        except ValueError:  # not every participant linked to the anchor yet
            return None

    def _ratings(self, records: dict[int, GameRecord]) -> list[Rating]:
        """Plackett-Luce ratings (openskill's online update) from every game's rank order (in
        game order)."""
        return plackett_luce(len(self.players), [self._placing(records, g) for g in sorted(records)])

    def _placing(self, records: dict[int, GameRecord], g: int) -> Placing:
        """Game ``g``'s rank order by participant: a game team's participants share its rank;
        where a participant holds seats of several teams, each participant is ranked by its best
        seat instead."""
        seats, ranks = self.seats(g), records[g].ranks
        by_team: dict[int, set[int]] = {}
        for s, p in enumerate(seats):
            by_team.setdefault(self.game.teams[s], set()).add(p)
        members = list(by_team.values())
        if sum(len(m) for m in members) == len(set(seats)):
            rank_of = {self.game.teams[s]: ranks[s] for s in range(len(seats))}
            return [(sorted(m), float(rank_of[t])) for t, m in by_team.items()]
        best = {p: min(ranks[s] for s in range(len(seats)) if seats[s] == p) for p in set(seats)}
        return [([p], float(rank)) for p, rank in sorted(best.items())]


def _forfeiter(record: GameRecord, seats: list[int]) -> int | None:
    """The player who forfeited the game, if one did."""
    return None if record.adjudication is None else seats[record.adjudication["seat"]]


def _rate(shares: list[float]) -> Estimate | None:
    return wilson_ci(shares) if shares else None


# -- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotStats:
    """One bot's results over a match.

    Per game, a bot that plays several seats (fewer bots than seats) counts as one player:
    its share of the win is the sum over its seats of the seat's return divided by the size
    of the seat's team (partners share one result, so a bot holding both seats of the
    winning team has share 1), its rank and score the mean over its seats. ``wins`` counts
    games it won alone (share 1), ``shared_wins`` games whose win it shared with another bot
    (0 < share < 1). ``win_share`` is the sum of its shares, ``win_rate`` the mean share per
    game (Wilson interval, :func:`wilson_ci`); rank and score intervals are from
    :func:`mean_ci`.

    ``elo`` is its Elo against the others at its tables, from its unit scores
    (:meth:`MatchPlan.unit_score`; with two players the Elo difference between them, from
    pentanomial pairs with duplicate deals in a two-seat game). ``rating`` is its
    Plackett-Luce rating (games of three or more teams, three or more participants at a
    table); ``scale`` its rating on one Elo scale with the other participants, the match's
    anchor at 0 (three or more participants at tables of two: :meth:`MatchPlan.elo_scale`);
    ``seat_win_rates`` its win rate at each seat (games of three or more teams), to
    compare with the baseline 1/teams.
    """

    label: str
    spec: str
    sees_everything: bool
    games: int
    wins: int
    shared_wins: int
    win_share: float
    win_rate: Estimate
    mean_rank: Estimate
    mean_score: Estimate
    faults: int = 0  # games it forfeited (refereed games: crash, timeout, illegal move)
    elo: EloEstimate | None = None
    rating: Rating | None = None
    scale: ScaleRating | None = None
    seat_win_rates: tuple[Estimate | None, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("win_rate", "mean_rank", "mean_score", "elo", "rating", "scale"):
            value = getattr(self, name)
            data[name] = None if value is None else value.to_dict()
        data["seat_win_rates"] = [None if r is None else r.to_dict() for r in self.seat_win_rates]
        return data


@dataclass(frozen=True)
class MatchResult:
    """The result of :func:`run_match` or a refereed tournament: per-bot statistics, and
    every game's record in game order (with its moves only if the match wrote records to a
    file). ``sprt`` is the last look of the SPRT when one ran (its decision stopped the match)."""

    game: str
    options: dict[str, str]
    seed: int
    games: int
    bots: list[BotStats]
    records: list[GameRecord] = field(repr=False)
    duplicate: bool = False
    schedule: str = "round-robin"
    unit_games: int = 1
    baseline: float = 0.5
    sprt: SPRTResult | None = None
    anchor: str | None = None  # the participant at 0 on the Elo scale (``BotStats.scale``), when there is one

    def table(self) -> Table:
        """The per-bot statistics as a rich table; means show their 95 % confidence interval."""
        options = " ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        how = f"duplicate deals ({self.unit_games} seatings of each deal)" if self.duplicate else "seats rotated"
        table = Table(
            title=f"{' '.join(filter(None, [self.game, options]))}: {self.games} games, seed {self.seed}, {how}",
            caption="mean and 95 % confidence interval (win %: Wilson score; rank, score: normal approximation; "
            "Elo: against the others at the table, ± half the 95 % interval; LOS: likelihood of superiority"
            + ("; rating: Plackett-Luce mu ± 2 sigma" if self._ratings else "")
            + (f"; scale: Elo on one scale, {self.anchor} = 0, with the 95 % interval" if self.anchor is not None else "")
            + ")",
            box=box.SIMPLE_HEAD,
            collapse_padding=True,
        )
        table.add_column("bot", min_width=12, overflow="fold")  # a long label wraps, never cut
        faults = any(bot.faults for bot in self.bots)
        headers = ("games", "wins", "shared", "share", "win %", "rank", "score", "Elo", "LOS")
        scale = self.anchor is not None
        optional = [*(["rating"] if self._ratings else []), *(["scale"] if scale else []), *(["faults"] if faults else [])]
        for header in (*headers, *optional):
            table.add_column(header, justify="right", no_wrap=True)
        for bot in self.bots:
            table.add_row(
                f"{bot.label} (sees all)" if bot.sees_everything else bot.label,
                str(bot.games),
                str(bot.wins),
                str(bot.shared_wins),
                f"{bot.win_share:.{SHARE_DIGITS}f}",
                _estimate_cell(bot.win_rate, digits=1, scale=100),
                _estimate_cell(bot.mean_rank, digits=2),
                _estimate_cell(bot.mean_score, digits=2),
                "" if bot.elo is None else f"{bot.elo.elo:+.1f} ±{bot.elo.error:.1f}",
                "" if bot.elo is None else f"{100 * bot.elo.los:.1f}%",
                *([str(bot.rating)] if self._ratings else []),
                *([str(bot.scale or "")] if scale else []),
                *([str(bot.faults)] if faults else []),
            )
        return table

    @property
    def _ratings(self) -> bool:
        return any(bot.rating is not None for bot in self.bots)

    def seat_table(self) -> Table | None:
        """Each bot's win % by seat against the baseline 1/teams (games of three or more
        teams; None otherwise): ``+`` marks a rate whose 95 % interval lies above the
        baseline, ``-`` one below it."""
        if not any(bot.seat_win_rates for bot in self.bots):
            return None
        table = Table(title=f"win % by seat (baseline {100 * self.baseline:.1f} %)", box=box.SIMPLE_HEAD, collapse_padding=True)
        table.add_column("bot", min_width=12, overflow="fold")
        seats = len(self.bots[0].seat_win_rates)
        for seat in range(seats):
            table.add_column(f"seat {seat}", justify="right", no_wrap=True)
        for bot in self.bots:
            table.add_row(bot.label, *(_seat_cell(rate, self.baseline) for rate in bot.seat_win_rates))
        return table

    def summary(self) -> str:
        """The head-to-head line of a two-player match (with the SPRT's verdict), else ""."""
        if len(self.bots) != 2 or self.bots[0].elo is None:
            return ""
        first, second = self.bots
        elo = first.elo
        assert elo is not None
        unit = "pairs" if self.unit_games == 2 else f"units of {self.unit_games} games" if self.unit_games > 2 else "games"
        line = f"Elo difference {first.label} - {second.label}: {elo} over {elo.units} {unit}"
        return line + (f"; {self.sprt}" if self.sprt is not None else "")

    def to_dict(self) -> dict[str, Any]:
        """The statistics as plain data (JSON-ready); the records are left out."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "games": self.games,
            "duplicate": self.duplicate,
            "schedule": self.schedule,
            "unit_games": self.unit_games,
            "bots": [bot.to_dict() for bot in self.bots],
            "sprt": None if self.sprt is None else asdict(self.sprt),
            "anchor": self.anchor,
        }


def _seat_cell(rate: Estimate | None, baseline: float) -> str:
    if rate is None:
        return ""
    mark = "+" if rate.low is not None and rate.low > baseline else "-" if rate.high is not None and rate.high < baseline else " "
    return f"{100 * rate.mean:.1f}{mark}"


# -- running a plan ---------------------------------------------------------------------------


class Scoreboard:
    """A plan's records as games end, in any order, and the SPRT looked at after each
    complete unit in unit order (so that the decision, and the games it counts, do not
    depend on the order games finished in). Once decided, ``limit`` is the number of games
    that count."""

    def __init__(self, plan: MatchPlan, records: dict[int, GameRecord], sprt: SPRT | None = None) -> None:
        if sprt is not None and len(plan.players) != 2:
            raise OptionError(f"an SPRT compares two players; this match has {len(plan.players)}")
        self.plan, self.records, self.sprt = plan, records, sprt
        self.limit = plan.games
        self.sprt_result: SPRTResult | None = None
        self._scores = Scores((), plan.unit_games)
        self._next_unit = 0
        self._look()

    @property
    def decided(self) -> bool:
        return self.sprt_result is not None and self.sprt_result.decision is not None

    def todo(self) -> list[int]:
        """The games still to play, in order."""
        return [] if self.decided else [g for g in range(self.limit) if g not in self.records]

    def add(self, record: GameRecord) -> None:
        assert record.index is not None
        self.records[record.index] = record
        self._look()

    def counted(self) -> dict[int, GameRecord]:
        return {g: r for g, r in self.records.items() if g < self.limit}

    def _look(self) -> None:
        plan = self.plan
        while not self.decided and self._next_unit < plan.units:
            u = self._next_unit
            if not all(g in self.records for g in plan.unit_indices(u)):
                return
            if 0 in plan.tables[u % len(plan.tables)]:
                self._scores += Scores.of([plan.unit_score(self.records, u, 0)], plan.unit_games)
                if self.sprt is not None:
                    self.sprt_result = self.sprt.test(self._scores)
            self._next_unit += 1
            if self.decided:
                self.limit = self._next_unit * plan.unit_games

    def status(self) -> str:
        """For the progress bar: the first player's score and Elo over the units complete so
        far (in unit order), and the LLR when an SPRT runs."""
        if self._scores.units == 0:
            return ""
        parts = [f"{self.plan.labels[0]}: score {100 * self._scores.mean_and_variance()[0]:.1f} %"]
        if self._scores.units >= 2:
            elo = elo_estimate(self._scores)
            parts.append(f"Elo {elo.elo:+.0f} ±{elo.error:.0f}" if math.isfinite(elo.error) else f"Elo {elo.elo:+.0f}")
        if self.sprt_result is not None:
            parts.append(f"LLR {self.sprt_result.llr:+.2f}")
        return ", ".join(parts)


Games = Callable[[list[int]], AbstractContextManager[Iterator[GameRecord]]]
"""Plays the given games of a plan (in any order, any number at once) and gives their records
as they end."""


def run_plan(
    plan: MatchPlan,
    play: Games,
    sees_everything: Sequence[bool],
    *,
    record_path: str | None = None,
    sprt: SPRT | None = None,
    progress: bool = False,
    what: str = "match",
) -> MatchResult:
    """Plays the games of ``plan`` not yet in the results file ``record_path`` with
    ``play`` and returns the statistics of all of them: the driver of :func:`run_match` and
    the referee's tournaments. Records are appended to the file in game order; with ``sprt``
    play stops at its decision, and games after the deciding unit are neither written nor counted."""
    board = Scoreboard(plan, plan.resume(record_path, what), sprt)
    todo = board.todo()
    if todo:
        with play(todo) as finished, progress_bar(progress, len(todo)) as advance, OrderedWriter(record_path, todo) as writer:
            for record in finished:
                board.add(record)
                writer.limit = board.limit
                writer.add(record)
                advance(board.status)
                if board.decided:
                    break
    return plan.result(board.counted(), sees_everything, board.sprt_result)


@dataclass(frozen=True)
class _GameTask:
    """One game of a match, as sent to a worker process: its players by index."""

    index: int
    game: str
    options: dict[str, str]
    seats: list[int]
    labels: list[str]
    seed: int
    bots_seed: int | None
    record: bool


def _play_task(participants: Sequence[Participant], task: _GameTask) -> GameRecord:
    game = Game(task.game, **task.options)
    base = task.seed if task.bots_seed is None else task.bots_seed
    bots = [participants[p].make(derive_seed(base, "bot", seat)) for seat, p in enumerate(task.seats)]
    record = play_bots(game, bots, task.seed, labels=task.labels, record=task.record, bots_seed=task.bots_seed)
    return replace(record, index=task.index)


def _finished_games(
    participants: list[Participant], tasks: list[_GameTask], processes: int, backend: Backend
) -> AbstractContextManager[Iterator[GameRecord]]:
    """Plays the tasks; gives their records in order of completion (:func:`finished_jobs`)."""
    return finished_jobs(functools.partial(_play_task, participants), tasks, processes, backend)


Job = TypeVar("Job")
Done = TypeVar("Done")
_WORKER_FUNCTION: list[Callable[[Any], Any]] = []  # set in each worker process by _install


def _install(function: Callable[[Any], Any]) -> None:
    _WORKER_FUNCTION[:] = [function]


def _run_installed(job: Any) -> Any:
    return _WORKER_FUNCTION[0](job)


@contextmanager
def finished_jobs(
    function: Callable[[Job], Done], jobs: Sequence[Job], processes: int, backend: Backend
) -> Iterator[Iterator[Done]]:
    """Runs ``function(job)`` for every job and gives the results in order of completion: in
    this process (``processes`` 1), in local worker processes, or as Ray tasks (``backend``).
    Games of a match and shards of self-play data (:mod:`kibitz.selfplay`) run through it.

    Entering starts the worker processes at once, so enter this before starting any thread:
    fork (the default start method on Linux) must not copy a process that runs other threads.
    Forked workers inherit ``function``, so that lambdas and local classes can play too.
    """
    if backend.name == "ray":
        with backend.games(function, jobs) as finished:
            yield finished
        return
    if processes == 1:
        yield (function(job) for job in jobs)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = ProcessPoolExecutor(max_workers=processes, mp_context=context, initializer=_install, initargs=(function,))
    try:
        futures = [pool.submit(_run_installed, job) for job in jobs]
        yield (future.result() for future in as_completed(futures))
    finally:
        pool.shutdown(cancel_futures=True)


BACKENDS = ("local", "ray")


@dataclass(frozen=True)
class Backend:
    """Where the games of a match run: ``local`` worker processes (the default), or ``ray``:
    tasks on a Ray cluster, joined at ``address`` (``auto``, ``ray://host:10001`` …) or, with
    no address, a Ray instance started on this machine. Ray is an optional extra
    (``pip install 'kibitz[ray]'``); every node needs kibitz installed. Games are seeded
    alike on both, so the same seeds give the same results whichever ran them."""

    name: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.name not in BACKENDS:
            raise OptionError(f"backend {self.name!r}: expected one of {', '.join(BACKENDS)}")
        if self.address is not None and self.name != "ray":
            raise OptionError("an address is for the ray backend")

    @contextmanager
    def games(self, play: Callable[[Job], Done], jobs: Sequence[Job]) -> Iterator[Iterator[Done]]:
        """Runs ``play(job)`` for every job as Ray tasks (``play`` is sent once, with what it
        refers to, and the plug-ins :func:`kibitz.plugins.allow` allowed here are allowed there
        too); gives the results in order of completion and cancels what is left on exit."""
        ray = self._ray()
        remote = ray.remote(_allowing(plugins.allowed_by_hand(), play))
        pending = [remote.remote(job) for job in jobs]

        def finished() -> Iterator[Done]:
            nonlocal pending
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])

        try:
            yield finished()
        finally:
            for ref in pending:
                ray.cancel(ref)

    def _ray(self) -> Any:
        """Ray, joined to the cluster: an OptionError naming what is wrong when Ray is missing or
        does not import, when a ``ray://`` address lacks Ray Client, or when the cluster cannot be
        reached."""
        try:
            import ray
        except ModuleNotFoundError as err:
            if err.name not in (None, "ray"):  # Ray is there, but something it needs is not
                raise OptionError(f"the ray backend: Ray does not import, it needs the module {err.name!r} ({err}); reinstall it: pip install 'kibitz[ray]'") from None
            raise OptionError("the ray backend needs Ray: pip install 'kibitz[ray]'") from None
        except Exception as err:  # an install that is broken: a failed import must not end in a traceback
            raise OptionError(f"the ray backend: Ray is installed but does not import ({type(err).__name__}: {err}); reinstall it: pip install 'kibitz[ray]'") from None
        if self.address is not None:
            _check_ray_address(self.address)
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
            except Exception as err:
                where = f"the Ray cluster at {self.address!r}" if self.address else "a local Ray instance"
                raise OptionError(f"the ray backend cannot start or join {where}: {type(err).__name__}: {err}") from None
        return ray


RAY_CLIENT_PREFIX = "ray://"
RAY_CONNECT_S = 5.0  # how long the backend waits for a cluster's port to answer


def _check_ray_address(address: str) -> None:
    """Refuses, with an OptionError saying why, a Ray address that cannot work: ``ray://``
    without Ray Client (``ray[client]``), or a ``host:port`` that does not accept a connection
    within :data:`RAY_CONNECT_S` (Ray itself would retry for minutes). ``auto`` and addresses
    without a port are left to Ray."""
    if address.startswith(RAY_CLIENT_PREFIX) and importlib.util.find_spec("grpc") is None:  # what ray[client] adds to Ray
        raise OptionError(f"--address {address}: a ray:// address needs Ray Client: pip install 'ray[client]'")
    host, colon, port = address.removeprefix(RAY_CLIENT_PREFIX).rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_S).close()
    except (OSError, ValueError, OverflowError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err) or type(err).__name__
        raise OptionError(
            f"--address {address}: the Ray cluster cannot be reached ({reason}); start one there with `ray start --head`, "
            "or leave out --address to start Ray on this machine"
        ) from None


def _allowing(modules: list[str], play: Callable[[Job], Done]) -> Callable[[Job], Done]:
    """``play``, allowing the plug-in ``modules`` first (in a Ray worker, which has its own allow-list);
    a plain function, which ray.remote takes (a partial it does not)."""

    def allowed_play(job: Job) -> Done:
        plugins.allow(*modules)
        return play(job)

    return allowed_play


LOCAL = Backend()
"""Local worker processes: the default backend."""


def run_match(
    game: Game,
    specs: Sequence[PlayerLike],
    games: int,
    seed: int,
    processes: int | None = None,
    rotate: bool = True,
    progress: bool = False,
    record_path: str | None = None,
    *,
    duplicate: bool = True,
    schedule: str = "round-robin",
    sprt: SPRT | None = None,
    backend: Backend = LOCAL,
    anchor: str | None = None,
) -> MatchResult:
    """Plays ``games`` games between two or more players: bot specs, :class:`SearchParams`,
    :class:`Bot` objects, factories ``seed -> Bot`` or :class:`Participant` (for a name).

    The :class:`MatchPlan` says who plays where: more players than seats meet at tables
    (``schedule`` round-robin, gauntlet or ladder); with ``duplicate`` (default) each deal is replayed
    with the seats shifted so that every player plays every seat's cards once, else seats
    rotate from game to game. Games run in ``processes``
    worker processes (default: one per CPU; 1 plays in this process); the result does not
    depend on that number, nor on the ``backend`` (:class:`Backend`: local processes, or a Ray
    cluster, where ``processes`` does not apply). ``progress`` shows a progress bar on stderr.

    With ``sprt`` (two players) the match stops as soon as the test decides whether the first
    player is ``elo1`` better than the second or no better than ``elo0``; ``games`` is then the
    most it plays. With three or more players at tables of two, every player is rated on one
    Elo scale with ``anchor`` (a player's label; default the first) at 0.

    With ``record_path`` each game's record is appended to that file as a JSON line, in game
    order, and a match started again with the same file resumes: it plays only the games not
    in the file (the statistics cover all of them). A file of another match (other game,
    options, players, seed, or more games than ``games``) is refused with OptionError.
    """
    if processes is not None and processes < 1:
        raise OptionError(f"processes must be >= 1, got {processes}")
    participants = [Participant.of(player) for player in specs]
    # Building each bot once here reports a bad spec before any game starts.
    sees_everything = [getattr(p.make(0), "sees_everything", False) for p in participants]
    plan = MatchPlan(game, [p.label for p in participants], games, seed, rotate, duplicate, schedule, anchor)

    def play(todo: list[int]) -> AbstractContextManager[Iterator[GameRecord]]:
        tasks = [
            _GameTask(g, game.name, dict(game.options), plan.seats(g), plan.seat_labels(g), plan.game_seed(g), plan.bots_seed(g), record_path is not None)
            for g in todo
        ]
        return _finished_games(participants, tasks, max(1, min(processes or os.cpu_count() or 1, len(todo))), backend)

    return run_plan(plan, play, sees_everything, record_path=record_path, sprt=sprt, progress=progress)


def _bot_outcome(record: GameRecord, assignment: list[int], bot: int, teams: list[int]) -> tuple[float, float, float]:
    """The bot's (share of the win, mean rank, mean score) in one game."""
    seats = [seat for seat, b in enumerate(assignment) if b == bot]
    share = math.fsum(record.returns[s] / teams.count(teams[s]) for s in seats)
    rank = statistics.fmean(record.ranks[s] for s in seats)
    score = statistics.fmean(record.scores[s] for s in seats)
    return share, rank, score


def _bot_stats(label: str, spec: str, sees_everything: bool, outcomes: list[tuple[float, float, float]]) -> BotStats:
    if not outcomes:  # a player whose tables were not reached (an SPRT decided first)
        nothing = Estimate(math.nan, None, None)
        return BotStats(label, spec, sees_everything, 0, 0, 0, 0.0, nothing, nothing, nothing)
    shares = [share for share, _, _ in outcomes]
    return BotStats(
        label=label,
        spec=spec,
        sees_everything=sees_everything,
        games=len(outcomes),
        wins=sum(1 for share in shares if math.isclose(share, 1.0)),
        shared_wins=sum(1 for share in shares if 0.0 < share and not math.isclose(share, 1.0)),
        win_share=math.fsum(shares),
        win_rate=wilson_ci(shares),
        mean_rank=mean_ci([rank for _, rank, _ in outcomes]),
        mean_score=mean_ci([score for _, _, score in outcomes]),
    )


class OrderedWriter:
    """Appends records to a results file in the order of ``order`` (game indices), although
    games finish in any order, and none at or beyond ``limit``; does nothing without a path."""

    def __init__(self, path: str | None, order: list[int]) -> None:
        self._path, self._order = path, order
        self._waiting: dict[int, GameRecord] = {}
        self._position = 0
        self.limit = math.inf

    def __enter__(self) -> OrderedWriter:
        self._appender = appender(self._path)
        self._append = self._appender.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._appender.__exit__(*exc)

    def add(self, record: GameRecord) -> None:
        assert record.index is not None
        self._waiting[record.index] = record
        while self._position < len(self._order):
            index = self._order[self._position]
            if index >= self.limit or index not in self._waiting:
                return
            self._append(self._waiting.pop(index))
            self._position += 1


def status_progress() -> Progress:
    """A rich progress display on stderr: the bar, percentage and time left, steps done of all,
    and each task's ``status`` field (match and tuning runs share it)."""
    columns = (*Progress.get_default_columns(), MofNCompleteColumn(), TextColumn("{task.fields[status]}"))
    return Progress(*columns, console=Console(stderr=True))


@contextmanager
def progress_bar(enabled: bool, total: int, what: str = "games") -> Iterator[Callable[[Callable[[], str]], None]]:
    """A function that advances a rich progress bar on stderr by one step (games done, the
    percentage, the time left), showing the text its argument returns, such as the score, Elo
    and LLR so far; or a function that does nothing (and never asks for the text)."""
    if not enabled:

        def nothing(status: Callable[[], str]) -> None:
            pass

        yield nothing
        return
    with status_progress() as bar:
        task = bar.add_task(what, total=total, status="")

        def advance(status: Callable[[], str]) -> None:
            bar.update(task, advance=1, status=status())

        yield advance
