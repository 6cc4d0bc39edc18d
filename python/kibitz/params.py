"""Search parameters: one object, settable from Python, printable, JSON-serialisable.

Every search parameter is declared once, as a row of the C++ table
``csrc/search/param_table.h``: its type, default, allowed range (or choices), whether
``kibitz tune`` searches it on a log scale, the algorithms that read it, the text-protocol
option that sets it and a line of help. :data:`PARAMETERS` is that table, read from
``_core.parameter_table()``; :class:`SearchParams`, validation, bot specs
(``ismcts:iterations=5000``), the protocol's ``option`` lines, the tuning space and the docs
follow from it. SearchParams' typed fields are generated from the table too (by
``python tests/test_typing.py --write``; docs/architecture.md §5.3 lists the steps).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
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
    log: bool = False  # kibitz tune searches the declared range on a log scale
    tunable: bool = False  # a number that changes the search's decisions (not only its resources)
    algorithms: tuple[str, ...] = ()  # the search algorithms that read it

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


def _row(row: dict[str, Any]) -> Parameter:
    kind = {"int": int, "float": float, "str": str}[row["kind"]]
    default = _DefaultIterations(row["default"]) if row["name"] == "iterations" else row["default"]
    names = ("low", "high", "choices", "option", "help", "aliases", "log", "tunable", "algorithms")
    return Parameter(row["name"], kind, default, **{name: row[name] for name in names})


class _DefaultIterations(int):
    """The default iteration budget, told apart from the same number given explicitly: a
    time given alone replaces it (``SearchParams(time_ms=3000)`` searches 3 s)."""


PARAMETERS: tuple[Parameter, ...] = tuple(_row(row) for row in _core.parameter_table())
"""Every search parameter, in the table's order."""

_DECLARED = {p.name: p for p in PARAMETERS}


def _declared(name: str) -> Any:
    """The field of :class:`SearchParams` for the table's parameter ``name``."""
    return field(default=_DECLARED[name].default, metadata={"parameter": _DECLARED[name]})


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

    # -- generated from _core.parameter_table() by `python tests/test_typing.py --write`: do not edit --
    algorithm: str = _declared("algorithm")
    iterations: int = _declared("iterations")
    time_ms: float = _declared("time_ms")
    c: float = _declared("c")
    rollout: str = _declared("rollout")
    epsilon: float = _declared("epsilon")
    determinizations: int = _declared("determinizations")
    threads: int = _declared("threads")
    final: str = _declared("final")
    temperature: float = _declared("temperature")
    temperature_visits: float = _declared("temperature_visits")
    seed: int = _declared("seed")
    solve_stones: int = _declared("solve_stones")
    solver: int = _declared("solver")
    memory_mb: int = _declared("memory_mb")
    shaping: str = _declared("shaping")
    shaping_weight: float = _declared("shaping_weight")
    opponent_policy: float = _declared("opponent_policy")
    opponent_model: str = _declared("opponent_model")
    simultaneous: str = _declared("simultaneous")
    sm_gamma: float = _declared("sm_gamma")
    reopen_choices: int = _declared("reopen_choices")
    eval_depth: int = _declared("eval_depth")
    # -- end of the generated fields --
    policy: tuple[tuple[str, float], ...] = field(default=(), compare=True)
    """Weights of the game's rollout policy by name, e.g. ``(("block", 0.0),)``; the others keep
    their defaults. In a bot spec or options dict each is a key ``policy.<name>``
    (``ismcts:policy.block=0``). ``Game.policy_weights`` lists a game's weights and ranges;
    the search refuses an unknown name or a value out of range."""

    def __post_init__(self) -> None:
        for p in PARAMETERS:
            object.__setattr__(self, p.name, p.check(getattr(self, p.name)))
        object.__setattr__(self, "policy", weight_pairs(self.policy, "search parameter policy"))
        if type(self.iterations) is _DefaultIterations and self.time_ms > 0:
            object.__setattr__(self, "iterations", 0)  # a time given alone is the budget
        if self.iterations == 0 and self.time_ms == 0:
            raise OptionError("set iterations and/or time_ms (both are 0)")

    def to_core(self) -> _core.Params:
        p = _core.Params()
        for q in PARAMETERS:
            setattr(p, q.name, getattr(self, q.name))
        p.policy = list(self.policy)
        return p

    def with_(self, **changes: Any) -> SearchParams:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (``policy`` as a name -> weight mapping)."""
        return {**asdict(self), "policy": dict(self.policy)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchParams:
        """The params of :meth:`to_dict`'s output (or any mapping :meth:`from_options` takes)."""
        return cls.from_options(data)

    @classmethod
    def from_json(cls, text: str) -> SearchParams:
        """The params of :meth:`to_json`'s output: a JSON object of parameter names to values;
        raises OptionError for text that is not JSON or not an object."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as err:
            raise OptionError(f"SearchParams.from_json: not JSON ({err}): {shown(text)}") from None
        return cls.from_dict(data)

    @classmethod
    def from_options(cls, options: Mapping[str, Any], **base: Any) -> SearchParams:
        """Builds params from text or typed values, e.g. ``{"iterations": "5000", "c": "0.7"}``;
        a key is a field name, its protocol option name (any case) or an alias. Raises
        OptionError for anything but a mapping of such names."""
        if not isinstance(options, Mapping):
            raise OptionError(f"search parameters: expected a mapping (a JSON object) of parameter names to values, got {type(options).__name__} {shown(options)}")
        if not all(isinstance(key, str) for key in options):
            raise OptionError(f"search parameters: names are text, got {shown(next(k for k in options if not isinstance(k, str)))}")
        values: dict[str, Any] = dict(base)
        policy = dict(weight_pairs(values.pop("policy", ()), "search parameter policy"))
        for key, raw in options.items():
            if key == "policy":
                policy.update(weight_pairs(raw, "search parameter policy"))
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
"""Bot-spec keys of the game's rollout-policy weights (``Game.policy_weights``): ``policy.<name>``."""
EVAL_PREFIX = "eval."
"""Bot-spec keys of the game's greedy-evaluation weights (``Game.eval_weights``): ``eval.<name>``."""


