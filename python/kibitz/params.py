"""Search parameters: one object, settable from Python, printable, JSON-serialisable.

Every search parameter is declared once, as a field of :class:`SearchParams` built by
:func:`parameter`: its type, default, allowed range (or choices), the text-protocol option
that sets it and a line of help. :data:`PARAMETERS` is that table; validation, bot specs
(``ismcts:iterations=5000``), the protocol's ``option`` lines and the docs follow from it.
Adding a parameter is one field here (and its line in :meth:`SearchParams.to_core`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, cast

from kibitz import _core
from kibitz.errors import OptionError, shown

Value = int | float | str


@dataclass(frozen=True)
class Parameter:
    """The declaration of one search parameter: a row of :data:`PARAMETERS`."""

    name: str  # the SearchParams field
    kind: type  # int, float or str
    default: Value
    low: float | None = None  # numbers: the allowed range, both ends included
    high: float | None = None
    choices: tuple[str, ...] = ()  # text: the allowed values
    option: str = ""  # the text protocol's option name; "" if the protocol does not set it
    help: str = ""
    aliases: tuple[str, ...] = ()  # other names a bot spec or options dict may use

    def allowed(self) -> str:
        """What values are allowed, in words: ``an integer in 0..1000000000``."""
        if self.kind is str:
            return "one of " + ", ".join(self.choices)
        noun = "an integer" if self.kind is int else "a number"
        return f"{noun} in {_number_text(self.low)}..{_number_text(self.high)}"

    def check(self, value: Any, label: str | None = None) -> Value:
        """``value`` if it is allowed (an int given for a float becomes a float); raises
        OptionError naming ``label`` (default: the parameter), the value and what is allowed."""
        label = label or f"search parameter {self.name}"
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.kind) or isinstance(value, bool):
            raise OptionError(f"{label}: expected {self.allowed()}, got {shown(value)}")
        if not self._allows(cast(Value, value)):
            raise OptionError(f"{label}: {shown(value)} {self._refusal()}")
        return cast(Value, value)

    def _refusal(self) -> str:
        return f"is {'not allowed' if self.kind is str else 'out of range'}; expected {self.allowed()}"

    def _allows(self, value: Value) -> bool:
        if isinstance(value, str):
            return value in self.choices
        return math.isfinite(value) and self.low <= value <= self.high  # type: ignore[operator]

    def parse(self, raw: Any, label: str | None = None) -> Value:
        """``raw`` (text such as ``"5000"``, ``"1e4"``, ``"0.7"``, or a value) as this
        parameter's type, checked; raises OptionError naming ``label``, the text and the range."""
        label = label or f"search parameter {self.name}"
        if self.kind is str or not isinstance(raw, str):
            return self.check(str(raw) if self.kind is str else raw, label)
        number = parse_number(raw, self.kind, label, self.allowed())
        if not self._allows(number):
            raise OptionError(f"{label}: {shown(raw.strip())} {self._refusal()}")
        return number


def parameter(
    default: Value,
    low: float | None = None,
    high: float | None = None,
    *,
    choices: tuple[str, ...] = (),
    option: str = "",
    help: str,
    aliases: tuple[str, ...] = (),
) -> Any:
    """A field of :class:`SearchParams` with its declaration (see :class:`Parameter`)."""
    declaration = {"low": low, "high": high, "choices": choices, "option": option, "help": help, "aliases": aliases}
    return field(default=default, metadata={"parameter": declaration})


class _DefaultIterations(int):
    """The default iteration budget, told apart from the same number given explicitly: a
    time given alone replaces it (``SearchParams(time_ms=3000)`` searches 3 s)."""


ALGORITHMS = ("so_ismcts", "mo_ismcts", "pimc", "uct")
ROLLOUTS = ("heuristic", "random")
FINAL_MOVES = ("visits", "mean")
SHAPINGS = ("none", "rank", "score")
BACKUPS = ("maxn", "paranoid")
SIMULTANEOUS = ("duct", "rm", "exp3")
MAX_SEED = (1 << 63) - 1  # a signed 64-bit spin option holds every seed


