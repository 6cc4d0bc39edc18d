"""The Ray backend (kibitz.match.Backend("ray")) on a local Ray instance: a match, a refereed
tournament, a two-trial tuning run and self-play data give exactly what the local backend gives
for the same seeds. One Ray instance (2 CPUs) serves the whole module."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kibitz
from kibitz import plugins
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.match import Backend, Participant, run_match
from kibitz.referee import Tournament

ray = pytest.importorskip("ray", reason="the ray backend needs Ray (pip install 'kibitz[ray]')")

GAME = kibitz.Game("just4fun_colours", players=2)
RAY = Backend("ray")


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_a_match_on_ray_is_the_match_played_locally(tmp_path: Path) -> None:
    players = ["ismcts:iterations=30", Participant(lambda seed: kibitz.RandomBot(seed), name="rnd"), "greedy"]
    local = run_match(GAME, players, games=6, seed=4, processes=2, record_path=str(tmp_path / "local.jsonl"))
    remote = run_match(GAME, players, games=6, seed=4, backend=RAY, record_path=str(tmp_path / "ray.jsonl"))
    assert remote.records == local.records and remote.to_dict() == local.to_dict()
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()


def test_a_refereed_tournament_on_ray_is_the_same_as_here() -> None:
    players = [f"engine:{sys.executable} -m kibitz engine", "greedy"]
    fast = {"movetime_ms": 5000, "margin_ms": 5000, "iterations": 30}
    local = Tournament(GAME, players, games=2, seed=3, **fast).run()
    remote = Tournament(GAME, players, games=2, seed=3, backend=RAY, **fast).run()
    assert remote.records == local.records and all(r.adjudication is None for r in remote.records)


def test_a_two_trial_tuning_run_on_ray_is_the_same_as_here(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("optuna", reason="tpe needs Optuna (pip install 'kibitz[tune]')")
    argv = ["tune", "just4fun_colours", "--players", "2", "--bot", "ismcts:iterations=20", "--params", "c=0.1:5:log"]
    argv += ["--opponents", "greedy", "--budget", "8", "--games-per-trial", "4", "--no-verify", "--json", "--folder", str(tmp_path)]
    assert main([*argv, "--storage", f"sqlite:///{tmp_path / 'local.db'}", "--name", "local"]) == 0
    local = capsys.readouterr().out
    assert main([*argv, "--storage", f"sqlite:///{tmp_path / 'ray.db'}", "--name", "ray", "--backend", "ray"]) == 0
    remote = capsys.readouterr().out
    assert remote.replace("ray", "local") == local and '"number": 1' in remote


def test_selfplay_data_on_ray_are_the_data_made_here(tmp_path: Path) -> None:
    from kibitz.selfplay import generate, load_data

    for backend, folder in ((Backend(), "local"), (RAY, "ray")):
        generate(GAME, ["ismcts:iterations=30", "greedy"], games=3, seed=5, out=tmp_path / folder, shard_games=2, backend=backend)
    local, remote = load_data(tmp_path / "local"), load_data(tmp_path / "ray")
    assert len(remote) == len(local) > 0
    assert all((remote.arrays[name] == local.arrays[name]).all() for name in ("observations", "policy", "action", "returns"))


def test_plugins_allowed_here_are_allowed_on_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot spec on a Ray worker may name the plug-ins allowed where the match was started
    (--allow-plugin, kibitz.plugins.allow): the worker has its own allow-list."""
    monkeypatch.setattr(plugins, "_allowed", set())
    plugins.allow("allowed_on_the_driver")

    def checking(seed: int) -> kibitz.RandomBot:
        if "allowed_on_the_driver" not in plugins.allowed():
            raise OptionError("the worker does not allow what the driver allowed")
        return kibitz.RandomBot(seed)

    result = run_match(GAME, [Participant(checking, name="checking"), "greedy"], games=2, seed=1, backend=RAY)
    assert len(result.records) == 2


def test_backend_names_are_checked() -> None:
    with pytest.raises(OptionError, match="backend 'spark'"):
        Backend("spark")
    with pytest.raises(OptionError, match="an address is for the ray backend"):
        Backend("local", "auto")
