"""Games between bots: one game (:func:`play_game`), a match of many games run in parallel
(:func:`run_match`, resumable from its results file) with its plan (:class:`MatchPlan`)
and statistics, and exact replay of a game record (:mod:`kibitz.records`).

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

import hashlib
import math
import os
import statistics
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any, cast

from rich import box
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from kibitz.bots import Bot, make_bot
from kibitz.errors import IllegalMoveError, NotationError, OptionError
from kibitz.game import CHANCE, Game, State
from kibitz.records import GameRecord, appender, read_results

# z of a two-sided 95 % interval of the normal distribution.
Z_95: float = statistics.NormalDist().inv_cdf(0.975)

SHARE_DIGITS = 2  # a win share is a sum of fractions such as 1/3
MoveHook = Callable[[State, int], None]
"""Called with the state and the action about to be applied (decisions and chance outcomes)."""


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
) -> GameRecord:
    """Plays one game between built bots, seat i played by ``bots[i]``.

    The deal and the chance outcomes come from ``seed``; the bots bring their own seeds.
    Each bot gets its seat's :class:`View`, or the full state if it ``sees_everything``.
    ``labels`` name the bots in the record and in errors (default: the bots' names).
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
        state,
        seed,
        lambda s, seat: bot_action(s, seat, bots[seat], names[seat]),
        on_move,
        (actions, moves) if record else None,
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
    )


def play_out(
    state: State,
    seed: int,
    decide: Callable[[State, int], int],
    on_move: MoveHook | None = None,
    record: tuple[list[int], list[str]] | None = None,
) -> None:
    """Plays ``state`` to the end: chance outcome k drawn with ``derive_seed(seed, "chance",
    k)``, each decision ``decide(state, seat)``. Every action is shown to ``on_move`` and
    appended to ``record`` (ids, texts) before it is applied, so that an exception raised by
    ``decide`` leaves the game so far recorded."""
    step = 0
    while not state.is_terminal():
        seat = state.current_player
        action = state.sample_chance(derive_seed(seed, "chance", step)) if seat == CHANCE else decide(state, seat)
        if on_move is not None:
            on_move(state, action)
        if record is not None:
            record[0].append(action)
            record[1].append(state.move_to_string(action))
        state.apply(action)
        step += 1


def bot_action(state: State, seat: int, bot: Bot, label: str) -> int:
    """The legal action id the bot at ``seat`` chooses: it gets the seat's view (the full
    state if it ``sees_everything``); an illegal or unreadable move raises IllegalMoveError or
    NotationError naming the bot (``label``), the seat and the move."""
    # Only a bot that declares sees_everything (the perfect-information baseline) gets the full state.
    move = cast(Any, bot).act(state) if getattr(bot, "sees_everything", False) else bot.act(state.view(seat))
    try:
        action = state.parse_move(move)
    except NotationError as err:
        raise NotationError(f"bot {label!r} at seat {seat} played {move!r}: {err}") from None
    if action not in state.legal_actions():
        legal = " ".join(state.legal_moves())
        raise IllegalMoveError(f"bot {label!r} at seat {seat} played {move!r}, which is illegal here; legal: {legal}")
    return action


def play_game(game: Game, specs: list[str], seed: int, record: bool = True) -> GameRecord:
    """Plays one game, seat i played by the bot ``specs[i]``; everything random comes from
    ``seed``. With ``record=False`` the record keeps only the result, not the moves."""
    return play_bots(game, seat_bots(specs, seed), seed, labels=specs, record=record)


def replay(record: GameRecord) -> State:
    """Rebuilds a recorded game and returns its final state.

    Raises ValueError (IllegalMoveError, NotationError and OptionError are ValueErrors too)
    if a recorded action or its text does not fit, if the game does not end with the last
    action, or if the final result differs from the recorded one.
    """
    state = initial_state(Game(record.game, **record.options), record.seed)
    if len(record.moves) != len(record.actions):
        raise ValueError(f"record has {len(record.actions)} actions but {len(record.moves)} moves")
    for step, (action, move) in enumerate(zip(record.actions, record.moves)):
        if state.is_terminal():
            raise ValueError(f"the game ended after {step} of the {len(record.actions)} recorded actions")
        if state.move_to_string(action) != move:
            raise ValueError(f"action {step} is {action} ({state.move_to_string(action)!r}), the record says {move!r}")
        try:
            state.apply(action)
        except (IllegalMoveError, NotationError) as err:
            raise type(err)(f"recorded action {step} ({move!r}): {err}") from None
    if record.adjudication is not None:  # a forfeit: the game stopped where the seat failed
        seat = record.adjudication["seat"]
        if record.adjudication.get("phase") == "start":
            if record.actions:
                raise ValueError(f"seat {seat} forfeited at start-up, but the record has {len(record.actions)} actions")
        elif state.is_terminal() or state.current_player != seat:
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