def weight_pairs(value: Any, label: str) -> tuple[tuple[str, float], ...]:
    """Heuristic weights as sorted (name, number) pairs, from pairs or a mapping; raises
    OptionError naming ``label``. Whether the game has such a weight, in its range, the core
    checks when it plays them."""
    items = value.items() if isinstance(value, dict) else value
    try:
        pairs = [(str(name), float(weight)) for name, weight in items]
    except (TypeError, ValueError):
        raise OptionError(f"{label}: expected (name, number) pairs, got {shown(value)}") from None
    for name, weight in pairs:
        if not name.isidentifier() or not math.isfinite(weight):
            raise OptionError(f"{label}: {shown(name)}={shown(weight)} is not a weight name and a finite number")
    return tuple(sorted(pairs))


_BY_NAME = {name.lower(): p for p in PARAMETERS for name in (p.name, p.option, *p.aliases) if name}


REMOVED_PARAMETERS = frozenset(
    {"backup", "mast", "mast_epsilon", "progressive_history", "progressive_bias", "infer_pool", "infer_turns", "infer_temperature"}
    | {"infer_epsilon", "rollout_depth", "eval_scale"}
)
"""Search parameters that measurements did not keep and that left the search (issue 41): a spec or
a saved parameter set naming one is refused with that reason; docs/research-log/ keeps what was
measured."""


def find_parameter(name: str) -> Parameter:
    """The parameter called ``name`` (field name, protocol option name or alias, any case);
    raises OptionError listing the known names."""
    try:
        return _BY_NAME[name.lower()]
    except KeyError:
        known = ", ".join(p.name for p in PARAMETERS)
        if name.lower() in REMOVED_PARAMETERS:
            raise OptionError(f"search parameter {name!r} was removed: measured and not kept (docs/research-log/); known: {known}") from None
        raise OptionError(f"unknown search parameter {name!r}; known: {known}") from None


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
