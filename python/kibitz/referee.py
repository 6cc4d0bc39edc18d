"""The referee: games between engine processes and built-in bots over the text protocol.

The referee holds the true state and tells each seat only its own view (``position view``,
or ``observe`` lines with ``incremental``). An engine seat gets ``movetime`` milliseconds
per decision and must answer within that time plus ``margin``; a seat that crashes, hangs,
answers with an illegal move or sends a line that is not protocol loses the game at once
(its team loses in team games), the event is recorded, and the tournament goes on with a
fresh process for that engine.

Each finished game is appended to a JSON-lines results file as it ends: the game record
(:class:`kibitz.records.GameRecord`) with the game's index and the adjudication, if any. A
tournament started again with the same file plays only the games that are not in it.

>>> from kibitz.referee import Tournament
>>> t = Tournament(Game("just4fun_colours"), ["greedy", "random"], games=2, seed=1)
>>> len(t.run().records)
2
"""

from __future__ import annotations

import queue
import re
import shlex
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from kibitz.bots import Bot, make_bot
from kibitz.errors import NotationError, OptionError
from kibitz.game import Game, State
from kibitz.match import MatchPlan, MatchResult, derive_seed, initial_state, play_out, progress_bar
from kibitz.params import find_parameter
from kibitz.records import GameRecord, appender

ENGINE_PREFIX = "engine:"  # a player spec naming an engine command instead of a built-in bot
HANDSHAKE_S = 20.0  # time for an engine to start and answer kgi / isready
NOT_UTF8 = re.compile("[\udc80-\udcff]")  # bytes that are not UTF-8, as surrogateescape decodes them
REPLY_WORDS = {"id", "option", "kgiok", "readyok", "info", "bestmove", "response", "legal", "perft"}


class SeatFault(Exception):
    """A seat broke the rules of the protocol or the game; the message says how."""


def is_engine(spec: str) -> bool:
    return spec.startswith(ENGINE_PREFIX)


# -- seats -------------------------------------------------------------------------------------