@dataclass(frozen=True)
class Estimate:
    """A sample mean and its 95 % confidence interval ``low..high`` (None with fewer than
    two samples, where the interval is undefined)."""

    mean: float
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, float | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def _estimate_cell(estimate: Estimate, digits: int, scale: float = 1.0) -> str:
    """``mean low..high``, all times ``scale``; compact so that a table fits 80 columns, and
    unambiguous with negative numbers (``-2.62 -3.57..-1.67``)."""
    mean = f"{estimate.mean * scale:.{digits}f}"
    if estimate.low is None or estimate.high is None:
        return mean
    return f"{mean} {estimate.low * scale:.{digits}f}..{estimate.high * scale:.{digits}f}"


def standard_error(values: Sequence[float]) -> float:
    """The standard error of the mean: sample standard deviation (n - 1) over sqrt(n).
    Needs at least two values."""
    if len(values) < 2:
        raise ValueError(f"the standard error needs at least 2 values, got {len(values)}")
    return statistics.stdev(values) / math.sqrt(len(values))


def mean_ci(values: Sequence[float], z: float = Z_95) -> Estimate:
    """The mean of ``values`` with a normal-approximation confidence interval:
    mean ± z · standard error (z = 1.96 for 95 %). Used for ranks and scores."""
    if not values:
        raise ValueError("the mean of no values is undefined")
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return Estimate(mean, None, None)
    half_width = z * standard_error(values)
    return Estimate(mean, mean - half_width, mean + half_width)


def wilson_ci(shares: Sequence[float], z: float = Z_95) -> Estimate:
    """The mean win share with a Wilson score interval, treating the summed share as the
    number of successes in ``len(shares)`` trials (a shared win counts its fraction).

    Unlike the normal approximation it stays inside [0, 1] and does not collapse to zero
    width when every game ends the same way (10 wins of 10 gives 0.72..1.00).
    """
    if not shares:
        raise ValueError("the mean of no values is undefined")
    n = len(shares)
    p = math.fsum(shares) / n
    if n < 2:
        return Estimate(p, None, None)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half_width = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Estimate(p, max(0.0, centre - half_width), min(1.0, centre + half_width))


# -- matches ----------------------------------------------------------------------------------


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
class BotStats:
    """One bot's results over a match.

    Per game, a bot that plays several seats (fewer bots than seats) counts as one player:
    its share of the win is the sum over its seats of the seat's return divided by the size
    of the seat's team (partners share one result, so a bot holding both seats of the
    winning team has share 1), its rank and score the mean over its seats. ``wins`` counts games it won alone (share 1), ``shared_wins``
    games whose win it shared with another bot (0 < share < 1). ``win_share`` is the sum
    of its shares, ``win_rate`` the mean share per game (Wilson interval, :func:`wilson_ci`); rank
    and score intervals are from :func:`mean_ci`.
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

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("win_rate", "mean_rank", "mean_score"):
            data[name] = getattr(self, name).to_dict()
        return data


@dataclass(frozen=True)
class MatchResult:
    """The result of :func:`run_match`: per-bot statistics, and every game's record in game
    order (with its moves only if the match wrote records to a file)."""

    game: str
    options: dict[str, str]
    seed: int
    games: int
    bots: list[BotStats]
    records: list[GameRecord] = field(repr=False)

    def table(self) -> Table:
        """The per-bot statistics as a rich table; means show the half-width of their 95 %
        confidence interval."""
        options = " ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        table = Table(
            title=f"{' '.join(filter(None, [self.game, options]))}: {self.games} games, seed {self.seed}",
            caption="mean and 95 % confidence interval (win %: Wilson score; rank, score: normal approximation)",
            box=box.SIMPLE_HEAD,
            collapse_padding=True,
        )
        table.add_column("bot", min_width=12, overflow="fold")  # a long label wraps, never cut
        faults = any(bot.faults for bot in self.bots)
        for header in ("games", "wins", "shared", "share", "win %", "rank", "score", *(["faults"] if faults else [])):
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
                *([str(bot.faults)] if faults else []),
            )
        return table

    def to_dict(self) -> dict[str, Any]:
        """The statistics as plain data (JSON-ready); the records are left out."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "games": self.games,
            "bots": [bot.to_dict() for bot in self.bots],
        }


