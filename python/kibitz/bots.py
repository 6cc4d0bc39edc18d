"""Bots: the Bot protocol, the built-in bots, and bot specs as text.

A bot spec is ``name`` or ``name:key=value,key=value``, for example
``ismcts:iterations=5000,c=0.7,threads=2``. :func:`make_bot` is the one place that reads
specs; the CLI, the match runner and the protocol all use it.

Built-in names: ``random``, ``greedy``, ``uct`` (perfect-information UCT: it sees every
hand, a "cheating" baseline), ``pimc``, ``ismcts`` / ``so_ismcts``, ``mo_ismcts``, and
``expert`` (the per-game expert heuristic players of :mod:`kibitz.experts`). Named
parameter presets from ``bots/*.json`` can be used as names too (see :func:`presets`).
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any, Protocol, runtime_checkable

from kibitz.errors import OptionError, shown
from kibitz.experts import ExpertBot
from kibitz.game import Move, SearchResult, State, View
from kibitz.params import SearchParams, find_parameter


@runtime_checkable
class Bot(Protocol):
    """What a bot implements.

    ``act`` receives the bot's :class:`View` (its own hand and everything public, nothing
    else) and returns a legal move as an action id or text. A bot that sets
    ``sees_everything = True`` receives the full :class:`State` instead; only the
    perfect-information baseline does that, and match tables mark it.
    """

    name: str

    def act(self, view: View) -> Move: ...


class _SeededBot:
    """A bot whose only state is its random generator."""

    name = ""
    sees_everything = False

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)


class RandomBot(_SeededBot):
    """Uniformly random legal moves."""

    name = "random"

    def act(self, view: View) -> Move:
        return self._rng.choice(view.state().legal_actions())


class GreedyBot(_SeededBot):
    """The game's one-ply greedy bot: the move whose result evaluates best."""

    name = "greedy"

    def act(self, view: View) -> Move:
        return view.state()._s.greedy_action(self._rng.getrandbits(63))


class SearchBot:
    """A search bot: UCT, PIMC, SO-ISMCTS or MO-ISMCTS with a :class:`SearchParams`.

    Each decision uses a fresh seed drawn from the bot's seed, so a game is reproducible.
    ``last_result`` keeps the statistics of the latest search.
    """

    def __init__(self, params: SearchParams, name: str | None = None) -> None:
        self.params = params
        self.name = name or params.algorithm
        self.sees_everything = params.algorithm == "uct"
        self._rng = random.Random(params.seed)
        self.last_result: SearchResult | None = None

    def act(self, view: View | State) -> Move:
        state = view if isinstance(view, State) else view.state()
        self.last_result = state.search(self.params.with_(seed=self._rng.getrandbits(63)))
        return self.last_result.action


BUDGETS = ("iterations", "time_ms")
SPEC_CHARS = 80  # a longer spec is cut in error messages
ALGORITHM_NAMES = {"uct": "uct", "pimc": "pimc", "ismcts": "so_ismcts", "so_ismcts": "so_ismcts", "mo_ismcts": "mo_ismcts"}


def presets() -> dict[str, dict[str, Any]]:
    """Named bot presets shipped in ``bots/`` (name -> {"bot": ..., "params": {...}})."""
    found: dict[str, dict[str, Any]] = {}
    folder = resources.files("kibitz") / "presets"
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name.endswith(".json"):
                found.update(json.loads(entry.read_text()))
    return found


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Splits ``name:key=value,...`` into the name and its options; raises OptionError."""
    name, _, rest = spec.strip().partition(":")
    if not name:
        raise OptionError(f"empty bot name in spec {spec!r}")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise OptionError(f"bot spec {spec!r}: expected key=value, got {item!r}")
        if key in options:
            raise OptionError(f"bot spec {spec!r}: {key!r} given twice")
        options[key] = value
    return name, options


def make_bot(spec: str, seed: int = 0) -> Bot:
    """Builds a bot from its spec; raises OptionError naming the spec. The seed drives every
    random choice of the bot unless the spec sets ``seed=`` itself. A budget in the spec
    (``iterations``, ``time_ms``) replaces a preset's: ``strong:time_ms=3000`` searches 3 s."""
    name, options = parse_spec(spec)
    known_presets = presets()
    base_name = known_presets[name]["bot"] if name in known_presets else name
    if base_name in ("random", "greedy"):
        extra = set(options) - {"seed"}
        if extra:
            raise OptionError(f"bot {base_name!r} takes no options except seed; got {', '.join(sorted(extra))}")
        bot_seed = int(find_parameter("seed").parse(options["seed"], f"bot {shown(spec.strip(), SPEC_CHARS)}: seed")) if "seed" in options else seed
        return RandomBot(bot_seed) if base_name == "random" else GreedyBot(bot_seed)
    if base_name == "expert":
        return ExpertBot.from_options(options, seed)
    if base_name not in ALGORITHM_NAMES:
        known = sorted([*ALGORITHM_NAMES, "random", "greedy", "expert", *known_presets])
        raise OptionError(f"unknown bot {name!r}; known bots: {', '.join(known)}")
    try:
        if name in known_presets:
            preset = {k: str(v) for k, v in known_presets[name].get("params", {}).items()}
            if any(find_parameter(k).name in BUDGETS for k in options):
                preset = {k: v for k, v in preset.items() if find_parameter(k).name not in BUDGETS}
            options = {**preset, **options}
        params = SearchParams.from_options(options, algorithm=ALGORITHM_NAMES[base_name], seed=seed)
    except OptionError as err:
        raise OptionError(f"bot {shown(spec.strip(), SPEC_CHARS)}: {err}") from None
    return SearchBot(params, name=name)
