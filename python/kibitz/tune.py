"""Tuning the numeric search parameters of a bot spec by playing matches.

:func:`tune` proposes parameter values, plays each proposal (a *trial*) in a duplicate-deal
gauntlet against an opponent pool, and keeps the best; the budget is counted in games. Two
methods:

- ``tpe`` and ``cmaes``: Optuna's TPE and CMA-ES samplers through its ask/tell interface. The
  study lives in an Optuna storage: a SQLite file by default, so that a killed run started
  again goes on where it stopped, or any Optuna RDB URL (``postgresql://…``), so that many
  machines work on one study. A trial's value is the candidate's mean score against the pool.
- ``spsa``: simultaneous perturbation stochastic approximation as fishtest runs it: each
  iteration plays θ+cΔ against θ−cΔ (Δ a random ±1 per parameter) and steps θ along the
  result; its state is a JSON file, written after every iteration.

Every random choice flows from ``seed``: the k-th completed trial plays the deals of
``derive_seed(seed, "trial", k)`` and the sampler asking for it is seeded with
``derive_seed(seed, "sampler", k)``, so a resumed run proposes and plays what an
uninterrupted one would have. At the end an SPRT match verifies the best values against the
starting ones, and :func:`kibitz.bots.write_parameter_set` writes the result to
``bots/<game>/<name>.json``, which specs load as ``ismcts:preset=<name>``.

Parameters, their ranges and scales come from :data:`kibitz.params.PARAMETERS` (the parameter
table); a range can be narrowed (``c=0.1:3``) and searched on a log scale (``c=0.1:3:log``).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kibitz.bots import ALGORITHM_NAMES, PLUGIN_KEY, GreedyBot, parse_spec, presets, write_parameter_set
from kibitz.errors import OptionError, shown
from kibitz.game import Game
from kibitz.match import LOCAL, Backend, MatchPlan, MatchResult, Participant, PlayerLike, derive_seed, run_match
from kibitz.params import EVAL_PREFIX, PARAMETERS, POLICY_PREFIX, SearchParams, find_parameter, parse_number
from kibitz.stats import SPRT

METHODS = ("tpe", "cmaes", "spsa")
DEFAULT_STORAGE = "kibitz-tune.db"  # SQLite file of the Optuna studies, in the current folder
DEFAULT_VERIFY = SPRT(elo0=0, elo1=10)  # the closing match: is the tuned bot 10 Elo better than the start?


# -- the search space --------------------------------------------------------------------------


@dataclass(frozen=True)
class Dimension:
    """One tuned parameter: its range (both ends included), whether it is searched on a log
    scale, and whether its values are integers."""

    name: str
    low: float
    high: float
    log: bool = False
    integer: bool = False

    @classmethod
    def parse(cls, text: str, game: Game | None = None) -> Dimension:
        """``c`` (the declared range, on the declared scale), ``c=0.1:3`` or ``c=0.1:3:log``, or
        a weight of the ``game``'s rollout policy, ``policy.block`` or ``policy.block=0:2``, or
        of its greedy evaluation, ``eval.area``; raises OptionError for a parameter that is not
        a tunable number or a range outside the declared one."""
        key, eq, rest = text.partition("=")
        if key.strip().startswith((POLICY_PREFIX, EVAL_PREFIX)):
            return cls._weight(key.strip(), eq, rest, game)
        p = find_parameter(key.strip())
        if not p.tunable or p.low is None or p.high is None:
            tunable = [q.name for q in PARAMETERS if q.tunable]
            raise OptionError(f"{p.name} is not a tunable number; tunable: {', '.join(tunable)}")
        if not eq:  # the declared range, on the declared scale
            return cls(p.name, float(p.low), float(p.high), p.log, p.kind is int)
        return cls._range(p.name, text, rest, lambda end: float(p.parse(end, f"range {text!r}")), p.kind is int)

    @classmethod
    def _weight(cls, key: str, eq: str, rest: str, game: Game | None) -> Dimension:
        policy = key.startswith(POLICY_PREFIX)
        prefix, what = (POLICY_PREFIX, "rollout-policy") if policy else (EVAL_PREFIX, "greedy-evaluation")
        weights = {} if game is None else {w.name: w for w in (game.policy_weights if policy else game.eval_weights)}
        weight = weights.get(key[len(prefix) :])
        if weight is None:
            where = "without a game" if game is None else f"{game.name} has {', '.join(prefix + w for w in weights) or 'none'}"
            raise OptionError(f"{key} is not a {what} weight to tune ({where})")
        if not eq:
            return cls(key, weight.low, weight.high)
        text = f"{key}={rest}"

        def read(end: str) -> float:
            value = float(parse_number(end, float, f"range {text!r}", "a number"))
            if not weight.low <= value <= weight.high:
                raise OptionError(f"range {text!r}: {end} is outside {key}'s {weight.low:g}..{weight.high:g}")
            return value

        return cls._range(key, text, rest, read)

    @classmethod
    def _range(cls, name: str, text: str, rest: str, read: Callable[[str], float], integer: bool = False) -> Dimension:
        """``LOW:HIGH`` or ``LOW:HIGH:log`` from ``rest``, each end read (and checked) by ``read``."""
        parts = rest.split(":")
        log = len(parts) == 3 and parts[2] == "log"
        if len(parts) not in (2, 3) or (len(parts) == 3 and not log):
            raise OptionError(f"range {text!r}: expected {name}=LOW:HIGH or {name}=LOW:HIGH:log")
        low, high = (read(end) for end in parts[:2])
        if not low < high:
            raise OptionError(f"range {text!r}: LOW must be below HIGH")
        if log and low <= 0:
            raise OptionError(f"range {text!r}: a log scale needs LOW above 0")
        return cls(name, low, high, log, integer)

    def value(self, unit: float) -> float | int:
        """The value at ``unit`` (0..1) along the range (on the log scale if ``log``)."""
        unit = min(max(unit, 0.0), 1.0)
        x = math.exp(math.log(self.low) + unit * math.log(self.high / self.low)) if self.log else self.low + unit * (self.high - self.low)
        return round(x) if self.integer else min(max(x, self.low), self.high)

    def unit(self, value: float) -> float:
        """Where ``value`` lies along the range, 0..1 (inverse of :meth:`value`)."""
        if self.log:
            return math.log(value / self.low) / math.log(self.high / self.low)
        return (value - self.low) / (self.high - self.low)

    def distribution(self) -> Any:
        """The Optuna distribution of this dimension."""
        from optuna.distributions import FloatDistribution, IntDistribution

        if self.integer:
            return IntDistribution(int(self.low), int(self.high), log=self.log)
        return FloatDistribution(self.low, self.high, log=self.log)

    def __str__(self) -> str:
        return f"{self.name}={self.low:g}:{self.high:g}" + (":log" if self.log else "")



# -- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trial:
    """One evaluated proposal: the k-th (``number``), its parameter values, its value (the
    candidate's mean score against the pool; for SPSA, θ+'s score against θ−) and the games
    it took; for SPSA also the θ it produced."""

    number: int
    params: dict[str, float | int]
    value: float
    games: int
    theta: dict[str, float | int] | None = None


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found: the starting and the best values, every trial, the closing
    SPRT match of the best against the start (if run) and the parameter set written (if any)."""

    method: str
    start: dict[str, float | int]
    best: dict[str, float | int]
    trials: list[Trial]
    verification: MatchResult | None = field(default=None, repr=False)
    preset: Path | None = None

    @property
    def games(self) -> int:
        return sum(t.games for t in self.trials)

    def summary(self) -> str:
        best = ", ".join(f"{k}={_text(v)}" for k, v in self.best.items())
        start = ", ".join(f"{k}={_text(v)}" for k, v in self.start.items())
        lines = [f"{self.method}: {len(self.trials)} trials, {self.games} games; best {best} (start {start})"]
        if self.verification is not None:
            lines.append(f"verification: {self.verification.summary()}")
        if self.preset is not None:
            lines.append(f"written: {self.preset}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "start": self.start,
            "best": self.best,
            "trials": [asdict(t) for t in self.trials],
            "verification": None if self.verification is None else self.verification.to_dict(),
            "preset": None if self.preset is None else str(self.preset),
        }


