"""One game table of the web server, without any web framework: the true game, its seats
(people and bots), what each seat has seen, undo, resignation, the record, and the model a
browser of one seat receives (docs/web-views.md).

Everything here runs on the server's event loop except a :class:`Job`'s ``run``, which a worker
thread calls: a job holds copies (the seat's view, or the full state for a bot that sees
everything), so the thread never touches the table. A job answers for the table's
``generation`` it was made in; undo, resignation and the end of the game move the generation on,
so that a late answer is dropped.

Hidden information: a seat's model is built from ``state.view(seat)``, the seat's legal moves and
the moves as the seat observed them (``State.observation_text``, ``State.joint_observation_text``);
the full state shows only once the game is over (:meth:`Table.model` with ``seat=None``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from kibitz.bots import Bot, SearchBot, make_bot
from kibitz.errors import IllegalMoveError, NotationError, OptionError, shown
from kibitz.game import JOINT_SEPARATOR, Game, SearchProgress, SearchResult, State, StopFlag, View, notation_fields
from kibitz.match import act_on_state, derive_seed, initial_state, replay, showing_moves
from kibitz.records import GameRecord
from kibitz.referee import Adjudication, forfeit_results

SeatKind = Literal["person", "invite", "bot"]
MOVE_CHARS = 200  # a move's text from a browser
RESIGNED = "resigned"


class TableError(ValueError):
    """A request the table refuses (a move out of turn, an undo not allowed ...); the message
    is shown in the page and nothing changes."""


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: a person at this screen, a person invited by a link, or a bot."""

    kind: SeatKind
    name: str
    spec: str = ""  # a bot's spec

    @property
    def person(self) -> bool:
        return self.kind != "bot"


@dataclass
class Entry:
    """One action of the game: who made it (None for chance), its text, and what each seat saw."""

    seat: int | None
    text: str
    seen: list[str]


@dataclass
class Checkpoint:
    """Before a person's decision: what undo goes back to."""

    state: State
    actions: int
    entries: int


@dataclass
class Job:
    """A search (or a heuristic bot's choice) to run in a worker thread: ``run(stop, progress)``
    returns the move's text; ``generation`` is the table's when the job was made."""

    seat: int
    kind: Literal["bot", "hint", "analysis"]
    generation: int
    run: Callable[[StopFlag, SearchProgress], str]
    move_name: Callable[[int], str]  # an action id of the searched position as text
    searching: bool  # a search that reports progress (not a heuristic bot)
    final: Callable[[], SearchResult | None] = lambda: None  # the finished search's statistics


def entry_of(state: State, action: int) -> Entry:
    """The entry of ``action`` (a decision or a chance outcome) played at ``state``."""
    mover = state.current_player
    seen = [state.observation_text(seat, action) for seat in range(state.num_players)]
    return Entry(mover if mover >= 0 else None, state.move_to_string(action), seen)


def joint_entries(state: State, joint: dict[int, int]) -> list[Entry]:
    """The entries of a joint move, one per choosing seat in the order the record keeps them;
    an observer's text of each is its part of what it saw of the whole
    (``State.joint_observation_text``, ``?`` for a choice kept secret); what the move revealed
    at once rides on the last part."""
    seats = list(joint)
    seen = [state.joint_observation_text(observer, joint).split(JOINT_SEPARATOR) for observer in range(state.num_players)]
    return [
        Entry(seat, state.move_to_string(joint[seat]), [parts[k] if len(parts) == len(seats) else JOINT_SEPARATOR.join(parts) for parts in seen])
        for k, seat in enumerate(seats)
    ]


def person_label(seat: Seat) -> str:
    return f"person:{seat.name}"


