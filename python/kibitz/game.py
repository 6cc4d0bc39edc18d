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

import html
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, SupportsIndex

import numpy as np
import numpy.typing as npt

from kibitz import _core, plugins
from kibitz.errors import IllegalMoveError, NotationError, OptionError, UnknownGameError, shown
from kibitz.params import SearchParams

CHANCE: int = _core.CHANCE
TERMINAL: int = _core.TERMINAL
SIMULTANEOUS: int = _core.SIMULTANEOUS
"""``current_player`` at a simultaneous node: several seats choose at once (see
:meth:`State.is_simultaneous`)."""
JOINT_SEPARATOR: str = _core.JOINT_SEPARATOR
"""Between the choices of a joint move's observation text (:meth:`State.joint_observation_text`)."""

Move = int | str
JointMove = Mapping[int, Move]
"""A joint move: seat -> that seat's move (action id or text), one for every choosing seat."""
ACTION_ID_LIMIT = 1 << 32  # action ids are 32-bit in the core
SEED_LIMIT = 1 << 64  # seeds are 64-bit in the core
DEPTH_LIMIT = 1 << 31  # perft depths are C++ ints
SEEDS_TO_FIND_FIXED_FIELDS = 32  # see Game._fixed_fields


def checked_int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` if it is an int in ``low..high``; raises OptionError naming ``what``, the value
    and the range. Checked here, before the core, whose ints are 32 or 64 bits."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise OptionError(f"{what}: expected an integer in {low}..{high}, got {shown(value)}")
    if not low <= value <= high:
        raise OptionError(f"{what}: {shown(value)} is out of range; expected an integer in {low}..{high}")
    return value


def ascii_text(text: str, what: str, error: type[ValueError] = NotationError) -> str:
    """``text`` if it is ASCII, as every notation, move and option is; otherwise raises
    ``error`` naming the field (the word, or its ``key`` in ``key=value``) and the character."""
    if not isinstance(text, str):
        raise error(f"{what}: expected text, got {text!r}")
    if isinstance(text, NotationText):  # View.notation passed as the attribute it was: the text
        text = text()
    if text.isascii():
        return text
    word = next(w for w in re.split(r"[ \t\r\n]+", text) if not w.isascii())  # ASCII spaces: a non-ASCII one is in a word
    char = next(c for c in word if not c.isascii())
    key, eq, _ = word.partition("=")
    field = f"field {key!r}" if eq and key.isascii() else shown(word)
    raise error(f"{what}: {field} holds the non-ASCII character {char!r}; kibitz notation is ASCII")


def games() -> list[_core.GameInfo]:
    """Every registered game (name, description, player range, options)."""
    return list(_core.games())


@dataclass(frozen=True)
class GameMetadata:
    """What a game is, in the terms of OpenSpiel's ``GameType`` and ``GameInfo`` (docs/research.md).

    ``dynamics``: ``"simultaneous"`` when some nodes let several seats choose at once (the game
    may have ordinary turns too). ``chance``: ``"explicit_stochastic"`` when chance nodes occur
    in play, ``"deterministic"`` when all randomness is in the setup seed. ``information``:
    ``"perfect"`` or ``"imperfect"``. ``utility``: returns are win shares (a sole winner 1, k
    joint winners 1/k, partners share their team's value), so every game is
    ``"constant_sum"`` with seat returns summing to ``utility_sum`` (the team size) in
    ``[min_utility, max_utility]`` = [0, 1]; ``teams`` tells whether seats play in teams.
    ``max_actions``: decision ids lie in ``[0, max_actions)`` (the size of
    :meth:`State.legal_action_mask`); chance outcome ids in ``[0, max_chance_outcomes)``.
    ``max_game_length``: the most decisions a game with these options can take (a joint move
    counts as one), a bound from the rules stated per game in docs/games/<game>.md; ``None``
    when the rules set none. ``observation_size``: the length of
    :meth:`State.observation_tensor`.
    """

    dynamics: Literal["sequential", "simultaneous"]
    chance: Literal["explicit_stochastic", "deterministic"]
    information: Literal["perfect", "imperfect"]
    utility: Literal["constant_sum", "general_sum"]
    teams: bool
    min_utility: float
    max_utility: float
    utility_sum: float | None
    max_actions: int
    max_chance_outcomes: int
    max_game_length: int | None
    observation_size: int


class Game:
    """A game with its options, e.g. ``Game("just4fun_colours", players=4, line=5)``.

    Raises :class:`UnknownGameError` for an unknown name and :class:`OptionError` for an
    unknown option or a bad value.
    """

    def __init__(self, name: str, players: int | str | None = None, **options: Any) -> None:
        self._info = _core.find_game(ascii_text(name, "game name", UnknownGameError))
        opts = {ascii_text(key, "game option", OptionError): ascii_text(str(value), f"option {key}", OptionError) for key, value in options.items()}
        if players is not None:
            opts["players"] = ascii_text(str(players), "option players", OptionError)
        self._info.check_options(opts)
        self.name: str = name
        self.options: dict[str, str] = opts
        initial = self._info.initial(opts, 0)
        self.num_players: int = initial.num_players
        self.teams: list[int] = [initial.team(seat) for seat in range(self.num_players)]
        """The team of each seat (each seat its own team except in partnership games)."""
        self.policy_weights: list[_core.PolicyWeight] = list(initial.policy_weights())
        """The weights of the game's rollout policy (name, default, low, high, help), which
        ``SearchParams.policy`` sets by name and ``kibitz tune`` tunes as ``policy.<name>``."""
        self.eval_weights: list[_core.PolicyWeight] = list(initial.eval_weights())
        """The weights of the game's greedy evaluation (name, default, low, high, help), which
        the greedy bot sets by name (``greedy:eval.<name>=<v>``) and ``kibitz tune`` tunes as
        ``eval.<name>``."""
        self.perfect_information: bool = self._info.perfect_information
        """Nothing is hidden: every seat's view is the full state."""
        self.simultaneous: bool = self._info.simultaneous
        """Some decisions are simultaneous: several seats choose at once (:meth:`State.is_simultaneous`)."""
        self.constants: list[tuple[str, str, str]] = [(name, value, status) for name, value, status in self._info.constants]
        """The rule constants the game declares: (name, value, status), status ``R`` marking a
        reconstruction where the rules are not known."""
        team_sizes = {self.teams.count(team) for team in set(self.teams)}
        length = initial.max_game_length()
        self.metadata: GameMetadata = GameMetadata(
            dynamics="simultaneous" if self._info.simultaneous else "sequential",
            chance="explicit_stochastic" if self._info.chance else "deterministic",
            information="perfect" if self._info.perfect_information else "imperfect",
            utility="constant_sum" if len(team_sizes) == 1 else "general_sum",
            teams=len(set(self.teams)) < self.num_players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=float(team_sizes.pop()) if len(team_sizes) == 1 else None,
            max_actions=self._info.max_actions,
            max_chance_outcomes=self._info.max_chance_outcomes,
            max_game_length=None if length < 0 else length,
            observation_size=initial.observation_tensor_size(),
        )
        """Dynamics, chance, information, utility and the bounds (:class:`GameMetadata`)."""

    @classmethod
    def of_notation(cls, text: str) -> Game:
        """The game a notation (full or a seat's view) is a state of, with the options its
        fields give (players, line length, layout ...); raises NotationError when it does not
        read, UnknownGameError for an unknown game.

        >>> Game.of_notation(Game("just4fun_colours", players=3, line=5).new_initial_state(1).notation())
        Game('just4fun_colours', line=5, players=3, start=2)
        """
        words = ascii_text(text, "notation").split()
        if not words:
            raise NotationError("an empty notation; it starts with the game's name")
        info = _core.find_game(words[0])
        fields = notation_fields(text)
        state = State(info.from_view(text) if "seat" in fields else info.from_string(text))
        options = {name: fields[name] for name, _ in info.options if name in fields}
        return cls(words[0], **{**options, "players": str(state.num_players)})

    def new_initial_state(self, seed: int = 0) -> State:
        """The start of a game; the deal and any random setup come from ``seed`` (0..2^64-1)."""
        return State(self._info.initial(self.options, checked_int(seed, "seed", 0, SEED_LIMIT - 1)))

    def state_from_notation(self, text: str) -> State:
        """A full state from its notation (see :meth:`State.notation`). Raises NotationError
        for text that does not read, or that is a state of another game or of this game with
        other options (players, line length ...), naming the field."""
        return self._fitting(State(self._info.from_string(ascii_text(text, "notation"))))

    def state_from_view(self, text: str) -> State:
        """A full state consistent with a seat view; hidden parts are filled by a fixed sample.
        Raises NotationError as :meth:`state_from_notation` does."""
        return self._fitting(State(self._info.from_view(ascii_text(text, "view notation"))))

    def _fitting(self, state: State) -> State:
        """``state`` if this game could have produced it: its player count and every option
        field the options fix are this game's."""
        if state.num_players != self.num_players:
            raise NotationError(f"the notation has {state.num_players} players; {self!r} has {self.num_players}")
        fields = state.fields()
        for key, expected in self._fixed_fields.items():
            if key in fields and fields[key] != expected:
                raise NotationError(f"the notation has {key}={fields[key]}; {self!r} has {key}={expected}")
        return state

    @cached_property
    def _fixed_fields(self) -> dict[str, str]:
        """The notation fields named after an option whose value the options fix: equal in the
        initial states of many seeds. An option drawn from the seed (a random start seat or
        layout) varies between them and is not checked."""
        names = {name for name, _ in self._info.options}
        samples = [notation_fields(self._info.initial(self.options, seed).to_string()) for seed in range(SEEDS_TO_FIND_FIXED_FIELDS)]
        first = samples[0]
        return {k: v for k, v in first.items() if k in names and all(other.get(k) == v for other in samples[1:])}

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v}" for k, v in sorted(self.options.items()))
        return f"Game({self.name!r}{opts})"


def _state_of_notation(game_name: str, text: str) -> State:
    """The full state of ``text`` in game ``game_name`` (how a pickled State is read back)."""
    return State(_core.find_game(game_name).from_string(text))


def _seats_text(seats: list[int]) -> str:
    return ", ".join(str(seat) for seat in seats)


def _whose_turn(state: State) -> str:
    if state.is_terminal():
        return "the game is over"
    return "chance is to act" if state.is_chance() else f"seat {state.current_player} alone is to move"


def notation_fields(notation: str) -> dict[str, str]:
    """The ``key=value`` words of a notation (a state's or a view's), by key: what code that
    reads a position's parts starts from. Each game's page (docs/games/<game>.md) says what
    its fields hold.

    >>> notation_fields("just4fun_colours players=2 line=4 board=............")["line"]
    '4'
    """
    return dict(word.split("=", 1) for word in notation.split()[1:] if "=" in word)


@dataclass(frozen=True)
class ActionStat:
    """Search statistics of one root action. ``proof`` is ``"win"`` or ``"loss"`` when the
    search proved the move's result for the searching seat's team (MCTS-Solver, whatever the
    hidden cards are), else ``None``. ``probability`` is the search's policy at the root,
    summing to 1 over the actions: at a simultaneous node under ``simultaneous=rm`` or
    ``exp3`` the searching seat's average strategy (the move played is drawn from it),
    otherwise the action's share of the visits."""

    move: str
    action: int
    visits: int
    mean_reward: float
    proof: str | None = None
    probability: float = 0.0


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
    """What a search chose and why. ``forced``: the only legal move, answered without a
    search (no statistics). ``tree_full``: the memory budget (``memory_mb``) was reached and
    the trees stopped growing."""

    move: str
    action: int
    stats: list[ActionStat]
    iterations: int
    nodes: int
    seconds: float
    root_value: float
    forced: bool = False
    tree_full: bool = False

    REPR_MOVES = 5  # moves a repr lists

    def __repr__(self) -> str:
        top = ", ".join(f"{s.move}: {s.visits} visits {s.mean_reward:.3f}" for s in self.stats[: self.REPR_MOVES])
        more = f", ... {len(self.stats) - self.REPR_MOVES} more" if len(self.stats) > self.REPR_MOVES else ""
        flags = "".join(f", {name}" for name in ("forced", "tree_full") if getattr(self, name))
        return (
            f"SearchResult(move={self.move!r}, iterations={self.iterations}, nodes={self.nodes}, "
            f"seconds={self.seconds:.3f}, root_value={self.root_value:.3f}{flags}; [{top}{more}])"
        )

    def _repr_html_(self) -> str:
        """Jupyter's rendering: the chosen move and a table of the root statistics."""
        rows = "".join(
            f"<tr><td>{html.escape(s.move)}</td><td>{s.visits}</td><td>{s.mean_reward:.3f}</td><td>{s.proof or ''}</td></tr>" for s in self.stats
        )
        return (
            f"<div><b>{html.escape(self.move)}</b> after {self.iterations} iterations, {self.nodes} nodes, {self.seconds:.3f} s; "
            f"root value {self.root_value:.3f}</div><table><tr><th>move</th><th>visits</th><th>mean reward</th><th>proof</th></tr>{rows}</table>"
        )


StopFlag = _core.StopFlag
"""Set from another thread (``flag.set()``) to end a running :meth:`State.search` early."""
SearchProgress = _core.Progress
"""Read from another thread while :meth:`State.search` runs: ``iterations`` so far,
``root_stats()`` (each root move's action id, visits and mean reward, most visited first) and
``root_value()`` (their visit-weighted mean reward, as :attr:`SearchResult.root_value`)."""

_PROOFS = {_core.Proof.none: None, _core.Proof.win: "win", _core.Proof.loss: "loss"}


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
        """The seat to move, or ``CHANCE`` (-1), ``TERMINAL`` (-2) or ``SIMULTANEOUS`` (-3)."""
        return self._s.current_player

    def is_terminal(self) -> bool:
        return self._s.is_terminal()

    def is_chance(self) -> bool:
        return self._s.current_player == CHANCE

    def is_simultaneous(self) -> bool:
        """Several seats choose at once here (:meth:`choosing_seats`): each picks from its own
        :meth:`legal_actions_for`, and :meth:`apply_joint` plays the choices together.

        >>> s = Game("biased_rps").new_initial_state()
        >>> s.is_simultaneous(), s.choosing_seats(), s.legal_moves_for(1)
        (True, [0, 1], ['rock', 'paper', 'scissors'])
        >>> s.apply_joint({0: "paper", 1: "rock"})
        >>> s.is_chance(), s.scores()
        (True, [25.0, -25.0])
        """
        return self._s.current_player == SIMULTANEOUS

    def choosing_seats(self) -> list[int]:
        """The seats that choose at this simultaneous node, in the order a game log records
        their choices; empty elsewhere."""
        return self._s.choosing_seats()

    # -- moves ------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Legal decision ids, or the possible chance outcomes at a chance node. At a
        simultaneous node each seat has its own: raises IllegalMoveError pointing to
        :meth:`legal_actions_for`."""
        if self.is_simultaneous():
            raise IllegalMoveError(f"seats {_seats_text(self.choosing_seats())} choose at once here: ask legal_actions_for(seat)")
        return self._s.legal_actions()

    def legal_moves(self) -> list[str]:
        """The legal actions as text (see :meth:`legal_actions`)."""
        return [self._s.action_to_string(a) for a in self.legal_actions()]

    def legal_actions_for(self, seat: int) -> list[int]:
        """The legal decisions of ``seat``: a choosing seat's at a simultaneous node, the
        mover's at a decision node; empty for a seat that does not decide here."""
        return self._s.legal_actions_for(self._seat(seat))

    def legal_moves_for(self, seat: int) -> list[str]:
        """:meth:`legal_actions_for` as text."""
        return [self._s.action_to_string(a) for a in self.legal_actions_for(seat)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node; empty elsewhere."""
        return self._s.chance_outcomes()

    def parse_move(self, move: Move) -> int:
        """The action id of ``move`` (text or id) at this state; raises NotationError."""
        if isinstance(move, str):
            return self._s.parse_action(ascii_text(move, "move").strip())
        if isinstance(move, int) and not isinstance(move, bool) and 0 <= move < ACTION_ID_LIMIT:
            return move
        raise NotationError(f"a move is an action id (int in 0..{ACTION_ID_LIMIT - 1}) or its text, got {move!r}")

    def move_to_string(self, action: int) -> str:
        return self._s.action_to_string(checked_int(action, "action id", 0, ACTION_ID_LIMIT - 1))

    def apply(self, move: Move) -> None:
        """Plays a decision or a chance outcome. On IllegalMoveError or NotationError the
        state is unchanged. A simultaneous node takes :meth:`apply_joint` instead."""
        self._s.apply(self.parse_move(move))

    def parse_joint(self, joint: JointMove) -> dict[int, int]:
        """The action ids of a joint move (seat -> move, as text or id), checked: a mapping
        with exactly one legal move for every choosing seat. Raises IllegalMoveError (a seat
        missing, one that does not choose here, an illegal move) or NotationError (a move that
        does not read), naming the seat and the move."""
        if not isinstance(joint, Mapping):
            raise NotationError(f"a joint move is a mapping seat -> move, got {shown(joint)}")
        seats = self.choosing_seats()
        if not seats:
            raise IllegalMoveError(f"no joint move here: {_whose_turn(self)}")
        for seat in joint:
            if not isinstance(seat, int) or isinstance(seat, bool) or seat not in seats:
                raise IllegalMoveError(f"seat {shown(seat)} does not choose here; the choosing seats are {_seats_text(seats)}")
        missing = [seat for seat in seats if seat not in joint]
        if missing:
            raise IllegalMoveError(f"the joint move has no move of seat {_seats_text(missing)}; every choosing seat ({_seats_text(seats)}) needs one")
        actions = {}
        for seat in seats:
            try:
                action = self.parse_move(joint[seat])
            except NotationError as err:
                raise NotationError(f"seat {seat}: {err}") from None
            legal = self._s.legal_actions_for(seat)
            if action not in legal:
                listing = " ".join(self._s.action_to_string(a) for a in legal)
                raise IllegalMoveError(f"seat {seat}: {self._name(action)} is not legal here; legal: {listing}")
            actions[seat] = action
        return actions

    def apply_joint(self, joint: JointMove) -> None:
        """Plays the simultaneous node: ``joint`` maps every choosing seat (no other) to its
        move, text or id (see :meth:`parse_joint` for the errors). On an error the state is
        unchanged."""
        self._s.apply_joint(self.parse_joint(joint))

    def _name(self, action: int) -> str:
        """An action for an error message: its text quoted, or its id when it has no text here."""
        try:
            return repr(self._s.action_to_string(action))
        except NotationError:
            return f"action id {action}"

    def sample_chance(self, seed: int) -> int:
        """One chance outcome drawn with its probability; ``seed`` in 0..2^64-1."""
        return self._s.sample_chance(checked_int(seed, "seed", 0, SEED_LIMIT - 1))

    def clone(self) -> State:
        return State(self._s.clone())

    __copy__ = clone

    def __deepcopy__(self, memo: dict) -> State:
        return self.clone()

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        """Pickles as the game's name and the full notation, which reads back exactly."""
        return (_state_of_notation, (self.game_name, self.notation()))

    # -- results ----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """Per seat: sole winner 1, k joint winners 1/k each, others 0 (0 for all until the end)."""
        return self._s.returns()

    def scores(self) -> list[float]:
        return self._s.scores()

    def ranks(self) -> list[int]:
        return [int(r) for r in self._s.ranks()]

    def team(self, seat: int) -> int:
        return self._s.team(self._seat(seat))

    def _seat(self, seat: int) -> int:
        """``seat`` if this game has it; raises OptionError naming the seat and the range."""
        return checked_int(seat, "seat", 0, self.num_players - 1)

    # -- information ------------------------------------------------------------------------
    def view(self, seat: int) -> View:
        """What ``seat`` may know, and nothing more."""
        self._seat(seat)
        return View(self.game_name, seat, self._s.view_string(seat), self._s.info_key(seat))

    def info_key(self, seat: int) -> int:
        return self._s.info_key(self._seat(seat))

    def observe(self, seat: int, action: int) -> int | None:
        """What ``seat`` sees of ``action`` played here: the action itself, an id standing
        for the class of moves it cannot tell apart, or ``None`` when it sees nothing of it
        (an opponent's card draw, for instance)."""
        seen = self._s.observe(self._seat(seat), checked_int(action, "action id", 0, ACTION_ID_LIMIT - 1))
        return None if seen == _core.UNOBSERVED else seen

    def observe_choice(self, observer: int, chooser: int, action: int) -> int | None:
        """What ``observer`` sees, when the joint move is made, of the choice ``action`` of
        ``chooser`` at this simultaneous node: the action, a class id, or ``None`` (a choice
        kept secret, such as Yak's Sunrise card, shown only later)."""
        seen = self._s.observe_choice(self._seat(observer), self._seat(chooser), checked_int(action, "action id", 0, ACTION_ID_LIMIT - 1))
        return None if seen == _core.UNOBSERVED else seen

    def joint_observation_text(self, seat: int, joint: JointMove) -> str:
        """What ``seat`` sees of the joint move ``joint`` played here, as text (the protocol's
        ``observe``): by default the choices in :meth:`choosing_seats` order joined by
        :data:`JOINT_SEPARATOR`, ``?`` for one it does not see. :meth:`View.advance` reads it."""
        return self._s.joint_observation_string(self._seat(seat), self.parse_joint(joint))

    def observation_text(self, seat: int, action: int) -> str:
        """What ``seat`` sees of ``action`` played here, as text: the move, ``?`` when it
        sees nothing of it, or more when the move shows something (a blocked turn in Just 4
        Fun Colours shows the hand). :meth:`View.advance` reads it."""
        return self._s.observation_string(self._seat(seat), checked_int(action, "action id", 0, ACTION_ID_LIMIT - 1))

    def after_observation(self, seat: int, seen: str) -> State:
        """A state consistent with ``seat``'s view after the next action, of which the seat saw
        ``seen`` (the text of :meth:`observation_text`); the hidden parts are re-dealt
        consistently with the whole public history. Raises IllegalMoveError when nothing the
        seat thinks possible would look like ``seen``, NotationError when it is not notation."""
        return State(self._s.after_observation(self._seat(seat), ascii_text(seen, "observation").strip(), 0))

    def determinize(self, seat: int, seed: int) -> State:
        """A full state drawn from those consistent with ``seat``'s view; ``seed`` in 0..2^64-1."""
        return State(self._s.determinize(self._seat(seat), checked_int(seed, "seed", 0, SEED_LIMIT - 1)))

    def notation(self) -> str:
        """The full state as text; ``Game.state_from_notation`` reads it back exactly."""
        return self._s.to_string()

    def fields(self) -> dict[str, str]:
        """The ``key=value`` fields of :meth:`notation`, by key (:func:`notation_fields`)."""
        return notation_fields(self.notation())

    # -- tensors (docs/research.md) --------------------------------------------------------------
    def observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        """What ``seat`` may see, as a flat float32 vector of ``Game.metadata.observation_size``
        values (the layout is in docs/games/<game>.md): a function of the seat's view only, so
        equal views give equal tensors. The game writes it in C++ into the array's own buffer."""
        return self._s.observation_tensor(self._seat(seat))

    def observation_tensor_into(self, seat: int, out: npt.NDArray[np.float32]) -> None:
        """:meth:`observation_tensor` written into ``out`` (a writeable contiguous float32 vector of
        the right size, else OptionError), so that a training loop allocates nothing per step."""
        self._s.observation_tensor_into(self._seat(seat), out)

    def legal_action_mask(self, seat: int | None = None) -> npt.NDArray[np.bool_]:
        """A bool vector of ``Game.metadata.max_actions`` entries, true at the legal decisions of
        ``seat`` (default: the seat to move; at a simultaneous node give the choosing seat, see
        :meth:`legal_actions_for`); all false for a seat that does not decide here and at chance
        and terminal nodes."""
        if seat is None:
            seat = self.current_player
            if seat < 0:
                return np.zeros(self._s.max_actions(), dtype=np.bool_)
        return self._s.legal_action_mask(self._seat(seat))

    # -- search -----------------------------------------------------------------------------
    def search(
        self,
        params: SearchParams | Mapping[str, Any],
        stop: StopFlag | None = None,
        progress: SearchProgress | None = None,
        until_stopped: bool = False,
        seat: int | None = None,
        plugin: Any = None,
        opponent_shares: Sequence[float] | None = None,
    ) -> SearchResult:
        """Searches the decision of ``seat`` (default: the seat to move) with ``params``: a
        :class:`SearchParams`, or a mapping that :meth:`SearchParams.from_options` reads
        (``{"iterations": 1000, "c": 0.7}``); anything else is a TypeError. At a simultaneous node ``seat`` is required: one of the choosing seats,
        whose choice is searched with every other choosing seat choosing at the same time
        (``params.simultaneous``; docs/architecture.md §4).

        ``stop``: a :class:`StopFlag` another thread may set to end the search early (it then
        answers with what it has). ``progress``: a :class:`SearchProgress` another thread may
        read while the search runs. ``until_stopped``: ignore the budgets of ``params`` and
        search until ``stop`` is set. ``plugin``: a rollout policy and/or leaf evaluator from
        outside kibitz, anything :func:`kibitz.plugins.load` takes (a module name such as
        ``"kibitz.plugins.yak"``, a module, a :class:`kibitz.plugins.Plugin`).
        ``opponent_shares``: per seat, the share of its tree decisions that play the rollout
        policy's move, in place of ``params.opponent_policy`` (what the bots of
        ``opponent_model=adaptive`` pass: :mod:`kibitz.opponents`); the searching team's are not
        read. An OptionError if there is not one share in 0..1 per seat."""
        if isinstance(params, Mapping):
            params = SearchParams.from_options(params)
        elif not isinstance(params, SearchParams):
            raise TypeError(f"search: params must be a kibitz.SearchParams or a mapping of search parameters such as {{'iterations': 1000}}, got {type(params).__name__}")
        if self.is_simultaneous():
            seats = self.choosing_seats()
            if seat not in seats:
                raise IllegalMoveError(f"seats {_seats_text(seats)} choose at once here: search one of them (seat=...), got {shown(seat)}")
        elif self._s.current_player < 0:
            raise IllegalMoveError("search needs a seat to move; this state is terminal or a chance node")
        elif seat is not None and seat != self._s.current_player:
            raise IllegalMoveError(f"seat {shown(seat)} has no decision here; seat {self._s.current_player} is to move")
        core = params.to_core()
        if stop is not None:
            core.stop = stop
        if progress is not None:
            core.progress = progress
        if plugin is not None:
            core.set_plugin(plugins.load(plugin).capsule)
        if opponent_shares is not None:
            core.opponent_shares = [float(share) for share in opponent_shares]
        if until_stopped:
            if stop is None:
                raise OptionError("until_stopped needs a stop flag")
            core.iterations, core.time_ms = 0, 0.0
        result = self._s.search(core, -1 if seat is None else seat)
        name = self._s.action_to_string
        return SearchResult(
            move=name(result.action),
            action=result.action,
            stats=[ActionStat(name(s.action), s.action, s.visits, s.mean_reward, _PROOFS[s.proof], s.probability) for s in result.stats],
            iterations=result.iterations,
            nodes=result.nodes,
            seconds=result.seconds,
            root_value=result.root_value,
            forced=result.forced,
            tree_full=result.tree_full,
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
        """Leaves after ``depth`` plies; a decision, a joint move (every combination of the
        choosing seats' moves) and a chance outcome are one ply each."""
        return self._s.perft(checked_int(depth, "perft depth", 0, DEPTH_LIMIT - 1))

    # -- display ----------------------------------------------------------------------------
    def render(self, seat: int | None = None) -> str:
        """The board as text: everything, or as ``seat`` sees it (other hands hidden)."""
        return self._s.render() if seat is None else self._s.render(self._seat(seat))

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"<State {self.notation()}>"

    def _repr_html_(self) -> str:
        """Jupyter's rendering: whose turn it is and the whole board (every hand shown)."""
        return _board_html(self.game_name, _whose_turn(self) if self.current_player != SIMULTANEOUS else f"seats {_seats_text(self.choosing_seats())} choose at once", self.render())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._s.equals(other._s)

    def __hash__(self) -> int:
        return hash(self.notation())


NOTATION_WARNING = "View.notation is a method since 2026-12-01: call view.notation() for the text"


def _old_use(text: NotationText) -> str:
    """``text`` as a plain str, after warning the caller's caller that it used the attribute."""
    warnings.warn(NOTATION_WARNING, DeprecationWarning, stacklevel=3)
    return str.__str__(text)


class NotationText(str):
    """What :attr:`View.notation` gives: the view's text, which calling returns as a plain ``str``
    (``view.notation()``, the way to read it since 2026-12-01).

    Before then ``view.notation`` was the text itself. Code written so still works, since this is
    a ``str``, but each use of it as text (a str method, comparing, hashing, formatting, ``in``,
    ``+``, ``len``, ``str()``) warns with a DeprecationWarning that says to call it. Passed where
    kibitz or the standard library takes text (``Game.state_from_view(view.notation)``,
    ``json.dumps``) it is the text, without a warning."""

    _SILENT = frozenset({"__class__", "__call__", "__repr__", "__reduce__", "__reduce_ex__", "__getnewargs__", "__getstate__"})

    def __call__(self) -> str:
        return str.__str__(self)

    def __getattribute__(self, name: str) -> Any:
        if name not in NotationText._SILENT and hasattr(str, name):
            warnings.warn(NOTATION_WARNING, DeprecationWarning, stacklevel=2)
        return super().__getattribute__(name)

    def __str__(self) -> str:
        return _old_use(self)

    def __format__(self, spec: str) -> str:
        return format(_old_use(self), spec)

    def __eq__(self, other: object) -> bool:
        return _old_use(self) == other

    def __ne__(self, other: object) -> bool:
        return _old_use(self) != other

    def __lt__(self, other: str) -> bool:
        return _old_use(self) < other

    def __le__(self, other: str) -> bool:
        return _old_use(self) <= other

    def __gt__(self, other: str) -> bool:
        return _old_use(self) > other

    def __ge__(self, other: str) -> bool:
        return _old_use(self) >= other

    def __hash__(self) -> int:
        return hash(_old_use(self))

    def __len__(self) -> int:
        return len(_old_use(self))

    def __iter__(self) -> Iterator[str]:
        return iter(_old_use(self))

    def __contains__(self, part: str) -> bool:  # type: ignore[override]
        return part in _old_use(self)

    def __getitem__(self, key: SupportsIndex | slice) -> str:
        return _old_use(self)[key]

    def __add__(self, other: str) -> str:
        return _old_use(self) + other

    def __radd__(self, other: str) -> str:
        return other + _old_use(self)

    def __mul__(self, count: SupportsIndex) -> str:
        return _old_use(self) * count

    __rmul__ = __mul__

    def __mod__(self, values: Any) -> str:
        return _old_use(self) % values


@dataclass(frozen=True)
class View:
    """A seat's view: the seat's private information plus everything public.

    :meth:`notation` is its text (as :meth:`State.notation` is a state's; ``str(view)`` gives
    it too); ``key`` a 64-bit information-set key (equal views have equal keys).
    :meth:`state` gives a full state consistent with the view, for search.
    """

    game_name: str
    seat: int
    _text: str = field(repr=False)  # read it with notation()
    key: int

    @property
    def notation(self) -> NotationText:
        """The view as text (call it: ``view.notation()``); ``Game.state_from_view`` reads it.

        It was an attribute until 2026-12-01 (``view.notation`` was the text). Code that still
        uses it so goes on working and is warned (a DeprecationWarning) where it uses the text:
        see :class:`NotationText`."""
        return NotationText(self._text)

    def fields(self) -> dict[str, str]:
        """The ``key=value`` fields of :meth:`notation`, by key (:func:`notation_fields`); what the
        seat cannot see is not in them (a hidden hand reads ``?7``: seven cards)."""
        return notation_fields(self._text)

    def state(self) -> State:
        return State(_core.find_game(self.game_name).from_view(self._text))

    def advance(self, seen: str) -> View:
        """The view after the next action, of which this seat saw ``seen`` (the text of
        :meth:`State.observation_text`). Raises IllegalMoveError when nothing this seat
        thinks possible would look like ``seen``, NotationError when it is not notation."""
        return self.state().after_observation(self.seat, seen).view(self.seat)

    def render(self) -> str:
        """The board as this seat sees it: other seats' hands are hidden."""
        return self.state().render(self.seat)

    def observation_tensor(self) -> npt.NDArray[np.float32]:
        """This seat's :meth:`State.observation_tensor`, from the view alone (a bot's way to it)."""
        return self.state().observation_tensor(self.seat)

    def __str__(self) -> str:
        return self._text

    def _repr_html_(self) -> str:
        """Jupyter's rendering: the board as this seat sees it."""
        return _board_html(self.game_name, f"seen by seat {self.seat}", self.render())


def _board_html(game: str, caption: str, board: str) -> str:
    """A board's text as an HTML block for notebooks: a caption line over the escaped text."""
    return (
        f"<div class='kibitz-board'><div><b>{html.escape(game)}</b>: {html.escape(caption)}</div>"
        f"<pre style='line-height:1.2'>{html.escape(board)}</pre></div>"
    )