def _text(value: float | int) -> str:
    return str(value) if isinstance(value, int) else f"{value:.4g}"


# -- the candidate -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """The tuned bot: its spec's name (a search algorithm, the greedy bot, or a preset of one)
    and options; ``spec(values)`` is the spec with the tuned values set."""

    name: str
    options: dict[str, str]

    @classmethod
    def parse(cls, spec: str) -> Candidate:
        name, options = parse_spec(spec)
        base = presets().get(name, {}).get("bot", name)
        if base not in ALGORITHM_NAMES and base != "greedy":
            raise OptionError(f"only a search bot or greedy has parameters to tune; {name!r} is neither ({', '.join(ALGORITHM_NAMES)}, greedy)")
        return cls(name, options)

    def spec(self, values: dict[str, float | int]) -> str:
        options = {**self.options, **{k: repr(v) for k, v in values.items()}}
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")

    def start(self, space: Sequence[Dimension], game: Game) -> dict[str, float | int]:
        """The values the spec starts from (its own, or the defaults), inside the ranges; raises
        OptionError for a dimension the bot does not read."""
        bot = Participant(self.spec({})).make(0)
        if isinstance(bot, GreedyBot):
            weights = {EVAL_PREFIX + w.name: w.default for w in game.eval_weights}
            weights.update((EVAL_PREFIX + name, weight) for name, weight in bot.eval)
            algorithm = "greedy"
        else:
            params: SearchParams = bot.params  # type: ignore[attr-defined]
            weights = {POLICY_PREFIX + w.name: w.default for w in game.policy_weights}
            weights.update((POLICY_PREFIX + name, weight) for name, weight in params.policy)
            algorithm = params.algorithm
        values = {}
        for d in space:
            if d.name.startswith((POLICY_PREFIX, EVAL_PREFIX)):
                if d.name not in weights:
                    reads = f"{EVAL_PREFIX}<name> weights" if algorithm == "greedy" else f"search parameters and {POLICY_PREFIX}<name> weights"
                    raise OptionError(f"{self.spec({})} is {algorithm}, which does not read {d.name}: it reads {reads}")
                value = weights[d.name]
            else:
                read_by = find_parameter(d.name).algorithms
                if algorithm not in read_by:
                    raise OptionError(f"{self.spec({})} is {algorithm}, which does not read {d.name} (it is read by {', '.join(read_by)})")
                value = getattr(params, d.name)
            if not d.low <= value <= d.high:
                raise OptionError(f"{self.spec({})} starts at {d.name}={value}, outside the tuned range {d}")
            values[d.name] = value
        return values


# -- tuning ------------------------------------------------------------------------------------

TrialHook = Callable[[Trial], None]


def tune(
    game: Game,
    bot: str,
    space: Sequence[str | Dimension],
    opponents: Sequence[PlayerLike],
    budget: int,
    *,
    games_per_trial: int = 20,
    method: str = "tpe",
    seed: int = 0,
    storage: str | None = None,
    study: str | None = None,
    processes: int | None = None,
    verify: SPRT | None = DEFAULT_VERIFY,
    verify_games: int = 2000,
    verify_path: str | None = None,
    name: str | None = None,
    folder: str | os.PathLike[str] = "bots",
    shared: bool = False,
    on_trial: TrialHook | None = None,
    backend: Backend = LOCAL,
) -> TuneResult:
    """Tunes the parameters ``space`` (names or :class:`Dimension`) of the bot spec ``bot``.

    ``budget`` games in all go to trials of ``games_per_trial`` games each: a duplicate-deal
    gauntlet of the candidate against ``opponents`` (tpe, cmaes), or θ+ against θ− (spsa).
    ``storage`` is an Optuna storage URL (default ``sqlite:///kibitz-tune.db``), or for spsa
    the state file (default ``<study>.spsa.json``); ``study`` names the study (default: from
    the game, bot, space, method and seed). Started again with the same storage and study, a
    run resumes. With ``shared`` other machines work on the same study: trials left running
    are theirs, not a killed run's, and are left alone (and a resumed run no longer repeats an
    uninterrupted one exactly).

    Then, unless ``verify`` is None, the best values play the starting ones in an SPRT match
    of at most ``verify_games`` games (resumable from ``verify_path``); with a ``name`` the
    result is written as ``<folder>/<game>/<name>.json``. ``on_trial`` sees each trial as it
    ends. The matches run on ``backend`` (:class:`kibitz.match.Backend`: local processes or Ray).
    """
    if method not in METHODS:
        raise OptionError(f"method {method!r}: expected one of {', '.join(METHODS)}")
    dimensions = [d if isinstance(d, Dimension) else Dimension.parse(d, game) for d in space]
    if not dimensions:
        raise OptionError("name at least one parameter to tune")
    if len({d.name for d in dimensions}) != len(dimensions):
        raise OptionError("a parameter is named twice")
    if games_per_trial < 2 or budget < games_per_trial:
        raise OptionError(f"a trial needs at least 2 games and the budget at least one trial; got {games_per_trial} per trial, {budget} in all")
    candidate = Candidate.parse(bot)
    start = candidate.start(dimensions, game)
    pool = [Participant.of(o) for o in opponents]
    if method != "spsa" and not pool:
        raise OptionError("tuning needs at least one opponent")
    for participant in pool:
        participant.make(0)  # a bad spec fails before any game
    entrants = 2 if method == "spsa" else 1 + len(pool)
    round_games = MatchPlan(game, [str(i) for i in range(entrants)], 1, 0, schedule="gauntlet")
    one_round = round_games.unit_games * len(round_games.tables)
    if games_per_trial < one_round:
        raise OptionError(f"a trial of {games_per_trial} games does not reach every opponent: it needs at least {one_round} (a deal at each table)")
    if method != "spsa":
        check_storage(storage or f"sqlite:///{DEFAULT_STORAGE}")  # before any game is played
    study = study or re.sub(r"[^A-Za-z0-9._-]+", "_", f"{game.name}-{bot}-{'-'.join(map(str, dimensions))}-{method}-{seed}")
    trials_wanted = budget // games_per_trial

    def play(k: int, players: list[Participant]) -> MatchResult:
        return run_match(game, players, games_per_trial, derive_seed(seed, "trial", k), processes, schedule="gauntlet", backend=backend)

    if method == "spsa":
        path = storage or f"{study}.spsa.json"
        trials, best = _spsa(candidate, dimensions, start, trials_wanted, play, seed, path, on_trial)
    else:
        trials = _optuna_trials(candidate, dimensions, start, pool, trials_wanted, play, method, seed, storage, study, shared, on_trial)
        best = max(trials, key=lambda t: t.value).params
    verification = None
    if verify is not None:
        players = [Participant(candidate.spec(best), "tuned"), Participant(candidate.spec(start), "start")]
        verification = run_match(
            game, players, verify_games, derive_seed(seed, "verify"), processes, record_path=verify_path, sprt=verify, backend=backend
        )
    preset = None
    if name is not None:
        values = {**_settings(Participant(candidate.spec(best)).make(0)), **best}  # the tuned values always, the bot's other settings where not the defaults
        tuning = {
            "method": method,
            "space": [str(d) for d in dimensions],
            "opponents": [p.label for p in pool],
            "budget_games": budget,
            "games_per_trial": games_per_trial,
            "trials": len(trials),
            "seed": seed,
            "start": start,
            "verification": None if verification is None else verification.to_dict(),
        }
        bot_name = presets().get(candidate.name, {}).get("bot", candidate.name)
        preset = write_parameter_set(folder, game.name, name, bot_name, values, dict(game.options), tuning)
    return TuneResult(method, start, best, trials, verification, preset)


def _settings(bot: PlayerLike) -> dict[str, Any]:
    """A bot's settings that are not the defaults, as a parameter set lists them."""
    if isinstance(bot, GreedyBot):
        return {EVAL_PREFIX + weight: value for weight, value in bot.eval}
    tuned: SearchParams = bot.params  # type: ignore[union-attr]
    default = SearchParams()
    changed = {p.name: getattr(tuned, p.name) for p in PARAMETERS if p.name not in ("algorithm", "seed") and getattr(tuned, p.name) != getattr(default, p.name)}
    changed.update((POLICY_PREFIX + weight, value) for weight, value in tuned.policy)
    plugin = getattr(bot, "plugin", None)
    if plugin is not None:  # a spec names a plug-in by module, so the set can name it too
        changed[PLUGIN_KEY] = plugin.source
    return changed


