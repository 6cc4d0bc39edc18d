"""The referee: games between engine processes and built-in bots over the text protocol.

The referee holds the true state and tells each seat only its own view (``position view``,
or ``observe`` lines with ``incremental``). An engine seat gets ``movetime`` milliseconds
per decision, or plays on a clock (:class:`TimeControl`: time per game plus an increment per
decision, sent as ``go s<k>time … s<k>inc …``), and must answer within its time plus
``margin``; a seat that crashes, hangs, runs out of time, answers with an illegal move or
sends a line that is not protocol loses the game at once (its team loses in team games), the
event is recorded, and the tournament goes on with a fresh process for that engine.

The games are planned by :class:`kibitz.match.MatchPlan` (tables of a round robin or
gauntlet, duplicate deals) and run by :func:`kibitz.match.run_plan`, ``concurrency`` at a
time, each concurrent game with its own engine processes. Each finished game is appended to
a JSON-lines results file, in game order: the game record
(:class:`kibitz.records.GameRecord`) with the game's index and the adjudication, if any. A
tournament started again with the same file plays only the games that are not in it; with an
SPRT it stops once the test decides.

>>> from kibitz.referee import Tournament
>>> t = Tournament(Game("just4fun_colours"), ["greedy", "random"], games=2, seed=1)
>>> len(t.run().records)
2
"""

from __future__ import annotations

import queue
import re
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any

from kibitz.bots import Bot
from kibitz.errors import NotationError, OptionError
from kibitz.game import Game, State
from kibitz.match import (
    LOCAL,
    Backend,
    MatchPlan,
    MatchResult,
    Participant,
    PlayerLike,
    act_on_state,
    derive_seed,
    initial_state,
    play_out,
    run_plan,
)
from kibitz.params import find_parameter
from kibitz.records import GameRecord
from kibitz.stats import SPRT

ENGINE_PREFIX = "engine:"  # a player spec naming an engine command instead of a built-in bot
HANDSHAKE_S = 20.0  # time for an engine to start and answer kgi / isready
NOT_UTF8 = re.compile("[\udc80-\udcff]")  # bytes that are not UTF-8, as surrogateescape decodes them
REPLY_WORDS = {"id", "option", "kgiok", "readyok", "info", "bestmove", "response", "legal", "perft"}


class SeatFault(Exception):
    """A seat broke the rules of the protocol or the game; the message says how."""


def is_engine(spec: str) -> bool:
    return spec.startswith(ENGINE_PREFIX)


@dataclass(frozen=True)
class EnginePlayer:
    """An engine participant: its command, the name it is shown by (default
    ``engine:<command>``) and the options set on it (``setoption name K value V``) after
    each start."""

    command: str
    name: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name or f"{ENGINE_PREFIX}{self.command}"


CUTECHESS_KEYS = ("cmd", "name")  # and option.<Name>


def player(text: str | PlayerLike | EnginePlayer) -> Participant | EnginePlayer:
    """A tournament player from its text: ``engine:<command>``; an engine in cutechess's
    words, ``cmd=<command> [name=<name>] [option.<Name>=<value> ...]`` (quoted like a shell
    line); or a bot (see :meth:`kibitz.match.Participant.parse`, which takes ``name=``).
    Anything else (a Bot, SearchParams, factory or Participant) is a bot participant."""
    if isinstance(text, EnginePlayer):
        return text
    if not isinstance(text, str):
        return Participant.of(text)
    if is_engine(text):
        command = text[len(ENGINE_PREFIX) :]
        if not engine_argv(command):
            raise OptionError(f"player {text!r}: an engine needs a command, e.g. engine:kibitz engine")
        return EnginePlayer(command)
    words = engine_argv(text)
    if words and words[0].partition("=")[0] in CUTECHESS_KEYS:
        fields: dict[str, str] = {}
        options: dict[str, str] = {}
        for word in words:
            key, eq, value = word.partition("=")
            if not eq or not (key in CUTECHESS_KEYS or key.startswith("option.")):
                raise OptionError(f"engine {text!r}: expected cmd=, name= or option.<Name>=, got {word!r}")
            (options if key.startswith("option.") else fields)[key.removeprefix("option.")] = value
        if not engine_argv(fields.get("cmd", "")):
            raise OptionError(f"engine {text!r}: cmd=<command> is missing")
        return EnginePlayer(fields["cmd"], fields.get("name"), options)
    return Participant.parse(text)


