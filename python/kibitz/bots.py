"""Bots: the Bot protocol, the built-in bots, and bot specs as text.

A bot spec is ``name`` or ``name:key=value,key=value``, for example
``ismcts:iterations=5000,c=0.7,threads=2``. :func:`make_bot` is the one place that reads
specs; the CLI, the match runner and the protocol all use it.

Built-in names: ``random``, ``greedy``, ``uct`` (perfect-information UCT: it sees every
hand, a "cheating" baseline), ``pimc``, ``ismcts`` / ``so_ismcts``, ``mo_ismcts``, and
``expert`` (the per-game expert heuristic players of :mod:`kibitz.experts`). Named
parameter presets from ``bots/*.json`` can be used as names too (see :func:`presets`), and
a search bot loads a parameter set of one game, ``bots/<game>/<name>.json`` as ``kibitz
tune`` writes them, with ``preset=``: ``ismcts:preset=tuned-2p`` (see :func:`parameter_set`).
"""

from __future__ import annotations

import json
import os
import random
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kibitz import plugins
from kibitz.errors import OptionError, shown
from kibitz.experts import ExpertBot
from kibitz.game import Move, SearchProgress, SearchResult, State, StopFlag, View, games
from kibitz.opponents import OpponentModel
from kibitz.params import EVAL_PREFIX, POLICY_PREFIX, SearchParams, find_parameter, parse_number, weight_pairs

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11+; annotations only
    from importlib.resources.abc import Traversable


@runtime_checkable
class Bot(Protocol):
    """What a bot implements.

    ``act`` receives the bot's :class:`View` (its own hand and everything public, nothing
    else) and returns a legal move as an action id or text; at a simultaneous node, the move
    of its own seat (``view.seat``), chosen without seeing the other seats'. A bot that sets
    ``sees_everything = True`` receives the full :class:`State` instead, and at a simultaneous
    node its seat too (``act(state, seat)``); only the perfect-information baseline does that,
    and match tables mark it. A bot may also have ``observe_move(before, mover, move, seat)``:
    the match runner then shows it every other seat's sequential decision (the move's text) with
    its own seat's view before it (the full state if it sees everything), as the player at the
    table sees it (:meth:`SearchBot.observe_move`).
    """

    name: str

    def act(self, view: View) -> Move: ...


class _SeededBot:
    """A bot whose only state is its random generator."""

    name = ""
    sees_everything = False

    def __init__(self, seed: int = 0) -> None:
        self._seed = seed
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self._seed})"


class RandomBot(_SeededBot):
    """Uniformly random legal moves (its own seat's at a simultaneous node)."""

    name = "random"

    def act(self, view: View) -> Move:
        return self._rng.choice(view.state().legal_actions_for(view.seat))


class GreedyBot(_SeededBot):
    """The game's one-ply greedy bot: the move whose result evaluates best. At a simultaneous
    node the other seats' choices, which it cannot see, are drawn at random.

    ``eval`` sets weights of the game's evaluation by name (``Game.eval_weights``; in a spec
    ``greedy:eval.<name>=<v>``), the others keep their defaults; an unknown name or a value out
    of range is an OptionError when the bot first plays."""

    name = "greedy"

    def __init__(self, seed: int = 0, eval: Any = ()) -> None:
        super().__init__(seed)
        self.eval = weight_pairs(eval, "greedy bot eval")

    def __repr__(self) -> str:
        weights = "".join(f", {EVAL_PREFIX}{name}={value}" for name, value in self.eval)
        return f"GreedyBot(seed={self._seed}{weights})"

    def act(self, view: View) -> Move:
        state = view.state()
        seed = self._rng.getrandbits(63)
        weights = list(self.eval)
        return state._s.greedy_choice(view.seat, seed, weights) if state.is_simultaneous() else state._s.greedy_action(seed, weights)