class Table:
    """A game between people and bots. Raises OptionError for a bot spec or game option that
    does not work."""

    def __init__(self, game: Game, seats: list[Seat], seed: int, hint_bot: str) -> None:
        if len(seats) != game.num_players:
            raise OptionError(f"{game.name} with {game.num_players} players needs {game.num_players} seats, got {len(seats)}")
        if not any(seat.person for seat in seats):
            raise OptionError("a table needs at least one person")
        self.game = game
        self.seats = seats
        self.seed = seed
        self.hint_bot = hint_bot
        self.bots: list[Bot | None] = [
            None if seat.person else make_bot(seat.spec, seed=derive_seed(seed, "bot", i)) for i, seat in enumerate(seats)
        ]
        self._show = showing_moves(self.bots)  # the bots see the others' moves through their views
        self.state = initial_state(game, seed)
        self.actions: list[int] = []
        self.moves: list[str] = []
        self.entries: list[Entry] = []
        self.checkpoints: list[Checkpoint] = []
        self.pending: dict[int, int] = {}  # at a simultaneous node: the choices made so far
        self.hints: dict[int, str] = {}
        self.undos = 0
        self.chance_seed = seed
        self.draws = 0
        self.generation = 0
        self.adjudication: Adjudication | None = None
        self._settle()

    # -- whose turn ------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.game.num_players

    @property
    def over(self) -> bool:
        return self.adjudication is not None or self.state.is_terminal()

    def deciding(self) -> list[int]:
        """The seats that decide now: the mover, or the choosing seats of a simultaneous node."""
        if self.over:
            return []
        return self.state.choosing_seats() if self.state.is_simultaneous() else [self.state.current_player]

    def waiting_for(self) -> list[int]:
        """The deciding seats whose decision is still awaited."""
        return [seat for seat in self.deciding() if seat not in self.pending]

    def bots_to_act(self) -> list[int]:
        return [seat for seat in self.waiting_for() if not self.seats[seat].person]

    def person_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.person]

    def labels(self) -> list[str]:
        return [seat.spec if not seat.person else person_label(seat) for seat in self.seats]

    # -- moves -----------------------------------------------------------------------------
    def play(self, seat: int, move: object) -> None:
        """A person's move for ``seat`` (text); raises TableError naming why it is refused
        (out of turn, unreadable, illegal: the engine's reason), and then nothing changes."""
        if not isinstance(move, str):
            raise TableError(f"a move is text, got {shown(move)}")
        if len(move) > MOVE_CHARS:
            raise TableError(f"a move has at most {MOVE_CHARS} characters, got {len(move)}")
        self._check_turn(seat)
        state = self.state
        try:
            action = state.parse_move(move)
            if state.is_simultaneous():
                if action not in state.legal_actions_for(seat):
                    raise IllegalMoveError(f"{move.strip()!r} is not legal here; legal: {' '.join(state.legal_moves_for(seat))}")
            else:
                state.clone().apply(action)  # the engine's reason if it is illegal
        except (IllegalMoveError, NotationError) as err:
            raise TableError(str(err)) from None
        self.checkpoints.append(Checkpoint(state.clone(), len(self.actions), len(self.entries)))
        self._decide(seat, action)

    def _check_turn(self, seat: int) -> None:
        if self.over:
            raise TableError("the game is over")
        if seat not in self.deciding():
            movers = self.deciding()
            whose = ", ".join(f"seat {s} ({self.seats[s].name})" for s in movers)
            raise TableError(f"it is not seat {seat}'s turn; {whose} {'is' if len(movers) == 1 else 'are'} to move")
        if seat in self.pending:
            raise TableError(f"seat {seat} has chosen already; the others are choosing")

    def _decide(self, seat: int, action: int) -> None:
        """A checked decision of ``seat``: applied, or kept until every choosing seat has chosen."""
        self.hints.pop(seat, None)
        if not self.state.is_simultaneous():
            self._apply(action)
        else:
            self.pending[seat] = action
            if all(s in self.pending for s in self.state.choosing_seats()):
                self._apply_joint()
        self._settle()

    def _apply(self, action: int) -> None:
        self._record([entry_of(self.state, action)], [action])
        self._show(self.state, action)
        self.state.apply(action)

    def _apply_joint(self) -> None:
        joint = {seat: self.pending[seat] for seat in self.state.choosing_seats()}
        self._record(joint_entries(self.state, joint), list(joint.values()))
        self._show(self.state, joint)
        self.state.apply_joint(joint)
        self.pending.clear()

    def _record(self, entries: list[Entry], actions: list[int]) -> None:
        self.entries.extend(entries)
        self.actions.extend(actions)
        self.moves.extend(entry.text for entry in entries)

    def _settle(self) -> None:
        """Plays chance until a seat decides or the game ends: the k-th outcome since the last
        undo drawn from ``derive_seed(chance_seed, "chance", k)`` (as kibitz.match.play_out does)."""
        while self.state.is_chance():
            self._apply(self.state.sample_chance(derive_seed(self.chance_seed, "chance", self.draws)))
            self.draws += 1
        if self.over:
            self.generation += 1

    # -- bots ------------------------------------------------------------------------------
    def bot_job(self, seat: int) -> Job:
        """The job that finds the move of the bot at ``seat``: it sees the seat's view (the full
        state if it sees everything), as a copy."""
        bot = self.bots[seat]
        assert bot is not None and seat in self.waiting_for()
        state = self.state.clone()
        sees_everything = getattr(bot, "sees_everything", False)
        view = None if sees_everything else state.view(seat)
        label = self.seats[seat].name

        def run(stop: StopFlag, progress: SearchProgress) -> str:
            if isinstance(bot, SearchBot):
                move = bot.act(state, seat if state.is_simultaneous() else None, stop=stop, progress=progress) if view is None else bot.act(view, stop=stop, progress=progress)
            else:
                move = act_on_state(bot, state, seat) if view is None else bot.act(view)
            try:
                action = state.parse_move(move)
            except NotationError as err:
                raise TableError(f"bot {label!r} at seat {seat} played {move!r}: {err}") from None
            if action not in state.legal_actions_for(seat):
                raise TableError(f"bot {label!r} at seat {seat} played {move!r}, which is illegal here")
            return state.move_to_string(action)

        searcher = bot if isinstance(bot, SearchBot) else None
        return Job(seat, "bot", self.generation, run, state.move_to_string, searcher is not None, lambda: searcher.last_result if searcher else None)

    def bot_played(self, job: Job, move: str) -> bool:
        """The bot's move found by ``job``, if the table is still where the job started; returns
        whether it was played."""
        if job.generation != self.generation or job.seat not in self.waiting_for():
            return False
        self._decide(job.seat, self.state.parse_move(move))
        return True

    def bot_failed(self, job: Job, error: Exception) -> bool:
        """A bot that raised instead of moving forfeits (recorded as its adjudication)."""
        if job.generation != self.generation or self.over:
            return False
        seat = job.seat
        self.adjudication = Adjudication(seat, self.labels()[seat], f"the bot failed: {error}")
        self.generation += 1
        return True

    # -- help from the engine ----------------------------------------------------------------
    def search_job(self, seat: int, kind: Literal["hint", "analysis"], spec: str, seed: int) -> Job:
        """A search of ``seat``'s own decision from its view (an information-set search, never
        the full state), for the hint or the analysis panel."""
        self._check_turn(seat)
        bot = make_bot(spec, seed=seed)
        if not isinstance(bot, SearchBot) or bot.sees_everything:
            raise OptionError(f"the {kind} needs a search from the view (ismcts, mo_ismcts or pimc), got {spec!r}")
        view: View = self.state.view(seat)
        names = self.state.clone()

        def run(stop: StopFlag, progress: SearchProgress) -> str:
            return names.move_to_string(int(bot.act(view, stop=stop, progress=progress)))

        return Job(seat, kind, self.generation, run, names.move_to_string, True, lambda: bot.last_result)

    def hinted(self, job: Job, move: str) -> bool:
        if job.generation != self.generation or job.seat not in self.waiting_for():
            return False
        self.hints[job.seat] = move
        return True

    # -- undo and resignation ----------------------------------------------------------------
    def can_undo(self, held: set[int]) -> bool:
        """Undo is offered to a browser holding every person seat (alone or hot-seat), once a
        person has decided, until the game is over."""
        return not self.over and bool(self.checkpoints) and set(self.person_seats()) <= held

    def undo(self, held: set[int]) -> None:
        """Takes back the last person decision and everything after it (as ``kibitz play
        --human`` does). Chance after it is drawn afresh from ``derive_seed(seed, "undo", n)``,
        so that an undo does not show the next card; the bots keep what they saw."""
        if self.over:
            raise TableError("the game is over: nothing to undo")
        if not set(self.person_seats()) <= held:
            raise TableError("undo is for a table whose people all play at this screen; another browser plays here")
        if not self.checkpoints:
            raise TableError("nothing to undo yet")
        point = self.checkpoints.pop()
        self.state = point.state
        del self.actions[point.actions :], self.moves[point.actions :], self.entries[point.entries :]
        self.pending.clear()
        self.hints.clear()
        self.undos += 1
        self.chance_seed = derive_seed(self.seed, "undo", self.undos)
        self.draws = 0
        self.generation += 1

    def resign(self, seat: int) -> None:
        """``seat`` gives up at its own decision (a forfeit is recorded at a decision); the game ends."""
        if self.over:
            raise TableError("the game is over")
        if seat not in self.deciding():
            raise TableError(f"seat {seat} may resign at its own turn")
        self.adjudication = Adjudication(seat, self.labels()[seat], RESIGNED)
        self.pending.pop(seat, None)
        self.generation += 1

    # -- results and the record ----------------------------------------------------------------
    def results(self) -> tuple[list[float], list[float], list[int]]:
        """Returns, scores and ranks: the game's, or a forfeit's."""
        if self.adjudication is not None:
            returns, ranks = forfeit_results(self.state, self.adjudication.seat)
            return returns, [0.0] * self.players, ranks
        return self.state.returns(), self.state.scores(), self.state.ranks()

    def record(self) -> GameRecord:
        """The game as a kibitz record (what ``kibitz replay`` reads); only once it is over."""
        if not self.over:
            raise TableError("the record is given once the game is over")
        returns, scores, ranks = self.results()
        return GameRecord(
            game=self.game.name,
            options=dict(self.game.options),
            seed=self.seed,
            specs=self.labels(),
            actions=list(self.actions),
            moves=list(self.moves),
            returns=returns,
            scores=scores,
            ranks=ranks,
            adjudication=None if self.adjudication is None else self.adjudication.to_dict(),
        )

    # -- what a browser receives -------------------------------------------------------------
    def model(self, seat: int | None, held: set[int]) -> dict[str, Any]:
        """The model of docs/web-views.md for ``seat``'s browser (``held``: the seats it plays);
        ``seat=None``: every hand open, only once the game is over."""
        if seat is None and not self.over:
            raise TableError("the hands are shown open once the game is over")
        legal: list[str] = []
        if seat is not None and seat in held and seat in self.waiting_for() and self.seats[seat].person:
            legal = self.state.legal_moves_for(seat)
        chosen = self.pending.get(seat) if seat is not None else None
        model = build_model(
            self.state,
            seat,
            self.entries,
            names=[s.name for s in self.seats],
            mine=sorted(s for s in held if self.seats[s].person),
            legal=legal,
            to_move=self.deciding(),
            over=self.over,
            results=self.results() if self.over else None,
        )
        model["options"] = dict(self.game.options)
        model["hint"] = self.hints.get(seat) if seat is not None else None
        model["chosen"] = None if chosen is None else self.state.move_to_string(chosen)
        model["waiting"] = self.waiting_for()
        if self.adjudication is not None:
            model["adjudication"] = self.adjudication.to_dict()
        return model


