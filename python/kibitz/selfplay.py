"""Self-play data: games between bots (usually searches) recorded decision by decision for
training an evaluator (:mod:`kibitz.learn`).

Each decision records every seat's observation tensor (what each seat may see), the deciding
seat's legal-action mask, the search's visit distribution (its root policy), the move played,
the deciding search's root value, the game's final returns and, optionally, the value of the
same position searched with every hand known (``perfect``: a search of the full state such as
``uct:iterations=2000``, for distillation). A data set is a folder of numpy ``.npz`` shards
and a ``manifest.json`` (docs/learning.md, "Self-play data"):

    kibitz selfplay just4fun_colours --bots ismcts:iterations=2000 --games 1000 --out data/g0

Every random choice comes from the seed: game g's deal, chance and bots from
``derive_seed(seed, "game", g)``, so a data set is the same whatever the number of processes
or the backend, and a run stopped part way resumes with the shards not yet written.

>>> import tempfile, kibitz
>>> folder = tempfile.mkdtemp()
>>> summary = generate(kibitz.Game("just4fun_colours", players=2), ["greedy"], games=2, seed=1, out=folder, shard_games=1)
>>> data = load_data(folder)
>>> data.observations.shape[1:], len(set(data.game.tolist()))
((2, 215), 2)
"""

from __future__ import annotations

import functools
import json
import math
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kibitz import __version__
from kibitz.bots import Bot, SearchBot, make_bot
from kibitz.errors import OptionError
from kibitz.game import Game, State
from kibitz.match import (
    LOCAL,
    Backend,
    bot_action,
    derive_seed,
    finished_jobs,
    initial_state,
    play_out,
    progress_bar,
    seat_bots,
    showing_moves,
)

DATA_FORMAT = 1
"""The version of the shard and manifest layout this kibitz writes and reads."""
MANIFEST = "manifest.json"
SHARD_ARRAYS = {
    "observations": np.float32,  # (N, players, observation_size): every seat's tensor, by absolute seat
    "legal": np.bool_,  # (N, max_actions): the deciding seat's legal ids
    "policy": np.float32,  # (N, max_actions): the search's root policy (visit shares), one-hot for other bots
    "action": np.int32,  # (N,): the move played
    "seat": np.int8,  # (N,): the deciding seat
    "game": np.int32,  # (N,): the game's index in the data set
    "ply": np.int32,  # (N,): the decision's index in its game
    "returns": np.float32,  # (N, players): the game's final returns
    "search_value": np.float32,  # (N,): the deciding search's root value for its seat; NaN: no search
    "perfect_value": np.float32,  # (N,): the value with every hand known, for the deciding seat; NaN: not searched
}
"""The arrays of a shard and their types (every shard also holds ``format``)."""


@dataclass(frozen=True)
class SelfPlaySettings:
    """What fixes a data set: its manifest without the list of shards. A run that resumes a
    folder must have the same settings (more games are allowed: they add shards)."""

    game: str
    options: dict[str, str]
    bots: list[str]
    seed: int
    shard_games: int
    perfect: str | None = None

    def differences(self, other: SelfPlaySettings) -> list[str]:
        return [
            f"{name} {getattr(other, name)!r} (this run: {getattr(self, name)!r})"
            for name in self.__dataclass_fields__
            if getattr(self, name) != getattr(other, name)
        ]


@dataclass
class SelfPlaySummary:
    """What :func:`generate` did: shards and games written by this run, decisions recorded,
    CPU seconds of the games (over every process), and the folder's manifest."""

    folder: Path
    shards_written: int
    games_played: int
    decisions: int
    cpu_seconds: float
    manifest: dict[str, Any] = field(repr=False)


# -- one shard ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ShardJob:
    index: int
    games: list[int]


def _policy(bot: Bot, action: int, size: int) -> tuple[npt.NDArray[np.float32], float]:
    """The decision's policy target and the search's root value: a search's root policy, or
    one-hot on the move (another bot, or a forced move)."""
    policy = np.zeros(size, np.float32)
    result = getattr(bot, "last_result", None) if isinstance(bot, SearchBot) else None
    if result is None or result.forced or not result.stats:
        policy[action] = 1.0
        return policy, math.nan
    for stat in result.stats:
        policy[stat.action] = stat.probability
    return policy, result.root_value