class BotSeat:
    """A built-in bot played in this process; it gets its seat's View, as in kibitz.match."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._bot: Bot = make_bot(spec)  # a bad spec fails before any game starts

    def new_game(self, game: Game, seat: int, seed: int) -> None:
        self._bot = make_bot(self.spec, seed=seed)
        self._seat = seat

    def observe(self, text: str) -> None:
        pass

    def decide(self, state: State) -> str:
        bot: Any = self._bot
        move = bot.act(state) if getattr(bot, "sees_everything", False) else bot.act(state.view(self._seat))
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
        self, command: str, movetime_ms: int, margin_ms: int, iterations: int | None = None, incremental: bool = False
    ) -> None:
        self.command = command
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
            if self._stderr is not None:  # also after a failed start
                self._stderr.close()
                self._stderr = None

    def _send(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except OSError:
            raise SeatFault(self._death()) from None

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
                raise SeatFault(self._death())
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

    def _death(self) -> str:
        assert self._process is not None
        try:
            code = self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "stopped reading its input"
        last = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            lines = self._stderr.read().strip().splitlines()
            last = f"; last stderr line: {lines[-1][:200]!r}" if lines else ""
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

    def decide(self, state: State) -> str:
        if self.incremental and self._pending is not None:
            for text in self._pending:
                self._send(f"observe {text}")
        else:
            self._send(f"position view {state.view(self._seat).notation()}")
        self._pending = [] if self.incremental else None
        go = f"go movetime {self.movetime_ms}" + (f" iterations {self.iterations}" if self.iterations else "")
        self._send(go)
        seconds = (self.movetime_ms + self.margin_ms) / 1000
        reply = self._until(lambda line: line.startswith("bestmove"), seconds, "bestmove")[-1].split()
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


def referee_game(game: Game, seats: Sequence[BotSeat | EngineSeat], labels: Sequence[str], seed: int, index: int) -> GameRecord:
    """Plays one game; a seat's fault ends it with that seat's forfeit (recorded)."""
    state = initial_state(game, seed)
    for seat, player in enumerate(seats):
        try:
            player.new_game(game, seat, derive_seed(seed, "bot", seat))
        except SeatFault as fault:  # before any action: whoever is to move, this seat forfeits
            player.close(graceful=False)  # the next game starts a fresh process
            return _record(game, labels, seed, index, state, [], [], Adjudication(seat, labels[seat], str(fault), "start"))
    actions: list[int] = []
    moves: list[str] = []

    def tell_every_seat(s: State, action: int) -> None:
        for seat, player in enumerate(seats):
            player.observe(s.observation_text(seat, action))

    try:
        play_out(state, seed, lambda s, mover: _legal_action(s, seats[mover].decide(s)), tell_every_seat, (actions, moves))
    except SeatFault as fault:
        mover = state.current_player
        seats[mover].close(graceful=False)
        return _record(game, labels, seed, index, state, actions, moves, Adjudication(mover, labels[mover], str(fault)))
    return _record(game, labels, seed, index, state, actions, moves, None)


def _legal_action(state: State, move: str) -> int:
    try:
        action = state.parse_move(move)
    except NotationError as err:
        raise SeatFault(f"unreadable move {move!r}: {err}") from None
    if action not in state.legal_actions():
        raise SeatFault(f"illegal move {move!r}; legal: {' '.join(state.legal_moves())}")
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
    )


# -- tournaments -------------------------------------------------------------------------------


@dataclass
class Tournament:
    """Games between ``players`` (bot specs, or ``engine:<command>``), seats rotated as in
    :func:`kibitz.match.run_match`; game g uses the seed ``derive_seed(seed, g)`` (the plan
    is a :class:`kibitz.match.MatchPlan`)."""

    game: Game
    players: list[str]
    games: int
    seed: int = 0
    movetime_ms: int = 1000
    margin_ms: int = 500
    iterations: int | None = None
    incremental: bool = False
    results_path: str | None = None
    progress: bool = False

    def __post_init__(self) -> None:
        if not 2 <= len(self.players) <= self.game.num_players:
            raise OptionError(
                f"{self.game.name} with {self.game.num_players} players: a tournament needs 2 to {self.game.num_players} players, got {len(self.players)}"
            )
        if self.games < 1:
            raise OptionError(f"a tournament needs at least 1 game, got {self.games}")
        # what an engine's go line takes (docs/protocol.md §5), so that no engine refuses it
        most_ms, most_iterations = int(find_parameter("time_ms").high or 0), int(find_parameter("iterations").high or 0)
        if not (1 <= self.movetime_ms <= most_ms and 0 <= self.margin_ms <= most_ms):
            raise OptionError(f"movetime must be 1..{most_ms} ms and the margin 0..{most_ms} ms, got {self.movetime_ms} and {self.margin_ms}")
        if self.iterations is not None and not 1 <= self.iterations <= most_iterations:
            raise OptionError(f"iterations must be 1..{most_iterations}, got {self.iterations}")
        self.sees_everything: list[bool] = []
        for spec in self.players:  # a bad spec fails before any game starts
            if is_engine(spec):
                if not engine_argv(spec[len(ENGINE_PREFIX) :]):
                    raise OptionError(f"player {spec!r}: an engine needs a command, e.g. engine:kibitz engine")
                self.sees_everything.append(False)
            else:
                self.sees_everything.append(getattr(make_bot(spec), "sees_everything", False))
        self.schedule = MatchPlan(self.game, self.players, self.games, self.seed)
        self.labels = self.schedule.labels

    def finished(self) -> dict[int, GameRecord]:
        """The games already in the results file, checked against this tournament's plan."""
        return self.schedule.resume(self.results_path, "tournament")

    def run(self) -> MatchResult:
        """Plays the games not yet in the results file; the statistics cover all games."""
        records = self.finished()
        todo = [g for g in range(self.games) if g not in records]
        with (
            _seat_pool(self) as seats_for,
            progress_bar(self.progress, len(todo)) as advance,
            appender(self.results_path) as append,
        ):
            for g in todo:
                plan = self.schedule
                record = referee_game(self.game, seats_for(plan.seats(g)), plan.seat_labels(g), plan.game_seed(g), g)
                records[g] = record
                append(record)
                advance()
        return self.schedule.result(records, self.sees_everything)


@contextmanager
def _seat_pool(tournament: Tournament) -> Iterator[Callable[[list[int]], list[BotSeat | EngineSeat]]]:
    """A function giving the seat objects for a game's assignment of players to seats. Each
    player keeps its objects from game to game (an engine process lives on, one per seat the
    player holds in a game); every engine is closed at the end."""
    pool: dict[tuple[int, int], BotSeat | EngineSeat] = {}

    def make(spec: str) -> BotSeat | EngineSeat:
        if is_engine(spec):
            t = tournament
            return EngineSeat(spec[len(ENGINE_PREFIX) :], t.movetime_ms, t.margin_ms, t.iterations, t.incremental)
        return BotSeat(spec)

    def seats_for(assignment: list[int]) -> list[BotSeat | EngineSeat]:
        seats = []
        for seat, p in enumerate(assignment):
            key = (p, assignment[:seat].count(p))
            if key not in pool:
                pool[key] = make(tournament.players[p])
            seats.append(pool[key])
        return seats

    try:
        yield seats_for
    finally:
        for player in pool.values():
            player.close()