class PolicyBot(_SeededBot):
    """The search's rollout policy played as a bot: the game's heuristic move, on a deal of the
    hidden cards drawn consistently with the bot's view (the policy may read other hands; a
    view alone does not have them). ``policy`` sets the policy's weights by name
    (``Game.policy_weights``; in a spec ``policy:policy.<name>=<v>``). A fast sparring partner:
    what the search's playouts assume a player does."""

    name = "policy"

    def __init__(self, seed: int = 0, policy: Any = ()) -> None:
        super().__init__(seed)
        self.policy = weight_pairs(policy, "policy bot weights")

    def __repr__(self) -> str:
        weights = "".join(f", {POLICY_PREFIX}{name}={value}" for name, value in self.policy)
        return f"PolicyBot(seed={self._seed}{weights})"

    def act(self, view: View) -> Move:
        if view.state().is_simultaneous():
            raise OptionError("the policy bot plays sequential decisions only; at a simultaneous node use greedy or a search")
        deal = view.state().determinize(view.seat, self._rng.getrandbits(63))
        return deal._s.heuristic_action(self._rng.getrandbits(63), list(self.policy))


class SearchBot:
    """A search bot: UCT, PIMC, SO-ISMCTS or MO-ISMCTS with a :class:`SearchParams`.

    Each decision uses a fresh seed drawn from the bot's seed, so a game is reproducible.
    ``last_result`` keeps the statistics of the latest search. ``plugin``: a rollout policy
    and/or leaf evaluator (anything :func:`kibitz.plugins.load` takes), loaded here; a spec
    sets it with ``plugin=<module>``. With ``opponent_model=adaptive`` the bot plays one game:
    ``opponents`` (a :class:`kibitz.opponents.OpponentModel`, from its first call on) learns from
    the other seats' moves, which :meth:`observe_move` reads.
    """

    def __init__(self, params: SearchParams, name: str | None = None, plugin: Any = None) -> None:
        self.params = params
        self.plugin = plugins.load(plugin) if plugin is not None else None
        self.name = name or params.algorithm
        self.sees_everything = params.algorithm == "uct"
        self._rng = random.Random(params.seed)
        self.last_result: SearchResult | None = None
        self.opponents: OpponentModel | None = None

    def __repr__(self) -> str:
        """The name, and the parameters that differ from the defaults, as a spec would set them."""
        defaults = SearchParams(algorithm=self.params.algorithm).to_dict()
        changed = [f"{key}={value}" for key, value in self.params.to_dict().items() if value != defaults[key]]
        if self.plugin is not None:
            changed.append(f"plugin={self.plugin.source or self.plugin.name}")
        return f"SearchBot({self.name!r}, {self.params.algorithm}{':' if changed else ''}{','.join(changed)})"

    def act(self, view: View | State, seat: int | None = None, *, stop: StopFlag | None = None, progress: SearchProgress | None = None) -> Move:
        """The move for ``view``'s seat; given the full state (``uct``), for ``seat`` (default:
        the seat to move; at a simultaneous node the bot's seat is needed). ``stop`` and
        ``progress`` are passed to :meth:`State.search`: another thread may end the search
        early (the bot then plays the best move found so far) or watch it run."""
        return self.search(view, seat, stop=stop, progress=progress).action

    def search(
        self,
        view: View | State,
        seat: int | None = None,
        *,
        params: SearchParams | None = None,
        stop: StopFlag | None = None,
        progress: SearchProgress | None = None,
        until_stopped: bool = False,
    ) -> SearchResult:
        """The search behind :meth:`act`, with its whole result (kept in ``last_result``).
        ``params`` replaces the bot's parameters for this decision only (the text protocol's
        ``go`` line sets its own budget); the seed is still the bot's next one.
        ``until_stopped``: search until ``stop`` is set, whatever the budget. Raises
        OptionError where the bot cannot search ``view`` (:meth:`check`)."""
        self.check(view)
        state = view if isinstance(view, State) else view.state()
        own = seat if isinstance(view, State) else view.seat
        searched = own if state.is_simultaneous() else None  # a sequential decision is the mover's
        model = self._opponent_model(state, state.current_player if own is None else own)
        decision = (params or self.params).with_(seed=self._rng.getrandbits(63))
        shares = None if model is None else model.shares()
        self.last_result = state.search(
            decision, stop=stop, progress=progress, until_stopped=until_stopped, seat=searched, plugin=self.plugin, opponent_shares=shares
        )
        return self.last_result

    def check(self, view: View | State) -> None:
        """Raises OptionError if this bot cannot search ``view``: the perfect-information ``uct``
        bot needs the full state of a game with hidden information, since from a seat's view it
        would search one guessed deal as if it were the truth."""
        if self.sees_everything and isinstance(view, View) and not _perfect_information(view.game_name):
            raise OptionError(
                f"algorithm uct searches the full state as if every hand were known, but it was given only seat {view.seat}'s "
                "view; use so_ismcts, mo_ismcts or pimc, or give it the full state"
            )

    def observe_move(self, before: View | State, mover: int, move: str, seat: int) -> None:
        """Another seat's sequential decision ``move`` (its text) at ``before``, seen by this
        bot at ``seat``: its view of the position, or the full state for a bot that sees
        everything. The adaptive opponent model learns from it; without
        ``opponent_model=adaptive``, or for a move the seat saw only as ``?``, nothing happens."""
        if self.params.opponent_model != "adaptive" or mover == seat or mover < 0 or move.strip() == "?":
            return
        model = self._opponent_model(before, seat)
        assert model is not None
        model.observe(before, mover, move)

    def forget_opponents(self) -> None:
        """Forgets what the adaptive opponent model learned: the next decision starts a new
        estimate (a position given whole comes without the moves that led to it)."""
        self.opponents = None

    def _opponent_model(self, position: View | State, seat: int) -> OpponentModel | None:
        if self.params.opponent_model != "adaptive":
            return None
        if self.opponents is None:
            self.opponents = OpponentModel.for_seat(position, seat, self.params, seed=self._rng.getrandbits(63))
        return self.opponents