@dataclass(frozen=True)
class TimeControl:
    """A clock per engine seat: ``base_ms`` per game plus ``increment_ms`` after each of the
    seat's decisions (cutechess's ``tc=base+inc``)."""

    base_ms: int
    increment_ms: int = 0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``BASE[+INC]`` in seconds, e.g. ``60+0.5`` or ``10``; raises OptionError."""
        base, plus, increment = text.strip().partition("+")
        try:
            seconds = float(base), float(increment) if plus else 0.0
        except ValueError:
            raise OptionError(f"time control {text!r}: expected seconds[+increment], e.g. 60+0.5") from None
        most = int(find_parameter("time_ms").high or 0) / 1000
        if not (0 < seconds[0] <= most and 0 <= seconds[1] <= most):
            raise OptionError(f"time control {text!r}: the time must be in 0..{most:g} s (above 0) and the increment in 0..{most:g} s")
        return cls(round(seconds[0] * 1000), round(seconds[1] * 1000))

    def __str__(self) -> str:
        return f"{self.base_ms / 1000:g}+{self.increment_ms / 1000:g}"


class Clocks:
    """The clocks of one game: each seat's time left, in milliseconds."""

    def __init__(self, control: TimeControl, seats: int) -> None:
        self.control = control
        self.left = [float(control.base_ms)] * seats

    def go_words(self) -> list[str]:
        """Every seat's time left and increment, as a go line gives them (docs/protocol.md §5)."""
        times = [word for seat, left in enumerate(self.left) for word in (f"s{seat}time", str(round(left)))]
        return times + [word for seat in range(len(self.left)) for word in (f"s{seat}inc", str(self.control.increment_ms))]

    def charge(self, seat: int, elapsed_ms: float) -> None:
        """Takes a decision's time from the seat's clock and adds the increment."""
        self.left[seat] = max(0.0, self.left[seat] - elapsed_ms) + self.control.increment_ms


# -- seats -------------------------------------------------------------------------------------


class BotSeat:
    """A built-in bot played in this process; it gets its seat's View, as in kibitz.match.
    It searches with its own budget: clocks are for engine seats."""

    def __init__(self, participant: Participant) -> None:
        self.participant = participant
        self._bot: Bot = participant.make(0)  # a bad spec fails before any game starts

    def new_game(self, game: Game, seat: int, seed: int) -> None:
        self._bot = self.participant.make(seed)
        self._seat = seat

    def observe(self, text: str) -> None:
        pass

    def decide(self, state: State, clocks: Clocks | None = None) -> str:
        bot: Any = self._bot
        move = act_on_state(bot, state, self._seat) if getattr(bot, "sees_everything", False) else bot.act(state.view(self._seat))
        return move if isinstance(move, str) else state.move_to_string(move)

    def close(self, graceful: bool = True) -> None:
        pass