def build_model(
    state: State,
    seat: int | None,
    entries: list[Entry],
    *,
    names: list[str],
    mine: list[int],
    legal: list[str],
    to_move: list[int],
    over: bool,
    results: tuple[list[float], list[float], list[int]] | None,
    replaying: bool = False,
) -> dict[str, Any]:
    """A view module's model (docs/web-views.md): from ``state.view(seat)`` and the entries as
    ``seat`` saw them, or from the full state when ``seat`` is None (the caller allows that only
    for a finished game)."""
    if seat is None:
        notation, board = state.notation(), state.render()
    else:
        view = state.view(seat)
        notation, board = view.notation(), view.render()
    log = [{"seat": e.seat, "text": e.text if seat is None else e.seen[seat]} for e in entries]
    moves = [item for item in log if item["seat"] is not None]
    last = 0
    if seat is not None:
        last = next((i + 1 for i in range(len(moves) - 1, -1, -1) if moves[i]["seat"] == seat), 0)
    model: dict[str, Any] = {
        "game": state.game_name,
        "players": state.num_players,
        "options": {},
        "seat": seat,
        "notation": notation,
        "fields": notation_fields(notation),
        "board": board,
        "names": names,
        "mine": mine,
        "toMove": to_move,
        "legal": legal,
        "moves": moves,
        "log": log,
        "last": last,
        "hint": None,
        "terminal": over,
        "replay": replaying,
    }
    if results is not None:
        model["returns"], model["scores"], model["ranks"] = results
    return model