def _perfect_information(game_name: str) -> bool:
    return next(info.perfect_information for info in games() if info.name == game_name)


BUDGETS = ("iterations", "time_ms")
LEVEL_KEY = "level"  # a spec's difficulty level (kibitz.levels), not a search parameter
PLUGIN_KEY = "plugin"  # a spec's plug-in (kibitz.plugins.load), not a search parameter
SPEC_CHARS = 80  # a longer spec is cut in error messages
ALGORITHM_NAMES = {"uct": "uct", "pimc": "pimc", "ismcts": "so_ismcts", "so_ismcts": "so_ismcts", "mo_ismcts": "mo_ismcts"}


PRESETS_FORMAT = 1
"""The format of a presets file (``bots/default.json``): ``{"format": 1, "<name>": {"bot": ...,
"params": {...}}, ...}``; a file without ``format`` is format 1 (docs/formats.md)."""


def presets() -> dict[str, dict[str, Any]]:
    """Named bot presets shipped in ``bots/`` (name -> {"bot": ..., "params": {...}})."""
    found: dict[str, dict[str, Any]] = {}
    folder = resources.files("kibitz") / "presets"
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name.endswith(".json"):
                found.update(read_presets(entry))
    return found


def read_presets(entry: Traversable | Path) -> dict[str, dict[str, Any]]:
    """The presets of one presets file (see :data:`PRESETS_FORMAT`); raises OptionError naming
    the file for one that does not read, or that is of a format newer than this kibitz reads."""
    try:
        data = json.loads(entry.read_text())
    except (OSError, ValueError) as err:
        raise OptionError(f"presets file {entry}: {err}") from None
    if not isinstance(data, dict):
        raise OptionError(f"presets file {entry}: expected a JSON object of named presets")
    version = data.pop("format", 1)
    _check_format(f"presets file {entry}", version, PRESETS_FORMAT)
    bad = next((name for name, preset in data.items() if not isinstance(preset, dict) or not isinstance(preset.get("bot"), str)), None)
    if bad is not None:
        raise OptionError(f"presets file {entry}: preset {bad!r} is not an object with a bot name")
    return data