class EngineSeat:
    """An engine process driven over the text protocol (docs/protocol.md).

    The process starts on first use and again after a fault. With ``incremental`` the seat
    is told every action it sees as an ``observe`` line, and gets a ``position view`` only at
    its first decision of a game; otherwise it gets a ``position view`` before every ``go``.
    """

    def __init__(
        self,
        command: str,
        movetime_ms: int,
        margin_ms: int,
        iterations: int | None = None,
        incremental: bool = False,
        options: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        self.settings = dict(options or {})
        self.argv = engine_argv(command)
        if not self.argv:
            raise OptionError("an engine needs a command, e.g. engine:kibitz engine")
        self.movetime_ms, self.margin_ms, self.iterations, self.incremental = movetime_ms, margin_ms, iterations, incremental
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: IO[str] | None = None
        self._options: set[str] = set()
        self._pending: list[str] | None = None  # observations not yet sent; None: send a position

    # -- process ---------------------------------------------------------------------------
    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        try:
            # surrogateescape: a byte that is not UTF-8 reaches _until, which forfeits the seat for it
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
                encoding="utf-8",
                errors="surrogateescape",
                bufsize=1,
            )
        except OSError as err:
            raise SeatFault(f"cannot start '{self.command}': {err}") from None
        self._lines = queue.Queue()
        threading.Thread(target=_pump, args=(self._process.stdout, self._lines), daemon=True).start()
        self._send("kgi")
        replies = self._until(lambda line: line == "kgiok", HANDSHAKE_S, "kgiok")
        self._options = {line.split()[2].lower() for line in replies if line.startswith("option name ") and len(line.split()) > 2}
        for name, value in self.settings.items():
            self._send(f"setoption name {name} value {value}")

    def close(self, graceful: bool = True) -> None:
        """Ends the process: ``quit`` and a short wait, or (after a fault) kill at once."""
        process, self._process = self._process, None
        try:
            if process is not None and graceful and process.poll() is None:
                process.stdin.write("quit\n")  # type: ignore[union-attr]
                process.stdin.flush()  # type: ignore[union-attr]
                process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
            if process is not None and process.stdin is not None:
                try:
                    process.stdin.close()
                except OSError:  # a write the engine never read: it is gone anyway
                    pass
            if self._stderr is not None:  # also after a failed start
                self._stderr.close()
                self._stderr = None

    def _send(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except OSError:
            raise SeatFault(self._death("input")) from None

    def _until(self, done: Callable[[str], bool], seconds: float, waiting_for: str) -> list[str]:
        """Lines up to the one ``done`` accepts, within ``seconds``; any error line, unknown
        line, exit or timeout is a fault."""
        deadline = time.monotonic() + seconds
        seen: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise SeatFault(f"no {waiting_for} within {seconds * 1000:.0f} ms") from None
            if line is None:
                raise SeatFault(self._death("output"))
            line = line.strip()
            if not line:
                continue
            if NOT_UTF8.search(line):
                raw = line.encode("utf-8", "surrogateescape")
                raise SeatFault(f"sent bytes that are not UTF-8: {raw[:80]!r}")
            if line.startswith("info string error"):
                raise SeatFault(f"engine reported: {line[len('info string ') :]}")
            if line.split()[0] not in REPLY_WORDS:
                raise SeatFault(f"sent a line that is not protocol: {line[:80]!r}")
            seen.append(line)
            if done(line):
                return seen

    def _death(self, broken: str) -> str:
        """What happened to an engine whose ``broken`` pipe failed: ``"output"`` (its stdout
        ended) or ``"input"`` (writing to its stdin failed). It exited with a code (a crash unless
        the code is 0), or it still runs with that pipe closed."""
        assert self._process is not None
        try:
            code = self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "closed its output (the process still runs)" if broken == "output" else "stopped reading its input (the process still runs)"
        last = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            lines = self._stderr.read().strip().splitlines()
            last = f"; last stderr line: {lines[-1][:200]!r}" if lines else ""
        if code == 0:
            return f"exited (exit code 0) before the game was over{last}"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"crashed (exit code {code}: killed by {name}){last}"
        return f"crashed (exit code {code}){last}"

    # -- games -----------------------------------------------------------------------------
    def new_game(self, game: Game, seat: int, seed: int) -> None:
        if self._process is None or self._process.poll() is not None:
            self.close(graceful=False)
            self._start()
        self._seat = seat
        options = [f"{k}={v}" for k, v in sorted(game.options.items()) if k != "players"]
        if "seed" in self._options:
            self._send(f"setoption name Seed value {seed}")
        self._send(" ".join(["newgame", game.name, *options, "players", str(game.num_players), "seat", str(seat)]))
        self._send("isready")
        self._until(lambda line: line == "readyok", HANDSHAKE_S, "readyok")
        self._pending = None

    def observe(self, text: str) -> None:
        if self._pending is not None:
            self._pending.append(text)

    def decide(self, state: State, clocks: Clocks | None = None) -> str:
        """The seat's move: ``go movetime``, or ``go`` with every seat's clock; the answer is
        due within the movetime (the seat's time left) plus the margin. A clock is charged
        the time the answer took."""
        if self.incremental and self._pending is not None:
            for text in self._pending:
                self._send(f"observe {text}")
        else:
            self._send(f"position view {state.view(self._seat).notation()}")
        self._pending = [] if self.incremental else None
        budget = ["movetime", str(self.movetime_ms)] if clocks is None else clocks.go_words()
        self._send(" ".join(["go", *budget, *(["iterations", str(self.iterations)] if self.iterations else [])]))
        allowed_ms = self.movetime_ms if clocks is None else clocks.left[self._seat]
        started = time.monotonic()
        try:
            # a move's text may have spaces (Yak's "choose build"): it is the rest of the line
            reply = self._until(lambda line: line.startswith("bestmove"), (allowed_ms + self.margin_ms) / 1000, "bestmove")[-1].split(maxsplit=1)
        except SeatFault as fault:
            if clocks is not None and str(fault).startswith("no bestmove"):
                raise SeatFault(f"lost on time: no bestmove within its {allowed_ms:.0f} ms left (+{self.margin_ms} ms margin)") from None
            raise
        if clocks is not None:
            clocks.charge(self._seat, (time.monotonic() - started) * 1000)
        if len(reply) != 2:
            raise SeatFault(f"malformed reply {' '.join(reply)!r}: expected bestmove <move>")
        return reply[1]


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    """Copies an engine's output lines into a queue; None marks the end (also when reading
    fails, so that the referee never waits for a reader that is gone)."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        stream.close()  # the process has exited (or its output broke): nothing more to read
        lines.put(None)


def engine_argv(command: str) -> list[str]:
    """An engine command split like a shell line; raises OptionError for bad quoting."""
    try:
        return shlex.split(command)
    except ValueError as err:  # shlex: "No closing quotation", "No escaped character"
        raise OptionError(f"engine command {command!r}: {err}") from None


# -- one game ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Adjudication:
    """A forfeit: the seat, its player's label, why, and when (kibitz.records.ADJUDICATION_PHASES)."""

    seat: int
    label: str
    reason: str
    phase: str = "decision"

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "label": self.label, "reason": self.reason, "phase": self.phase}