def _score(result: MatchResult) -> float:
    """The first participant's mean unit score against the others (0.5 = their equal)."""
    elo = result.bots[0].elo
    return 0.5 if elo is None else elo.score


STORAGE_CHARS = 120  # a longer storage URL is cut in error messages
# The package that provides each database driver SQLAlchemy may import for a storage URL.
DRIVER_PACKAGES = {
    "MySQLdb": "mysqlclient",
    "pymysql": "PyMySQL",
    "mysql": "mysql-connector-python",
    "mariadb": "mariadb",
    "psycopg2": "psycopg2-binary",
    "psycopg": "psycopg[binary]",
    "pg8000": "pg8000",
    "asyncpg": "asyncpg",
    "oracledb": "oracledb",
    "cx_Oracle": "cx_Oracle",
    "pyodbc": "pyodbc",
    "pymssql": "pymssql",
}


def check_storage(url: str) -> None:
    """Refuses an Optuna storage URL that cannot work, before any game is played, with an
    OptionError naming the URL and what is wrong: not a URL, a scheme SQLAlchemy does not know,
    a database driver that is not installed (and the package that provides it), or a SQLite
    file whose folder does not exist or cannot be written."""
    from sqlalchemy.engine import make_url  # Optuna's storages are SQLAlchemy's: installed with it
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    _optuna()
    label = f"storage {shown(url, STORAGE_CHARS)}"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError, TypeError):
        raise OptionError(f"{label}: not a database URL; expected <scheme>://..., e.g. sqlite:///{DEFAULT_STORAGE} or postgresql://user@host/db") from None
    label = f"storage {shown(parsed.render_as_string(hide_password=True), STORAGE_CHARS)}"  # no password in messages
    try:
        dialect = parsed.get_dialect()
    except (NoSuchModuleError, ValueError):  # a scheme such as '++' fails inside SQLAlchemy's loader with a ValueError
        raise OptionError(f"{label}: unknown database scheme {parsed.drivername!r}; use sqlite, postgresql, mysql or another SQLAlchemy dialect") from None
    try:
        dialect.import_dbapi()
    except ImportError as err:
        module = (getattr(err, "name", None) or parsed.get_driver_name()).split(".")[0]
        package = DRIVER_PACKAGES.get(module, module)
        raise OptionError(f"{label}: the database driver {module!r} for {parsed.get_backend_name()} is not installed: pip install '{package}'") from None
    except Exception as err:  # a driver that is installed but broken
        raise OptionError(f"{label}: the database driver for {parsed.get_backend_name()} does not load ({type(err).__name__}: {err})") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(parsed.database)
        folder = path.parent.resolve()
        if not folder.is_dir():
            raise OptionError(f"{label}: the folder {folder} does not exist")
        if path.is_dir():
            raise OptionError(f"{label}: {path} is a folder, not a database file")
        if not os.access(path if path.exists() else folder, os.W_OK):
            raise OptionError(f"{label}: {path if path.exists() else folder} cannot be written")