def _check_format(label: str, version: Any, newest: int) -> None:
    """Refuses a file format this kibitz does not read, naming the format it needs."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise OptionError(f"{label}: format {shown(version)} is not a format number")
    if version > newest:
        raise OptionError(f"{label}: format {version} is newer than this kibitz reads (formats 1..{newest}); reading it needs a kibitz that reads format {version}")


PARAMETER_SET_FORMAT = 1
"""The format of a parameter set file: ``{"format": 1, "name", "version", "game", "options",
"bot", "params": {...}, "tuning": {...}}``; ``version`` counts the sets written under one name."""
LEVELS_FILE = "levels.json"
"""``bots/<game>/levels.json`` holds the game's difficulty levels (:mod:`kibitz.levels`), no parameter set."""
BOTS_PATH = "KIBITZ_BOTS"
"""Environment variable: folders (separated by os.pathsep) searched for parameter sets first."""


def bot_folders() -> list[Traversable]:
    """Where parameter sets are looked up, the first that has a name winning: the folders in
    ``$KIBITZ_BOTS``, ``./bots`` (where ``kibitz tune`` writes by default), then the sets
    installed with kibitz (the repository's ``bots/``)."""
    folders: list[Traversable] = [Path(p) for p in os.environ.get(BOTS_PATH, "").split(os.pathsep) if p]
    folders.append(Path("bots"))
    folders.append(resources.files("kibitz") / "presets")
    return [folder for folder in folders if folder.is_dir()]