@dataclass(frozen=True)
class SearchParams:
    """Everything a search needs; :data:`PARAMETERS` (one row per field) gives each field's
    range and help. ``iterations`` and ``time_ms`` are the budgets: 0 disables one; with both,
    whichever ends first. A time given without iterations is the whole budget: the default
    of 10,000 iterations applies only when no time is given.

    >>> SearchParams(time_ms=3000).iterations, SearchParams(iterations=500, time_ms=3000).iterations
    (0, 500)

    >>> SearchParams(iterations=2_000_000_000)
    Traceback (most recent call last):
    ...
    kibitz._core.OptionError: search parameter iterations: 2000000000 is out of range; expected an integer in 0..1000000000
    """

    algorithm: str = parameter(
        "so_ismcts",
        choices=ALGORITHMS,
        option="Algorithm",
        help="so_ismcts, mo_ismcts, pimc, or uct (perfect information: sees every hand)",
    )
    iterations: int = parameter(
        _DefaultIterations(10000),
        0,
        1_000_000_000,
        option="Iterations",
        help="iterations per search; 0: no iteration budget; by default 10000, or none when a time is given",
    )
    time_ms: float = parameter(0.0, 0.0, 1e9, help="milliseconds per search; 0: no time budget", aliases=("time", "movetime"))
    c: float = parameter(0.7, 0.0, 100.0, option="Exploration", help="UCB1 exploration constant")
    rollout: str = parameter("heuristic", choices=ROLLOUTS, option="Rollout", help="heuristic (the game's policy) or random")
    epsilon: float = parameter(0.1, 0.0, 1.0, option="Epsilon", help="heuristic rollouts play a uniform random move with this probability")
    determinizations: int = parameter(20, 1, 100_000, option="Determinizations", help="PIMC only: deals searched", aliases=("dets",))
    threads: int = parameter(1, 1, 256, option="Threads", help="root-parallel search threads")
    final: str = parameter("visits", choices=FINAL_MOVES, help="the move played: most visited (visits) or best mean reward (mean)")
    seed: int = parameter(0, 0, MAX_SEED, option="Seed", help="every random choice of the search")
    solve_stones: int = parameter(
        26,
        0,
        64,
        option="SolveStones",
        help="2-player games with an exact solver (Yucata'): once at most this many stones are left, play the "
        "solver's move in a won or tied position (a lost one is searched: the search bets best on a mistake); 0: never",
    )

    solver: int = parameter(
        1,
        0,
        1,
        option="Solver",
        help="1: MCTS-Solver: wins and losses the observer's information decides are proven, proven moves are "
        "taken or avoided, and a proven win at the root is played at once; 0: off",
    )
    memory_mb: int = parameter(
        512,
        1,
        1 << 20,
        option="Hash",
        help="memory for the search trees in MiB, over all threads; at the cap the trees stop growing "
        "and the search goes on iterating from their leaves",
        aliases=("hash",),
    )
    shaping: str = parameter(
        "none",
        choices=SHAPINGS,
        option="Shaping",
        help="what a simulated game is worth beyond its return: none, rank ((n - rank) / (n - 1)) or score "
        "(between the lowest and highest score), mixed in with shaping_weight",
    )
    shaping_weight: float = parameter(
        0.25, 0.0, 1.0, option="ShapingWeight", help="reward = (1 - w) * return + w * the shaped result; 0 = return only"
    )
    backup: str = parameter(
        "maxn",
        choices=BACKUPS,
        option="Backup",
        help="what a node adds for the seat that chose it: maxn (its own reward) or paranoid (every seat outside "
        "the searching team plays against it: one minus the searching seat's reward)",
    )
    mast: float = parameter(
        0.0,
        0.0,
        1.0,
        option="MAST",
        help="MAST: this share of rollout decisions takes the mover's best action by its mean reward in the "
        "search so far (epsilon-greedy with mast_epsilon), the others follow the rollout policy; 0 = off",
    )
    mast_epsilon: float = parameter(
        0.4, 0.0, 1.0, option="MASTEpsilon", help="MAST decisions play a uniform random move with this probability"
    )
    progressive_history: float = parameter(
        0.0,
        0.0,
        100.0,
        option="ProgressiveHistory",
        help="Progressive History weight W: selection adds W * the move's MAST mean / (visits * (1 - mean) + 1); 0 = off",
    )
    progressive_bias: float = parameter(
        0.0,
        0.0,
        100.0,
        option="ProgressiveBias",
        help="progressive bias weight W from the rollout policy: at each selection the move the policy plays "
        "there gains W / (visits + 1); 0 = off",
    )
    simultaneous: str = parameter(
        "duct",
        choices=SIMULTANEOUS,
        option="Simultaneous",
        help="how each choosing seat selects at a simultaneous node, from its own statistics: duct (decoupled UCT, "
        "with c; the strongest in Yak), rm (regret matching, the move played drawn from the average strategy; the "
        "least exploitable in two-seat zero-sum games) or exp3",
    )
    sm_gamma: float = parameter(
        0.1,
        0.0,
        1.0,
        option="SimultaneousGamma",
        help="rm and exp3: the share of uniform exploration mixed into each seat's strategy at a simultaneous node",
    )
    reopen_choices: int = parameter(
        1,
        0,
        1,
        option="ReopenChoices",
        help="1: at a simultaneous node where other seats have chosen already (a position read from a sequential "
        "record), take back the choices this seat has not seen and search them as simultaneous; 0: determinizations "
        "guess them uniformly (a baseline)",
    )
    eval_depth: int = parameter(
        0,
        0,
        100_000,
        option="EvalDepth",
        help="with a plug-in leaf evaluator (kibitz.plugins): rollout decisions played after the tree before the "
        "evaluator scores the position; 0 = it scores the leaf itself; ignored without one",
    )
    policy: tuple[tuple[str, float], ...] = field(default=(), compare=True)
    """Weights of the game's rollout policy by name, e.g. ``(("block", 0.0),)``; the others keep
    their defaults. In a bot spec or options dict each is a key ``policy.<name>``
    (``ismcts:policy.block=0``). ``Game.policy_weights`` lists a game's weights and ranges;
    the search refuses an unknown name or a value out of range."""

    def __post_init__(self) -> None:
        for p in PARAMETERS:
            object.__setattr__(self, p.name, p.check(getattr(self, p.name)))
        object.__setattr__(self, "policy", _policy(self.policy))
        if type(self.iterations) is _DefaultIterations and self.time_ms > 0:
            object.__setattr__(self, "iterations", 0)  # a time given alone is the budget
        if self.iterations == 0 and self.time_ms == 0:
            raise OptionError("set iterations and/or time_ms (both are 0)")

    def to_core(self) -> _core.Params:
        p = _core.Params()
        p.algorithm = getattr(_core.Algorithm, self.algorithm)
        p.iterations = self.iterations
        p.time_limit_ms = self.time_ms
        p.exploration = self.c
        p.heuristic_rollouts = self.rollout == "heuristic"
        p.rollout_epsilon = self.epsilon
        p.determinizations = self.determinizations
        p.threads = self.threads
        p.final_move = _core.FinalMove.most_visits if self.final == "visits" else _core.FinalMove.best_mean
        p.seed = self.seed
        p.solve_stones = self.solve_stones
        p.solver = bool(self.solver)
        p.memory_mb = self.memory_mb
        p.policy = list(self.policy)
        p.shaping = getattr(_core.Shaping, self.shaping)
        p.shaping_weight = self.shaping_weight
        p.backup = getattr(_core.Backup, self.backup)
        p.mast = self.mast
        p.mast_epsilon = self.mast_epsilon
        p.progressive_history = self.progressive_history
        p.progressive_bias = self.progressive_bias
        p.simultaneous = getattr(_core.Simultaneous, self.simultaneous)
        p.sm_gamma = self.sm_gamma
        p.reopen_choices = bool(self.reopen_choices)
        p.eval_depth = self.eval_depth
        return p

    def with_(self, **changes: Any) -> SearchParams:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (``policy`` as a name -> weight mapping)."""
        return {**asdict(self), "policy": dict(self.policy)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchParams:
        return cls.from_options(data)

    @classmethod
    def from_json(cls, text: str) -> SearchParams:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_options(cls, options: dict[str, Any], **base: Any) -> SearchParams:
        """Builds params from text or typed values, e.g. ``{"iterations": "5000", "c": "0.7"}``;
        a key is a field name, its protocol option name (any case) or an alias."""
        values: dict[str, Any] = dict(base)
        policy = dict(_policy(values.pop("policy", ())))
        for key, raw in options.items():
            if key == "policy":
                policy.update(_policy(raw))
            elif key.startswith(POLICY_PREFIX):
                policy[key[len(POLICY_PREFIX) :]] = parse_number(str(raw), float, f"search parameter {key}", "a number")
            else:
                p = find_parameter(key)
                values[p.name] = p.parse(raw)
        return cls(**values, policy=tuple(sorted(policy.items())))

    def __str__(self) -> str:
        items = [f"{k}={v}" for k, v in self.to_dict().items() if k != "policy"]
        return ",".join(items + [f"{POLICY_PREFIX}{name}={value}" for name, value in self.policy])


POLICY_PREFIX = "policy."


def _policy(value: Any) -> tuple[tuple[str, float], ...]:
    """Policy weights as sorted (name, number) pairs, from pairs or a mapping; raises OptionError."""
    items = value.items() if isinstance(value, dict) else value
    try:
        pairs = [(str(name), float(weight)) for name, weight in items]
    except (TypeError, ValueError):
        raise OptionError(f"search parameter policy: expected (name, number) pairs, got {shown(value)}") from None
    for name, weight in pairs:
        if not name.isidentifier() or not math.isfinite(weight):
            raise OptionError(f"search parameter policy: {shown(name)}={shown(weight)} is not a weight name and a finite number")
    return tuple(sorted(pairs))


def _kind(default: Any) -> type:
    return next(kind for kind in (str, float, int) if isinstance(default, kind))


PARAMETERS: tuple[Parameter, ...] = tuple(
    Parameter(f.name, _kind(f.default), cast(Value, f.default), **f.metadata["parameter"])
    for f in fields(SearchParams)
    if "parameter" in f.metadata
)
"""Every search parameter, in field order."""

_BY_NAME = {name.lower(): p for p in PARAMETERS for name in (p.name, p.option, *p.aliases) if name}


def find_parameter(name: str) -> Parameter:
    """The parameter called ``name`` (field name, protocol option name or alias, any case);
    raises OptionError listing the known names."""
    try:
        return _BY_NAME[name.lower()]
    except KeyError:
        raise OptionError(f"unknown search parameter {name!r}; known: {', '.join(p.name for p in PARAMETERS)}") from None


_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", re.IGNORECASE)
MAX_DIGITS = 40  # a longer integer is out of every range (and Python's int() refuses > 4300 digits)


def parse_number(text: str, kind: type, label: str, allowed: str) -> int | float:
    """``text`` read as an ``int`` (decimal digits, or a whole number such as ``1e4``) or a
    ``float`` (``inf`` and ``nan`` included: the caller checks the range); ASCII only.
    Raises OptionError naming ``label``, the text (shortened) and ``allowed`` otherwise."""
    word = text.strip()
    if kind is int and _INTEGER.fullmatch(word):
        if len(word.lstrip("+-").lstrip("0")) > MAX_DIGITS:
            raise OptionError(f"{label}: {shown(word)} is out of range; expected {allowed}")
        return int(word)
    if _NUMBER.fullmatch(word):
        number = float(word)
        if kind is float:
            return number
        if math.isinf(number):
            raise OptionError(f"{label}: {shown(word)} is out of range; expected {allowed}")
        if number.is_integer():
            return int(number)
    raise OptionError(f"{label}: {shown(word)} is not {allowed}")


def _number_text(x: float | None) -> str:
    return str(int(x)) if x is not None and float(x).is_integer() else f"{x:g}"


# help(SearchParams) lists every parameter with its range.
SearchParams.__doc__ = (SearchParams.__doc__ or "") + "\n    Fields (type, default, allowed values): meaning.\n\n" + "\n".join(
    f"    - ``{p.name}`` ({p.kind.__name__}, {p.default!r}, {p.allowed()}): {p.help}" for p in PARAMETERS
)