def _without_password(url: str) -> str:
    """A storage URL as error messages show it: with ``***`` for its password."""
    from sqlalchemy.engine import make_url

    return str(make_url(url).render_as_string(hide_password=True))


def _optuna() -> Any:
    try:
        import optuna
    except ModuleNotFoundError:
        raise OptionError("tuning with tpe or cmaes needs Optuna: pip install 'kibitz[tune]' (spsa does not)") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _optuna_trials(
    candidate: Candidate,
    space: list[Dimension],
    start: dict[str, float | int],
    pool: list[Participant],
    wanted: int,
    play: Callable[[int, list[Participant]], MatchResult],
    method: str,
    seed: int,
    storage: str | None,
    study_name: str,
    shared: bool,
    on_trial: TrialHook | None,
) -> list[Trial]:
    optuna = _optuna()
    from optuna.trial import TrialState

    url = storage or f"sqlite:///{DEFAULT_STORAGE}"
    distributions = {d.name: d.distribution() for d in space}

    def load(k: int) -> Any:
        seeded = derive_seed(seed, "sampler", k) % (1 << 32)
        sampler = optuna.samplers.TPESampler(seed=seeded) if method == "tpe" else optuna.samplers.CmaEsSampler(seed=seeded, warn_independent_sampling=False)
        try:
            return optuna.create_study(study_name=study_name, storage=url, sampler=sampler, direction="maximize", load_if_exists=True)
        except Exception as err:  # a database that does not answer, refuses the login, is not Optuna's ...
            raise OptionError(f"storage {shown(_without_password(url), STORAGE_CHARS)}: cannot open the study there ({type(err).__name__}: {err})") from None

    study = load(0)
    if not shared:  # a trial left running is what a killed run left: it never ends
        for stale in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            study.tell(stale.number, state=TrialState.FAIL)

    def complete() -> list[Any]:
        # k: the number of trials complete when it was asked (trials of other tools have none)
        return sorted(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)), key=lambda t: t.user_attrs.get("k", t.number))

    done = complete()
    if not done and not study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
        study.enqueue_trial(start)  # the first trial measures where the bot starts
    while len(done := complete()) < wanted:
        k = len(done)
        study = load(k)
        trial = study.ask(distributions)
        values = {d.name: trial.params[d.name] for d in space}
        result = play(k, [Participant(candidate.spec(values), "candidate"), *pool])
        trial.set_user_attr("k", k)
        trial.set_user_attr("games", result.games)
        study.tell(trial, _score(result))
        if on_trial is not None:
            on_trial(Trial(k, values, _score(result), result.games))
    return [
        Trial(t.user_attrs.get("k", t.number), {d.name: t.params[d.name] for d in space}, float(t.value), t.user_attrs.get("games", 0))
        for t in complete()[:wanted]
    ]