def parameter_sets() -> dict[str, dict[str, dict[str, Any]]]:
    """Every parameter set found (see :func:`bot_folders`): game -> name -> the set."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for folder in reversed(bot_folders()):  # earlier folders override later ones
        for game_folder in folder.iterdir():
            if not game_folder.is_dir():
                continue
            for entry in game_folder.iterdir():
                if entry.name.endswith(".json") and entry.name != LEVELS_FILE:
                    found.setdefault(game_folder.name, {})[entry.name.removesuffix(".json")] = _read_set(entry)
    return found


def _read_set(entry: Traversable) -> dict[str, Any]:
    try:
        data = json.loads(entry.read_text())
    except (OSError, ValueError) as err:
        raise OptionError(f"parameter set {entry}: {err}") from None
    if not isinstance(data, dict) or "format" not in data or not isinstance(data.get("params"), dict):
        raise OptionError(f"parameter set {entry}: not a parameter set (an object with format, bot and params)")
    _check_format(f"parameter set {entry}", data["format"], PARAMETER_SET_FORMAT)
    return data


def parameter_set(name: str) -> dict[str, Any]:
    """The parameter set ``name`` (``tuned-2p``, or ``<game>/tuned-2p`` where several games
    have one of that name); raises OptionError naming what exists."""
    sets = parameter_sets()
    game, slash, short = name.rpartition("/")
    if slash:
        if short not in sets.get(game, {}):
            raise OptionError(f"no parameter set {short!r} for {game}; it has: {', '.join(sorted(sets.get(game, {}))) or 'none'}")
        return sets[game][short]
    games = [g for g, named in sorted(sets.items()) if name in named]
    if not games:
        known = sorted(f"{g}/{n}" for g, named in sets.items() for n in named)
        raise OptionError(f"no parameter set {name!r}; known: {', '.join(known) or 'none'} (folders: ${BOTS_PATH}, ./bots, installed)")
    if len(games) > 1:
        raise OptionError(f"parameter set {name!r} exists for {', '.join(games)}: say which, e.g. preset={games[0]}/{name}")
    return sets[games[0]][name]


def write_parameter_set(
    folder: str | os.PathLike[str], game: str, name: str, bot: str, params: dict[str, Any], options: dict[str, str], tuning: dict[str, Any]
) -> Path:
    """Writes ``<folder>/<game>/<name>.json`` (see :data:`PARAMETER_SET_FORMAT`), one version
    above the set of that name already there; returns its path."""
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise OptionError(f"parameter set name {name!r}: use letters, digits, '-', '_' and '.'")
    if f"{name}.json" == LEVELS_FILE:
        raise OptionError(f"parameter set name {name!r}: {LEVELS_FILE} holds a game's difficulty levels; choose another name")
    _check_set(bot, params)
    path = Path(folder) / game / f"{name}.json"
    version = _read_set(path).get("version", 0) + 1 if path.exists() else 1
    data = {
        "format": PARAMETER_SET_FORMAT,
        "name": name,
        "version": version,
        "game": game,
        "options": options,
        "bot": bot,
        "params": params,
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "tuning": tuning,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n")
    temporary.replace(path)  # a reader never sees half a file
    return path


def _check_set(bot: str, params: dict[str, Any]) -> None:
    """Every value of a parameter set checked: for the greedy bot eval.<name> weights (and a
    seed), for a search bot a search parameter, a policy.<name> weight or its plug-in; raises
    OptionError."""
    if bot == "greedy":
        _greedy(f"parameter set of {bot}", {k: str(v) for k, v in params.items()}, 0)
    else:
        if PLUGIN_KEY in params:
            plugins.load_allowed(params[PLUGIN_KEY])
        SearchParams.from_options({k: v for k, v in params.items() if k != PLUGIN_KEY})


def _greedy(label: str, options: dict[str, str], seed: int) -> GreedyBot:
    """The greedy bot of a spec's (or parameter set's) options: seed and eval.<name> weights."""
    return GreedyBot(*_seed_and_weights("greedy", "seed, preset", EVAL_PREFIX, label, options, seed))


def _seed_and_weights(bot: str, allowed: str, prefix: str, label: str, options: dict[str, str], seed: int) -> tuple[int, dict[str, float]]:
    """A heuristic bot's options: its seed (``seed`` unless the options set one) and its
    ``<prefix><name>`` weights; any other key is an OptionError naming what ``allowed`` says."""
    extra = sorted(key for key in options if key != "seed" and not key.startswith(prefix))
    if extra:
        raise OptionError(f"bot '{bot}' takes no options except {allowed} and {prefix}<name> weights; got {', '.join(extra)}")
    bot_seed = int(find_parameter("seed").parse(options["seed"], f"{label}: seed")) if "seed" in options else seed
    weights = {key[len(prefix) :]: parse_number(raw, float, f"{label}: {key}", "a number") for key, raw in options.items() if key != "seed"}
    return bot_seed, weights


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Splits ``name:key=value,...`` into the name and its options; raises OptionError. A
    spec of options alone that sets a level (``level=3,threads=2``) has the name ``level``."""
    name, _, rest = spec.strip().partition(":")
    if "=" in name and not rest and any(item.strip().partition("=")[0] == LEVEL_KEY for item in name.split(",")):
        name, rest = LEVEL_KEY, name
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
    (``iterations``, ``time_ms``) replaces a preset's: ``strong:time_ms=3000`` searches 3 s.
    ``preset=<name>`` loads a parameter set (:func:`parameter_set`) under the spec's other
    options: ``ismcts:preset=tuned-2p,threads=2``. ``plugin=<module>`` plugs a compiled
    rollout policy / leaf evaluator into the search (:mod:`kibitz.plugins`):
    ``ismcts:plugin=kibitz.plugins.just4fun_colours,eval_depth=4``; only an allowed module
    (:func:`kibitz.plugins.load_allowed`: the shipped examples, the ``kibitz.plugins`` entry
    points, :func:`kibitz.plugins.allow`), since a spec may come from a GUI or a browser.
    ``level=<n>`` plays a difficulty level of the game the bot is given (:mod:`kibitz.levels`):
    alone (``level=3``) with the level's own search, in a search spec (``ismcts:level=3``) with
    that search, the spec's other options over the level's settings."""
    name, options = parse_spec(spec)
    known_presets = presets()
    base_name = known_presets[name]["bot"] if name in known_presets else name
    label = f"bot {shown(spec.strip(), SPEC_CHARS)}"
    if base_name == "random":
        extra = set(options) - {"seed"}
        if extra:
            raise OptionError(f"bot 'random' takes no options except seed; got {', '.join(sorted(extra))}")
        return RandomBot(int(find_parameter("seed").parse(options["seed"], f"{label}: seed")) if "seed" in options else seed)
    if base_name == "greedy":
        if "preset" in options:
            options = {**{k: str(v) for k, v in parameter_set(options.pop("preset"))["params"].items()}, **options}
        return _greedy(label, options, seed)
    if base_name == "expert":
        return ExpertBot.from_options(options, seed)
    if base_name == "policy":
        return PolicyBot(*_seed_and_weights("policy", "seed", POLICY_PREFIX, label, options, seed))
    if base_name == LEVEL_KEY or (LEVEL_KEY in options and base_name in ALGORITHM_NAMES):
        return _level_bot(label, None if base_name == LEVEL_KEY else name, options, seed)
    if base_name not in ALGORITHM_NAMES:
        known = sorted([*ALGORITHM_NAMES, "random", "greedy", "expert", "policy", LEVEL_KEY, *known_presets])
        raise OptionError(f"unknown bot {name!r}; known bots: {', '.join(known)}")
    try:
        if "preset" in options:
            options = options_over(parameter_set(options.pop("preset"))["params"], options)
        if name in known_presets:
            options = options_over(known_presets[name].get("params", {}), options)
        plugin = plugins.load_allowed(options.pop(PLUGIN_KEY)) if PLUGIN_KEY in options else None  # a preset may name one too
        params = SearchParams.from_options(options, algorithm=ALGORITHM_NAMES[base_name], seed=seed)
    except OptionError as err:
        raise OptionError(f"bot {shown(spec.strip(), SPEC_CHARS)}: {err}") from None
    return SearchBot(params, name=name, plugin=plugin)


def _level_bot(label: str, algorithm: str | None, options: dict[str, str], seed: int) -> Bot:
    """A spec's level bot (:class:`kibitz.levels.LevelBot`): ``level=<n>`` and the other options."""
    from kibitz.levels import LevelBot, level_number  # kibitz.levels builds on this module

    if algorithm is not None and algorithm in presets():
        raise OptionError(f"{label}: a level is a preset of its own; give level=<n> to a search bot, not to {algorithm!r}")
    rest = {key: value for key, value in options.items() if key != LEVEL_KEY}
    if "preset" in rest:
        raise OptionError(f"{label}: level and preset both name settings; give one of them")
    if LEVEL_KEY not in options:
        raise OptionError(f"{label}: say which level: level=<n>")
    number = level_number(options[LEVEL_KEY], label)
    bot_seed = int(find_parameter("seed").parse(rest.pop("seed"), f"{label}: seed")) if "seed" in rest else seed
    try:
        return LevelBot(number, bot_seed, algorithm, rest)
    except OptionError as err:
        raise OptionError(f"{label}: {err}") from None


def options_over(preset: dict[str, Any], options: dict[str, str]) -> dict[str, str]:
    """The spec's options over a preset's; a budget in the spec replaces the preset's budgets."""
    values = {k: str(v) for k, v in preset.items()}
    if any(_is_budget(k) for k in options):
        values = {k: v for k, v in values.items() if not _is_budget(k)}
    return {**values, **options}


def _is_budget(key: str) -> bool:
    return key != PLUGIN_KEY and not key.startswith(POLICY_PREFIX) and find_parameter(key).name in BUDGETS