# -- replay of a record ------------------------------------------------------------------------


def read_record(text: str, index: int = 0) -> tuple[GameRecord, int]:
    """Record number ``index`` of a records file's text and how many it holds; raises
    ValueError naming what is wrong (not a record, a record that does not replay)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("the file holds no record (a kibitz record is one JSON object per line)")
    if not 0 <= index < len(lines):
        raise ValueError(f"record {index} does not exist; the file holds {len(lines)}")
    try:
        record = GameRecord.from_json(lines[index])
    except RecursionError:
        raise ValueError("not a game record: JSON nested too deeply") from None
    try:
        replay(record)
    except ValueError as err:
        raise ValueError(f"the record does not replay: {err}") from None
    return record, len(lines)


def replay_steps(record: GameRecord) -> list[tuple[State, list[Entry]]]:
    """The positions a replay steps through, each where a seat decides (chance before it played)
    and at the end, with the entries up to it. The record must replay (:func:`read_record`)."""
    state = initial_state(Game(record.game, **record.options), record.seed)
    entries: list[Entry] = []
    steps: list[tuple[State, list[Entry]]] = []
    actions = record.actions
    i = 0
    while i < len(actions):
        if state.is_chance():
            entries.append(entry_of(state, actions[i]))
            state.apply(actions[i])
            i += 1
            continue
        steps.append((state.clone(), list(entries)))
        if state.is_simultaneous():
            seats = state.choosing_seats()
            joint = dict(zip(seats, actions[i : i + len(seats)]))
            entries.extend(joint_entries(state, joint))
            state.apply_joint(joint)
            i += len(seats)
        else:
            entries.append(entry_of(state, actions[i]))
            state.apply(actions[i])
            i += 1
    steps.append((state, entries))
    return steps
