"""Search parameters: one object, settable from Python, printable, JSON-serialisable."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from kibitz import _core
from kibitz.errors import OptionError

ALGORITHMS = ("uct", "pimc", "so_ismcts", "mo_ismcts")
FINAL_MOVES = ("visits", "mean")
ROLLOUTS = ("heuristic", "random")


@dataclass(frozen=True)
class SearchParams:
    """Everything a search needs.

    algorithm: ``uct`` (perfect information: sees every hand), ``pimc``, ``so_ismcts``, ``mo_ismcts``.
    iterations / time_ms: budgets; 0 disables one; with both, whichever ends first.
    c: UCB1 exploration constant. rollout: ``heuristic`` (the game's policy) or ``random``.
    epsilon: heuristic rollouts play a uniform random move with this probability.
    determinizations: PIMC only. threads: root parallelism. final: ``visits`` (most visited
    root move) or ``mean`` (best mean reward). seed: every random choice of the search.
    solve_stones: in 2-player games with an exact solver (Yucata'), once at most this many
    stones are left on the board, play the solver's move in a won or tied position instead of
    searching (a lost position is searched: every move loses against perfect play, and the
    search bets best on a mistake); 0 = never.
    """

    algorithm: str = "so_ismcts"
    iterations: int = 10000
    time_ms: float = 0.0
    c: float = 0.7
    rollout: str = "heuristic"
    epsilon: float = 0.1
    determinizations: int = 20
    threads: int = 1
    final: str = "visits"
    seed: int = 0
    solve_stones: int = 26

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            expected = type(getattr(SearchParams, f.name))
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, f.name, float(value))
            elif not isinstance(value, expected) or isinstance(value, bool):
                raise OptionError(f"search parameter {f.name}: expected {expected.__name__}, got {value!r}")
        if self.algorithm not in ALGORITHMS:
            raise OptionError(f"unknown algorithm {self.algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
        if self.rollout not in ROLLOUTS:
            raise OptionError(f"unknown rollout {self.rollout!r}; expected one of {', '.join(ROLLOUTS)}")
        if self.final not in FINAL_MOVES:
            raise OptionError(f"unknown final-move rule {self.final!r}; expected one of {', '.join(FINAL_MOVES)}")
        checks = [
            (self.iterations >= 0, "iterations must be >= 0"),
            (self.time_ms >= 0, "time_ms must be >= 0"),
            (self.iterations > 0 or self.time_ms > 0, "set iterations and/or time_ms (both are 0)"),
            (self.c >= 0, "c must be >= 0"),
            (0.0 <= self.epsilon <= 1.0, "epsilon must be in [0, 1]"),
            (self.determinizations >= 1, "determinizations must be >= 1"),
            (1 <= self.threads <= 256, "threads must be in 1..256"),
            (self.seed >= 0, "seed must be >= 0"),
            (self.solve_stones >= 0, "solve_stones must be >= 0"),
        ]
        for ok, message in checks:
            if not ok:
                raise OptionError(message)

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
        p.seed = self.seed % (1 << 64)
        p.solve_stones = self.solve_stones
        return p

    def with_(self, **changes: Any) -> SearchParams:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchParams:
        return cls.from_options({k: v for k, v in data.items()})

    @classmethod
    def from_json(cls, text: str) -> SearchParams:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_options(cls, options: dict[str, Any], **base: Any) -> SearchParams:
        """Builds params from text or typed values, e.g. ``{"iterations": "5000", "c": "0.7"}``."""
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = dict(base)
        for key, raw in options.items():
            name = ALIASES.get(key, key)
            if name not in known:
                raise OptionError(f"unknown search parameter {key!r}; known: {', '.join(sorted(known))}")
            values[name] = _coerce(name, raw, type(getattr(cls, name)))
        return cls(**values)

    def __str__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.to_dict().items())


def _coerce(name: str, raw: Any, kind: type) -> Any:
    """``raw`` (text or a value) as ``kind``; an int parameter rejects fractions."""
    if kind is str:
        return str(raw)
    try:
        number = float(raw) if not isinstance(raw, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None or (kind is int and not number.is_integer()):
        raise OptionError(f"search parameter {name}: {raw!r} is not a valid {kind.__name__}")
    return int(number) if kind is int else number


ALIASES = {"exploration": "c", "time": "time_ms", "movetime": "time_ms", "dets": "determinizations"}