# SPSA's gains (Spall 1998, as fishtest uses them): a_k = a / (A + k + 1)^alpha, c_k = c / (k + 1)^gamma,
# on each parameter's range scaled to 0..1.
SPSA_ALPHA, SPSA_GAMMA = 0.602, 0.101
SPSA_C = 0.1  # the perturbation: a tenth of the range at first
SPSA_STEP = 0.05  # the first step, as a share of the range, for a result of 0.1 (θ+ scoring 0.55)
SPSA_FORMAT = 1


def _spsa(
    candidate: Candidate,
    space: list[Dimension],
    start: dict[str, float | int],
    wanted: int,
    play: Callable[[int, list[Participant]], MatchResult],
    seed: int,
    path: str,
    on_trial: TrialHook | None,
) -> tuple[list[Trial], dict[str, float | int]]:
    """Runs SPSA iterations up to ``wanted``, resuming from (and saving to) ``path``."""
    state: dict[str, Any] = {
        "format": SPSA_FORMAT,
        "seed": seed,
        "space": [str(d) for d in space],
        "stability": max(1.0, 0.1 * wanted),  # Spall's A: a tenth of the first run's iterations
        "theta": [d.unit(start[d.name]) for d in space],
        "trials": [],
    }
    if os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            try:
                saved = json.load(file)
            except ValueError as err:
                raise OptionError(f"{path} is not an SPSA state file ({err})") from None
        if not isinstance(saved, dict) or not isinstance(saved.get("trials"), list):
            raise OptionError(f"{path} is not an SPSA state file (a JSON object with format, seed, space, theta and trials)")
        if isinstance(saved.get("format"), int) and saved["format"] > SPSA_FORMAT:
            raise OptionError(f"{path}: SPSA state format {saved['format']} is newer than this kibitz reads ({SPSA_FORMAT}); resuming it needs a newer kibitz")
        if saved.get("format") != SPSA_FORMAT or saved.get("seed") != seed or saved.get("space") != state["space"]:
            raise OptionError(f"{path} is the state of another SPSA run (format, seed and parameters must match)")
        state = saved
    theta: list[float] = state["theta"]
    stability = state["stability"]
    a = SPSA_STEP * 2 * SPSA_C / 0.1 * (stability + 1) ** SPSA_ALPHA
    while len(state["trials"]) < wanted:
        k = len(state["trials"])
        rng = random.Random(derive_seed(seed, "spsa", k))
        delta = [rng.choice((-1, 1)) for _ in space]
        c_k = SPSA_C / (k + 1) ** SPSA_GAMMA
        a_k = a / (stability + k + 1) ** SPSA_ALPHA
        plus = {d.name: d.value(t + c_k * s) for d, t, s in zip(space, theta, delta)}
        minus = {d.name: d.value(t - c_k * s) for d, t, s in zip(space, theta, delta)}
        result = play(k, [Participant(candidate.spec(plus), "plus"), Participant(candidate.spec(minus), "minus")])
        difference = 2 * _score(result) - 1  # θ+'s score minus θ−'s
        theta = [min(max(t + a_k * difference / (2 * c_k * s), 0.0), 1.0) for t, s in zip(theta, delta)]
        values = {d.name: d.value(t) for d, t in zip(space, theta)}
        trial = Trial(k, plus, _score(result), result.games, values)
        state["theta"] = theta
        state["trials"].append(asdict(trial))
        _save(path, state)
        if on_trial is not None:
            on_trial(trial)
    trials = [Trial(**t) for t in state["trials"][:wanted]]
    return trials, {d.name: d.value(t) for d, t in zip(space, theta)}


def _save(path: str, state: dict[str, Any]) -> None:
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(state, file, indent=1)
    os.replace(temporary, path)  # a killed run leaves the last whole state