def play_recorded(
    game: Game, specs: Sequence[str], index: int, seed: int, perfect: str | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Game ``index`` of a data set with ``seed``, every decision recorded (the arrays of
    :data:`SHARD_ARRAYS` for this game). Seat s is played by ``specs[(s + index) % len(specs)]``
    (one spec: self-play; several: they rotate over the seats from game to game)."""
    game_seed = derive_seed(seed, "game", index)
    seat_specs = [specs[(s + index) % len(specs)] for s in range(game.num_players)]
    bots = seat_bots(seat_specs, game_seed)
    perfect_bot = _perfect_bot(perfect, derive_seed(game_seed, "perfect")) if perfect else None
    n, size = game.num_players, game.metadata.max_actions
    rows: dict[str, list[Any]] = {name: [] for name in SHARD_ARRAYS}

    def decide(state: State, seat: int) -> int:
        bot = bots[seat]
        if isinstance(bot, SearchBot):
            bot.last_result = None
        rows["observations"].append(np.stack([state.observation_tensor(s) for s in range(n)]))
        rows["legal"].append(state.legal_action_mask(seat))
        action = bot_action(state, seat, bot, seat_specs[seat])
        policy, value = _policy(bot, action, size)
        rows["policy"].append(policy)
        rows["search_value"].append(value)
        rows["perfect_value"].append(_perfect_value(perfect_bot, state, seat))
        rows["action"].append(action)
        rows["seat"].append(seat)
        rows["ply"].append(len(rows["ply"]))
        return action

    state = initial_state(game, game_seed)
    play_out(state, game_seed, decide, showing_moves(bots))  # an adaptive opponent model sees the others' moves
    returns = state.returns()
    rows["game"] = [index] * len(rows["ply"])
    rows["returns"] = [returns] * len(rows["ply"])
    return {name: _stacked(rows[name], dtype, game, name) for name, dtype in SHARD_ARRAYS.items()}


def _stacked(values: list[Any], dtype: Any, game: Game, name: str) -> npt.NDArray[Any]:
    if values:
        return np.asarray(np.stack(values) if isinstance(values[0], np.ndarray) else values, dtype=dtype)
    shapes = {
        "observations": (0, game.num_players, game.metadata.observation_size),
        "legal": (0, game.metadata.max_actions),
        "policy": (0, game.metadata.max_actions),
        "returns": (0, game.num_players),
    }
    return np.zeros(shapes.get(name, (0,)), dtype=dtype)


def _perfect_bot(spec: str, seed: int) -> SearchBot:
    bot = make_bot(spec, seed=seed)
    if not isinstance(bot, SearchBot) or not bot.sees_everything:
        raise OptionError(f"perfect {spec!r}: the value with every hand known needs a search of the full state (uct:...)")
    return bot


def _perfect_value(bot: SearchBot | None, state: State, seat: int) -> float:
    """The root value for ``seat`` of a search of the full state; NaN without one, or where the move is forced."""
    if bot is None:
        return math.nan
    result = bot.search(state, seat if state.is_simultaneous() else None)
    return math.nan if result.forced else result.root_value


def _play_shard(settings: SelfPlaySettings, job: _ShardJob) -> tuple[int, dict[str, npt.NDArray[Any]], float]:
    """The shard's arrays, and the CPU seconds its games took."""
    game = Game(settings.game, **settings.options)
    start = time.process_time()
    games = [play_recorded(game, settings.bots, g, settings.seed, settings.perfect) for g in job.games]
    arrays = {name: np.concatenate([g[name] for g in games]) for name in SHARD_ARRAYS}
    return job.index, arrays, time.process_time() - start


# -- the folder -----------------------------------------------------------------------------


def shard_name(index: int) -> str:
    return f"shard-{index:05d}.npz"


def write_shard(path: str | os.PathLike[str], arrays: dict[str, npt.NDArray[Any]]) -> None:
    """Writes one shard (compressed), whole or not at all."""
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp.npz")
    save: Any = np.savez_compressed  # (its stub types **arrays as its own keyword arguments)
    save(temporary, format=np.int32(DATA_FORMAT), **arrays)
    temporary.replace(target)


def read_shard(path: str | os.PathLike[str]) -> dict[str, npt.NDArray[Any]]:
    """One shard's arrays; raises OptionError naming the file and what is wrong (not a shard,
    another format, a missing or inconsistent array)."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            stored = {name: npz[name] for name in npz.files}
    except (OSError, ValueError, EOFError) as err:
        raise OptionError(f"shard {path}: cannot read it ({err})") from None
    version = int(stored.pop("format", -1))
    if version != DATA_FORMAT:
        raise OptionError(f"shard {path}: it is in self-play format {version}; this kibitz reads format {DATA_FORMAT}")
    missing = sorted(set(SHARD_ARRAYS) - set(stored))
    if missing:
        raise OptionError(f"shard {path}: it has no {', '.join(missing)}")
    rows = {len(a) for a in stored.values()}
    if len(rows) != 1:
        raise OptionError(f"shard {path}: its arrays have different numbers of rows")
    return {name: stored[name] for name in SHARD_ARRAYS}


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The folder's manifest; OptionError if it has none or it is not one this kibitz reads."""
    path = Path(folder) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise OptionError(f"{folder}: no {MANIFEST} (not a self-play data folder)") from None
    except (OSError, ValueError) as err:
        raise OptionError(f"{path}: cannot read it ({err})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != DATA_FORMAT:
        raise OptionError(f"{path}: not a self-play manifest of format {DATA_FORMAT}")
    return manifest


def _settings_of(manifest: dict[str, Any]) -> SelfPlaySettings:
    return SelfPlaySettings(**{name: manifest[name] for name in SelfPlaySettings.__dataclass_fields__})


def _write_manifest(folder: Path, settings: SelfPlaySettings, game: Game, shards: dict[str, Any]) -> dict[str, Any]:
    manifest = {
        "format": DATA_FORMAT,
        "kibitz": __version__,
        **settings.__dict__,
        "players": game.num_players,
        "observation_size": game.metadata.observation_size,
        "max_actions": game.metadata.max_actions,
        "games": sum(s["games"] for s in shards.values()),
        "shards": dict(sorted(shards.items())),
    }
    temporary = folder / (MANIFEST + ".tmp")
    temporary.write_text(json.dumps(manifest, indent=1) + "\n")
    temporary.replace(folder / MANIFEST)
    return manifest


def generate(
    game: Game,
    bots: Sequence[str],
    games: int,
    seed: int,
    out: str | os.PathLike[str],
    *,
    perfect: str | None = None,
    shard_games: int = 20,
    processes: int = 1,
    backend: Backend = LOCAL,
    progress: bool = False,
) -> SelfPlaySummary:
    """Plays ``games`` games between ``bots`` (one spec for self-play, or one per seat, rotated
    from game to game) and writes their decisions to the folder ``out`` in shards of
    ``shard_games`` games, with a manifest. A folder with shards of the same settings is
    resumed: only the missing shards are played (``games`` may grow). ``perfect``: a search of
    the full state (``uct:…``) whose root value is recorded beside each decision. Shards run in
    ``processes`` local processes or on Ray (``backend``); the data do not depend on either."""
    if games < 1 or shard_games < 1 or processes < 1:
        raise OptionError("games, shard_games and processes must be at least 1")
    if not bots:
        raise OptionError("selfplay needs at least one bot spec")
    for spec in {*bots, *([perfect] if perfect else [])}:
        make_bot(spec)  # a bad spec is refused before anything runs
    if perfect:
        _perfect_bot(perfect, 0)
    settings = SelfPlaySettings(game.name, dict(game.options), list(bots), seed, shard_games, perfect)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    shards: dict[str, Any] = {}
    if (folder / MANIFEST).exists():
        manifest = read_manifest(folder)
        differences = settings.differences(_settings_of(manifest))
        if differences:
            raise OptionError(f"{folder} holds another data set: its {'; '.join(differences)}")
        shards = {k: v for k, v in manifest["shards"].items() if (folder / v["file"]).exists()}
    count = -(-games // shard_games)
    jobs = [
        _ShardJob(k, list(range(k * shard_games, min((k + 1) * shard_games, games))))
        for k in range(count)
        if str(k) not in shards or shards[str(k)]["games"] != min(shard_games, games - k * shard_games)
    ]
    manifest = _write_manifest(folder, settings, game, shards)
    played = decisions = 0
    cpu = 0.0

    def play(job: _ShardJob) -> tuple[int, dict[str, npt.NDArray[Any]], float]:
        return _play_shard(settings, job)

    if jobs:
        with (
            finished_jobs(play, jobs, min(processes, len(jobs)), backend) as finished,
            progress_bar(progress, len(jobs), "shards") as advance,
        ):
            for index, arrays, seconds in finished:
                write_shard(folder / shard_name(index), arrays)
                n_games = len(np.unique(arrays["game"]))
                shards[str(index)] = {
                    "file": shard_name(index),
                    "games": n_games,
                    "decisions": len(arrays["ply"]),
                    "cpu_seconds": round(seconds, 3),
                }
                manifest = _write_manifest(folder, settings, game, shards)
                played, decisions, cpu = played + n_games, decisions + len(arrays["ply"]), cpu + seconds
                advance(functools.partial(str, f"{decisions} decisions, {cpu / max(played, 1):.2f} CPU s a game"))
    return SelfPlaySummary(folder, len(jobs), played, decisions, cpu, manifest)


# -- reading a data set ---------------------------------------------------------------------


@dataclass
class SelfPlayData:
    """Every decision of one or more data folders (the arrays of :data:`SHARD_ARRAYS`,
    concatenated); ``game`` is renumbered so that games of different folders stay apart."""

    game_name: str
    players: int
    arrays: dict[str, npt.NDArray[Any]]
    manifests: list[dict[str, Any]]

    def __len__(self) -> int:
        return len(self.arrays["ply"])

    def __getattr__(self, name: str) -> npt.NDArray[Any]:
        arrays = self.__dict__.get("arrays", {})
        if name in arrays:
            return arrays[name]  # type: ignore[no-any-return]
        raise AttributeError(name)

    @property
    def games(self) -> int:
        return len(np.unique(self.arrays["game"]))

    def __repr__(self) -> str:
        return f"SelfPlayData({self.game_name!r}, players={self.players}, {self.games} games, {len(self)} decisions)"


def shards(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """The shard files the folder's manifest lists, in order."""
    manifest = read_manifest(folder)
    for _, entry in sorted(manifest["shards"].items(), key=lambda item: int(item[0])):
        yield Path(folder) / entry["file"]


def load_data(*folders: str | os.PathLike[str]) -> SelfPlayData:
    """The decisions of one or more data folders of the same game and player count."""
    if not folders:
        raise OptionError("load_data needs at least one folder")
    manifests = [read_manifest(f) for f in folders]
    kinds = {(m["game"], m["players"], m["observation_size"], m["max_actions"]) for m in manifests}
    if len(kinds) != 1:
        raise OptionError(f"the folders hold different games or player counts: {sorted(kinds)}")
    parts: list[dict[str, npt.NDArray[Any]]] = []
    offset = 0
    for folder in folders:
        for path in shards(folder):
            arrays = read_shard(path)
            arrays["game"] = arrays["game"] + offset
            parts.append(arrays)
        offset = max((int(p["game"].max()) + 1 for p in parts if len(p["game"])), default=offset)
    if not parts:
        raise OptionError(f"no shards in {', '.join(map(str, folders))}")
    arrays = {name: np.concatenate([p[name] for p in parts]) for name in SHARD_ARRAYS}
    return SelfPlayData(manifests[0]["game"], manifests[0]["players"], arrays, manifests)