@dataclass(frozen=True)
class MatchPlan:
    """Who plays each seat of each game of a match or tournament, and with which seed: the
    one place that says it, for :func:`run_match`, the referee, resuming a results file and
    the statistics.

    Game g has the seed ``derive_seed(seed, g)``; the players (bot specs, or the referee's
    ``engine:<command>``) fill the seats as :func:`seat_assignment` says, and are named in
    records and tables by their labels (:func:`bot_labels`).
    """

    game: Game
    players: list[str]
    games: int
    seed: int
    rotate: bool = True

    @cached_property
    def labels(self) -> list[str]:
        return bot_labels(self.players)

    def seats(self, g: int) -> list[int]:
        """The player (index into ``players``) at each seat of game ``g``."""
        return seat_assignment(len(self.players), self.game.num_players, g, self.rotate)

    def game_seed(self, g: int) -> int:
        return derive_seed(self.seed, g)

    def seat_labels(self, g: int) -> list[str]:
        return [self.labels[p] for p in self.seats(g)]

    def mismatch(self, record: GameRecord) -> str | None:
        """Why ``record`` is not game ``record.index`` of this plan, or None if it is."""
        g = record.index
        if g is None:
            return "it has no game index"
        if not 0 <= g < self.games:
            return f"it is game {g}, beyond the {self.games} games"
        if record.game != self.game.name or record.options != dict(self.game.options):
            return f"it is {record.game} with options {record.options}"
        if record.seed != self.game_seed(g):
            return f"game {g} has the seed {self.game_seed(g)}, the record {record.seed}"
        if record.specs != self.seat_labels(g):
            return f"game {g} seats {', '.join(self.seat_labels(g))}, the record {', '.join(record.specs)}"
        return None

    def resume(self, path: str | None, what: str = "match") -> dict[int, GameRecord]:
        """The games of this plan already in the results file ``path`` (see
        :func:`kibitz.records.read_results`: a torn last line is set aside, with a warning)."""
        return {} if path is None else read_results(path, self.mismatch, what).records

    def result(self, records: dict[int, GameRecord], sees_everything: Sequence[bool]) -> MatchResult:
        """The statistics of every game of the plan (``records`` holds each by its index)."""
        ordered = [records[g] for g in range(self.games)]
        teams = self.game.teams
        bots = []
        for p, spec in enumerate(self.players):
            outcomes = [_bot_outcome(r, self.seats(g), p, teams) for g, r in enumerate(ordered)]
            faults = sum(1 for g, r in enumerate(ordered) if r.adjudication is not None and self.seats(g)[r.adjudication["seat"]] == p)
            bots.append(replace(_bot_stats(self.labels[p], spec, sees_everything[p], outcomes), faults=faults))
        return MatchResult(self.game.name, dict(self.game.options), self.seed, self.games, bots, ordered)


@dataclass(frozen=True)
class _GameTask:
    """One game of a match, as sent to a worker process."""

    index: int
    game: str
    options: dict[str, str]
    specs: list[str]
    labels: list[str]
    seed: int
    record: bool


def _play_task(task: _GameTask) -> tuple[int, GameRecord]:
    game = Game(task.game, **task.options)
    record = play_bots(game, seat_bots(task.specs, task.seed), task.seed, labels=task.labels, record=task.record)
    return task.index, replace(record, index=task.index)