def forfeit_results(state: State, loser: int) -> tuple[list[float], list[int]]:
    """Returns and ranks when ``loser`` forfeits: its team gets 0 and the last place; every
    other team shares the win (1/k each for k teams), first place."""
    seats = range(state.num_players)
    losing = state.team(loser)
    other_teams = {state.team(s) for s in seats if state.team(s) != losing}
    returns = [0.0 if state.team(s) == losing else 1.0 / len(other_teams) for s in seats]
    ranks = [2 if state.team(s) == losing else 1 for s in seats]
    return returns, ranks


def referee_game(
    game: Game,
    seats: Sequence[BotSeat | EngineSeat],
    labels: Sequence[str],
    seed: int,
    index: int,
    bots_seed: int | None = None,
    time_control: TimeControl | None = None,
) -> GameRecord:
    """Plays one game: deal and chance from ``seed``, the seats' seeds from ``bots_seed``
    (default ``seed``), engine seats on clocks if ``time_control`` is given. A seat's fault
    ends the game with that seat's forfeit (recorded)."""
    state = initial_state(game, seed)
    base = seed if bots_seed is None else bots_seed

    def record(actions: list[int], moves: list[str], adjudication: Adjudication | None) -> GameRecord:
        return _record(game, labels, seed, index, state, actions, moves, adjudication, bots_seed)

    for seat, player in enumerate(seats):
        try:
            player.new_game(game, seat, derive_seed(base, "bot", seat))
        except SeatFault as fault:  # before any action: whoever is to move, this seat forfeits
            player.close(graceful=False)  # the next game starts a fresh process
            return record([], [], Adjudication(seat, labels[seat], str(fault), "start"))
    clocks = None if time_control is None else Clocks(time_control, game.num_players)
    actions: list[int] = []
    moves: list[str] = []

    def tell_every_seat(s: State, action: int | dict[int, int]) -> None:
        for seat, player in enumerate(seats):
            player.observe(s.joint_observation_text(seat, action) if isinstance(action, dict) else s.observation_text(seat, action))

    asked = [0]  # the seat being asked (at a simultaneous node, one of several)

    def decide(s: State, mover: int) -> int:
        asked[0] = mover
        return _legal_action(s, mover, seats[mover].decide(s, clocks))

    try:
        play_out(state, seed, decide, tell_every_seat, (actions, moves))
    except SeatFault as fault:
        mover = asked[0]
        seats[mover].close(graceful=False)
        return record(actions, moves, Adjudication(mover, labels[mover], str(fault)))
    return record(actions, moves, None)


