"""Games and states: the Python face of the C++ core.

>>> import kibitz
>>> game = kibitz.Game("just4fun_colours", players=2)
>>> state = game.new_initial_state(seed=7)
>>> state.current_player
0
>>> move = state.legal_moves()[0]
>>> state.apply(move)
>>> state.is_chance()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kibitz import _core
from kibitz.errors import IllegalMoveError, NotationError, OptionError

CHANCE: int = _core.CHANCE
TERMINAL: int = _core.TERMINAL

Move = int | str
ACTION_ID_LIMIT = 1 << 32  # action ids are 32-bit in the core


def games() -> list[_core.GameInfo]:
    """Every registered game (name, description, player range, options)."""
    return list(_core.games())


class Game:
    """A game with its options, e.g. ``Game("just4fun_colours", players=4, line=5)``.

    Raises :class:`UnknownGameError` for an unknown name and :class:`OptionError` for an
    unknown option or a bad value.
    """

    def __init__(self, name: str, players: int | str | None = None, **options: Any) -> None:
        self._info = _core.find_game(name)
        opts = {key: str(value) for key, value in options.items()}
        if players is not None:
            opts["players"] = str(players)
        self._info.check_options(opts)
        self.name: str = name
        self.options: dict[str, str] = opts
        initial = self._info.initial(opts, 0)
        self.num_players: int = initial.num_players
        self.teams: list[int] = [initial.team(seat) for seat in range(self.num_players)]
        """The team of each seat (each seat its own team except in partnership games)."""

    def new_initial_state(self, seed: int = 0) -> State:
        """The start of a game; the deal and any random setup come from ``seed``."""
        return State(self._info.initial(self.options, seed))

    def state_from_notation(self, text: str) -> State:
        """A full state from its notation (see :meth:`State.notation`)."""
        return State(self._info.from_string(text))

    def state_from_view(self, text: str) -> State:
        """A full state consistent with a seat view; hidden parts are filled by a fixed sample."""
        return State(self._info.from_view(text))

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v}" for k, v in sorted(self.options.items()))
        return f"Game({self.name!r}{opts})"


@dataclass(frozen=True)
class ActionStat:
    """Search statistics of one root action."""

    move: str
    action: int
    visits: int
    mean_reward: float


@dataclass(frozen=True)
class SolveResult:
    """The exact game-theoretic result of a 2-player position (:meth:`State.solve`).

    ``values[seat]`` is what perfect play from both sides gives that seat: 1 a win, 0.5 a
    tie, 0 a loss (the two values sum to 1). ``move``/``action`` is a best move for the seat
    to move (when every move loses, the first one the solver tried). ``nodes`` counts the
    positions searched.
    """

    move: str
    action: int
    values: list[float]
    nodes: int
    seconds: float


@dataclass(frozen=True)
class SearchResult:
    """What a search chose and why."""

    move: str
    action: int
    stats: list[ActionStat]
    iterations: int
    nodes: int
    seconds: float
    root_value: float


class State:
    """A full game state (every hand and the stock included). Value semantics: use
    :meth:`clone` for an independent copy."""

    __slots__ = ("_s",)

    def __init__(self, core_state: _core.State) -> None:
        self._s = core_state

    # -- whose turn -------------------------------------------------------------------------
    @property
    def game_name(self) -> str:
        return self._s.game_name

    @property
    def num_players(self) -> int:
        return self._s.num_players

    @property
    def current_player(self) -> int:
        """The seat to move, or ``CHANCE`` (-1), or ``TERMINAL`` (-2)."""
        return self._s.current_player

    def is_terminal(self) -> bool:
        return self._s.is_terminal()

    def is_chance(self) -> bool:
        return self._s.current_player == CHANCE

    # -- moves ------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Legal decision ids, or the possible chance outcomes at a chance node."""
        return self._s.legal_actions()

    def legal_moves(self) -> list[str]:
        """The legal actions as text."""
        return [self._s.action_to_string(a) for a in self._s.legal_actions()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node; empty elsewhere."""
        return self._s.chance_outcomes()

    def parse_move(self, move: Move) -> int:
        """The action id of ``move`` (text or id) at this state; raises NotationError."""
        if isinstance(move, str):
            return self._s.parse_action(move.strip())
        if isinstance(move, int) and not isinstance(move, bool) and 0 <= move < ACTION_ID_LIMIT:
            return move
        raise NotationError(f"a move is an action id (int in 0..{ACTION_ID_LIMIT - 1}) or its text, got {move!r}")

    def move_to_string(self, action: int) -> str:
        return self._s.action_to_string(action)

    def apply(self, move: Move) -> None:
        """Plays a decision or a chance outcome. On IllegalMoveError or NotationError the
        state is unchanged."""
        self._s.apply(self.parse_move(move))

    def sample_chance(self, seed: int) -> int:
        """One chance outcome drawn with its probability."""
        return self._s.sample_chance(seed)

    def clone(self) -> State:
        return State(self._s.clone())

    __copy__ = clone

    def __deepcopy__(self, memo: dict) -> State:
        return self.clone()

    # -- results ----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """Per seat: sole winner 1, k joint winners 1/k each, others 0 (0 for all until the end)."""
        return self._s.returns()

    def scores(self) -> list[float]:
        return self._s.scores()

    def ranks(self) -> list[int]:
        return [int(r) for r in self._s.ranks()]

    def team(self, seat: int) -> int:
        return self._s.team(seat)

    # -- information ------------------------------------------------------------------------
    def view(self, seat: int) -> View:
        """What ``seat`` may know, and nothing more."""
        return View(self.game_name, seat, self._s.view_string(seat), self._s.info_key(seat))

    def info_key(self, seat: int) -> int:
        return self._s.info_key(seat)

    def observe(self, seat: int, action: int) -> int | None:
        """What ``seat`` sees of ``action`` played here: the action itself, an id standing
        for the class of moves it cannot tell apart, or ``None`` when it sees nothing of it
        (an opponent's card draw, for instance)."""
        seen = self._s.observe(seat, action)
        return None if seen == _core.UNOBSERVED else seen

    def observation_text(self, seat: int, action: int) -> str:
        """What ``seat`` sees of ``action`` played here, as text: the move, ``?`` when it
        sees nothing of it, or more when the move shows something (a blocked turn in Just 4
        Fun Colours shows the hand). :meth:`View.advance` reads it."""
        return self._s.observation_string(seat, action)

    def determinize(self, seat: int, seed: int) -> State:
        """A full state drawn from those consistent with ``seat``'s view."""
        return State(self._s.determinize(seat, seed))

    def notation(self) -> str:
        """The full state as text; ``Game.state_from_notation`` reads it back exactly."""
        return self._s.to_string()

    # -- search -----------------------------------------------------------------------------
    def search(self, params: Any) -> SearchResult:
        """Searches the decision of the seat to move with ``params`` (a SearchParams)."""
        if self._s.current_player < 0:
            raise IllegalMoveError("search needs a seat to move; this state is terminal or a chance node")
        result = self._s.search(params.to_core())
        name = self._s.action_to_string
        return SearchResult(
            move=name(result.action),
            action=result.action,
            stats=[ActionStat(name(s.action), s.action, s.visits, s.mean_reward) for s in result.stats],
            iterations=result.iterations,
            nodes=result.nodes,
            seconds=result.seconds,
            root_value=result.root_value,
        )

    def solve(self) -> SolveResult:
        """Solves the position exactly: alpha-beta with a transposition table over the whole
        rest of the game (csrc/search/solver.h). Only 2-player games with a solver (Yucata');
        raises ValueError otherwise, and IllegalMoveError when no seat is to move. The cost
        grows fast with the game left: see docs/games/yucata.md for timings.

        >>> s = Game("yucata", start=0).new_initial_state(seed=1)
        >>> for card in "1321324S54SQQ5":  # seven cards each; seat 0 on 18, seat 1 on 22
        ...     s.apply(card)
        >>> result = s.solve()
        >>> result.values, result.move
        ([0.5, 0.5], 'Q')
        """
        seat = self._s.current_player
        if seat < 0:
            raise IllegalMoveError("solve needs a seat to move; this state is terminal or a chance node")
        result = self._s.solve()
        values = [0.0] * self.num_players
        values[seat] = result.value
        values[1 - seat] = 1.0 - result.value
        return SolveResult(self._s.action_to_string(result.action), result.action, values, result.nodes, result.seconds)

    def perft(self, depth: int) -> int:
        """Leaves after ``depth`` plies; a decision and a chance outcome are one ply each."""
        if depth < 0:
            raise OptionError(f"perft depth must be >= 0, got {depth}")
        return self._s.perft(depth)

    # -- display ----------------------------------------------------------------------------
    def __str__(self) -> str:
        return self._s.render()

    def __repr__(self) -> str:
        return f"<State {self.notation()}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._s.equals(other._s)

    def __hash__(self) -> int:
        return hash(self.notation())


@dataclass(frozen=True)
class View:
    """A seat's view: the seat's private information plus everything public.

    ``notation`` is the text form; ``key`` a 64-bit information-set key (equal views have
    equal keys). :meth:`state` gives a full state consistent with the view, for search.
    """

    game_name: str
    seat: int
    notation: str
    key: int

    def state(self) -> State:
        return State(_core.find_game(self.game_name).from_view(self.notation))

    def advance(self, seen: str) -> View:
        """The view after the next action, of which this seat saw ``seen`` (the text of
        :meth:`State.observation_text`). Raises IllegalMoveError when nothing this seat
        thinks possible would look like ``seen``, NotationError when it is not notation."""
        after = self.state()._s.after_observation(self.seat, seen.strip(), 0)
        return View(self.game_name, self.seat, after.view_string(self.seat), after.info_key(self.seat))

    def render(self) -> str:
        """The board as this seat sees it: other seats' hands are hidden."""
        return self.state()._s.render(self.seat)

    def __str__(self) -> str:
        return self.notation