@contextmanager
def _finished_games(tasks: list[_GameTask], processes: int) -> Iterator[Iterator[tuple[int, GameRecord]]]:
    """Plays the tasks; gives their (game index, record) pairs in order of completion.

    Entering starts the worker processes at once, so enter this before starting any thread:
    fork (the default start method on Linux) must not copy a process that runs other threads.
    """
    if processes == 1:
        yield map(_play_task, tasks)
        return
    pool = ProcessPoolExecutor(max_workers=processes)
    try:
        futures = [pool.submit(_play_task, task) for task in tasks]
        yield (future.result() for future in as_completed(futures))
    finally:
        pool.shutdown(cancel_futures=True)


def run_match(
    game: Game,
    specs: list[str],
    games: int,
    seed: int,
    processes: int | None = None,
    rotate: bool = True,
    progress: bool = False,
    record_path: str | None = None,
) -> MatchResult:
    """Plays ``games`` games between the bots ``specs`` (2 to game.num_players of them).

    Seats are filled by :func:`seat_assignment`; with ``rotate`` and a number of games that
    is a multiple of ``len(specs)`` every bot plays every seat equally often. Game g uses the
    seed ``derive_seed(seed, g)`` (see :class:`MatchPlan`). Games run in ``processes`` worker
    processes (default: one per CPU; 1 plays in this process); the result does not depend on
    that number. ``progress`` shows a progress bar on stderr.

    With ``record_path`` each game's record is appended to that file as a JSON line, in game
    order, and a match started again with the same file resumes: it plays only the games not
    in the file (the statistics cover all of them). A file of another match (other game,
    options, bots, seed, or more games than ``games``) is refused with OptionError.
    """
    if not 2 <= len(specs) <= game.num_players:
        raise OptionError(
            f"{game.name} with {game.num_players} players: a match needs 2 to {game.num_players} bots, got {len(specs)}"
        )
    if games < 1:
        raise OptionError(f"a match needs at least 1 game, got {games}")
    if processes is not None and processes < 1:
        raise OptionError(f"processes must be >= 1, got {processes}")
    # Building each bot once here reports a bad spec before any game starts.
    sees_everything = [getattr(make_bot(spec), "sees_everything", False) for spec in specs]
    plan = MatchPlan(game, list(specs), games, seed, rotate)
    records = plan.resume(record_path)
    todo = [g for g in range(games) if g not in records]
    processes = max(1, min(processes or os.cpu_count() or 1, len(todo)))
    tasks = [
        _GameTask(g, game.name, dict(game.options), [specs[p] for p in plan.seats(g)], plan.seat_labels(g), plan.game_seed(g), record_path is not None)
        for g in todo
    ]
    with (
        _finished_games(tasks, processes) as finished,
        progress_bar(progress, len(todo)) as advance,
        _ordered_writer(record_path, todo) as write,
    ):
        for index, record in finished:
            records[index] = record
            write(index, record)
            advance()
    return plan.result(records, sees_everything)


def _bot_outcome(record: GameRecord, assignment: list[int], bot: int, teams: list[int]) -> tuple[float, float, float]:
    """The bot's (share of the win, mean rank, mean score) in one game."""
    seats = [seat for seat, b in enumerate(assignment) if b == bot]
    share = math.fsum(record.returns[s] / teams.count(teams[s]) for s in seats)
    rank = statistics.fmean(record.ranks[s] for s in seats)
    score = statistics.fmean(record.scores[s] for s in seats)
    return share, rank, score


def _bot_stats(label: str, spec: str, sees_everything: bool, outcomes: list[tuple[float, float, float]]) -> BotStats:
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


@contextmanager
def _ordered_writer(path: str | None, order: list[int]) -> Iterator[Callable[[int, GameRecord], None]]:
    """A function that appends records to a results file in the order of ``order`` (game
    indices), although games finish in any order; it ignores them without a path."""
    waiting: dict[int, GameRecord] = {}
    position = 0
    with appender(path) as append:

        def add(index: int, record: GameRecord) -> None:
            nonlocal position
            waiting[index] = record
            while position < len(order) and order[position] in waiting:
                append(waiting.pop(order[position]))
                position += 1

        yield add


@contextmanager
def progress_bar(enabled: bool, total: int) -> Iterator[Callable[[], None]]:
    """A function that advances a rich progress bar on stderr (or does nothing)."""
    if not enabled:
        yield lambda: None
        return
    with Progress(console=Console(stderr=True)) as bar:
        task = bar.add_task("games", total=total)
        yield lambda: bar.advance(task)