def _legal_action(state: State, seat: int, move: str) -> int:
    try:
        action = state.parse_move(move)
    except NotationError as err:
        raise SeatFault(f"unreadable move {move!r}: {err}") from None
    if action not in state.legal_actions_for(seat):
        raise SeatFault(f"illegal move {move!r}; legal: {' '.join(state.legal_moves_for(seat))}")
    return action


def _record(
    game: Game,
    labels: Sequence[str],
    seed: int,
    index: int,
    state: State,
    actions: list[int],
    moves: list[str],
    adjudication: Adjudication | None,
    bots_seed: int | None,
) -> GameRecord:
    if adjudication is None:
        returns, ranks, scores = state.returns(), state.ranks(), state.scores()
    else:
        returns, ranks = forfeit_results(state, adjudication.seat)
        scores = [0.0] * state.num_players  # a forfeited game has no score
    return GameRecord(
        game=game.name,
        options=dict(game.options),
        seed=seed,
        specs=list(labels),
        actions=actions,
        moves=moves,
        returns=returns,
        scores=scores,
        ranks=ranks,
        index=index,
        adjudication=None if adjudication is None else adjudication.to_dict(),
        bots_seed=bots_seed,
    )


# -- tournaments -------------------------------------------------------------------------------


@dataclass
class Tournament:
    """Games between ``players``: engines (``engine:<command>``, or cutechess's
    ``cmd=… name=… option.K=V``) and bots (specs with an optional ``name=``, or Python
    participants as :func:`kibitz.match.run_match` takes them; see :func:`player`), planned
    by :class:`kibitz.match.MatchPlan` (``schedule``, ``duplicate``; game seeds as it says)
    and played ``concurrency`` games at a time. Engines search ``movetime_ms`` per decision,
    or play on ``time_control`` clocks; ``sprt`` (two players) stops the tournament when
    decided."""

    game: Game
    players: Sequence[str | PlayerLike | EnginePlayer]
    games: int
    seed: int = 0
    movetime_ms: int = 1000
    margin_ms: int = 500
    iterations: int | None = None
    incremental: bool = False
    results_path: str | None = None
    progress: bool = False
    concurrency: int = 1
    time_control: TimeControl | None = None
    duplicate: bool = True
    schedule: str = "round-robin"
    sprt: SPRT | None = None
    backend: Backend = LOCAL
    anchor: str | None = None  # the player at 0 on the Elo scale (MatchPlan)

    def __post_init__(self) -> None:
        # what an engine's go line takes (docs/protocol.md §5), so that no engine refuses it
        most_ms, most_iterations = int(find_parameter("time_ms").high or 0), int(find_parameter("iterations").high or 0)
        if not (1 <= self.movetime_ms <= most_ms and 0 <= self.margin_ms <= most_ms):
            raise OptionError(f"movetime must be 1..{most_ms} ms and the margin 0..{most_ms} ms, got {self.movetime_ms} and {self.margin_ms}")
        if self.iterations is not None and not 1 <= self.iterations <= most_iterations:
            raise OptionError(f"iterations must be 1..{most_iterations}, got {self.iterations}")
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise OptionError(f"concurrency must be 1..{MAX_CONCURRENCY}, got {self.concurrency}")
        self.entrants = [player(p) for p in self.players]  # a bad spec fails before any game starts
        self.sees_everything = [isinstance(p, Participant) and getattr(p.make(0), "sees_everything", False) for p in self.entrants]
        labels = [p.label for p in self.entrants]
        self.schedule_plan = MatchPlan(
            self.game, labels, self.games, self.seed, duplicate=self.duplicate, schedule=self.schedule, anchor=self.anchor
        )
        self.labels = self.schedule_plan.labels

    def finished(self) -> dict[int, GameRecord]:
        """The games already in the results file, checked against this tournament's plan."""
        return self.schedule_plan.resume(self.results_path, "tournament")

    def run(self) -> MatchResult:
        """Plays the games not yet in the results file; the statistics cover all games (up
        to the SPRT's decision)."""
        return run_plan(
            self.schedule_plan,
            self._play,
            self.sees_everything,
            record_path=self.results_path,
            sprt=self.sprt,
            progress=self.progress,
            what="tournament",
        )

    def _referee(self, g: int, seats_for: Callable[[list[int]], list[BotSeat | EngineSeat]]) -> GameRecord:
        plan = self.schedule_plan
        seats = seats_for(plan.seats(g))
        return referee_game(self.game, seats, plan.seat_labels(g), plan.game_seed(g), g, plan.bots_seed(g), self.time_control)

    @contextmanager
    def _play(self, todo: list[int]) -> Iterator[Iterator[GameRecord]]:
        """Referees the games ``todo``, ``concurrency`` at once, each worker with its own seats;
        on Ray each game is a task that starts its own engines on its node."""
        if self.backend.name == "ray":
            with self.backend.games(_remote_referee(self), todo) as finished:
                yield finished
            return
        if self.concurrency == 1:
            with _seat_pool(self) as seats_for:
                yield (self._referee(g, seats_for) for g in todo)
            return
        jobs: queue.Queue[int] = queue.Queue()
        for g in todo:
            jobs.put(g)
        done: queue.Queue[GameRecord | BaseException] = queue.Queue()
        stop = threading.Event()

        def work() -> None:
            with _seat_pool(self) as seats_for:
                while not stop.is_set():
                    try:
                        g = jobs.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        done.put(self._referee(g, seats_for))
                    except BaseException as err:  # handed to the main thread, which raises it
                        done.put(err)
                        return

        workers = [threading.Thread(target=work, daemon=True) for _ in range(min(self.concurrency, len(todo)))]
        for worker in workers:
            worker.start()

        def records() -> Iterator[GameRecord]:
            for _ in todo:
                item = done.get()
                if isinstance(item, BaseException):
                    raise item
                yield item

        try:
            yield records()
        finally:
            stop.set()  # games being played finish; no new one starts
            for worker in workers:
                worker.join()


MAX_CONCURRENCY = 256


def _remote_referee(tournament: Tournament) -> Callable[[int], GameRecord]:
    """A function that referees game g of the tournament in a Ray task: it holds the
    tournament's settings (a Game object does not travel; its name and options do)."""
    settings = {name: getattr(tournament, name) for name in TOURNAMENT_SETTINGS}
    game, options = tournament.game.name, dict(tournament.game.options)

    def referee(g: int) -> GameRecord:
        there = Tournament(Game(game, **options), **settings)
        with _seat_pool(there) as seats_for:
            return there._referee(g, seats_for)

    return referee


TOURNAMENT_SETTINGS = (
    "players",
    "games",
    "seed",
    "movetime_ms",
    "margin_ms",
    "iterations",
    "incremental",
    "time_control",
    "duplicate",
    "schedule",
)


@contextmanager
def _seat_pool(tournament: Tournament) -> Iterator[Callable[[list[int]], list[BotSeat | EngineSeat]]]:
    """A function giving the seat objects for a game's assignment of players to seats. Each
    player keeps its objects from game to game (an engine process lives on, one per seat the
    player holds in a game); every engine is closed at the end."""
    pool: dict[tuple[int, int], BotSeat | EngineSeat] = {}

    def make(entrant: Participant | EnginePlayer) -> BotSeat | EngineSeat:
        if isinstance(entrant, EnginePlayer):
            t = tournament
            return EngineSeat(entrant.command, t.movetime_ms, t.margin_ms, t.iterations, t.incremental, entrant.options)
        return BotSeat(entrant)

    def seats_for(assignment: list[int]) -> list[BotSeat | EngineSeat]:
        seats = []
        for seat, p in enumerate(assignment):
            key = (p, assignment[:seat].count(p))
            if key not in pool:
                pool[key] = make(tournament.entrants[p])
            seats.append(pool[key])
        return seats

    try:
        yield seats_for
    finally:
        for seat_object in pool.values():
            seat_object.close()
