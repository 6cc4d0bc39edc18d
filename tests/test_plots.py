"""Pictures (kibitz.plots, --plot): what is drawn is the result's figures, the file is written,
the importances rank the parameter that moves the score first, and a missing matplotlib is a
clear error before any game is played."""

from __future__ import annotations

import builtins
import math
import random
from pathlib import Path
from typing import Any

import pytest

import kibitz
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.match import run_match
from kibitz.tune import Trial, TuneResult

pytest.importorskip("matplotlib", reason="the plots need the plot extra (matplotlib)")
pytest.importorskip("optuna", reason="the importances need the tune extra (optuna)")

from kibitz.plots import parameter_importances, plot_ratings, plot_tuning  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_the_ratings_plot_draws_each_bots_win_rate_and_elo_with_their_intervals(tmp_path: Path) -> None:
    result = run_match(kibitz.Game("just4fun_colours"), ["greedy", "random"], 8, seed=5, processes=1)
    path = tmp_path / "ratings.png"
    figure = plot_ratings(result, path)
    assert path.read_bytes().startswith(PNG_MAGIC)
    wins, elo = figure.axes
    points = wins.lines[0].get_xdata()  # the first errorbar's markers, first participant on top
    assert list(points) == pytest.approx([100 * bot.win_rate.mean for bot in result.bots])
    by_height = sorted(zip(wins.get_yticks(), (t.get_text() for t in wins.get_yticklabels())), reverse=True)
    assert [label for _, label in by_height] == [bot.label for bot in result.bots]  # the first participant on top
    first = result.bots[0].elo
    assert first is not None and elo.lines[0].get_xdata()[0] == pytest.approx(first.elo)


def synthetic_trials(n: int, seed: int) -> list[Trial]:
    """Trials whose score depends on c alone (best at c = 1), with epsilon drawn as noise."""
    rng = random.Random(seed)
    trials = []
    for k in range(n):
        c, epsilon = math.exp(rng.uniform(math.log(0.1), math.log(10))), rng.uniform(0, 1)
        trials.append(Trial(k, {"c": c, "epsilon": epsilon}, 0.7 - 0.1 * abs(math.log(c)) + rng.uniform(-0.01, 0.01), 20))
    return trials


def test_importances_rank_the_parameter_the_score_depends_on() -> None:
    trials = synthetic_trials(40, seed=1)
    best = max(trials, key=lambda t: t.value).params
    result = TuneResult("tpe", {"c": 0.7, "epsilon": 0.1}, best, trials)
    importances = parameter_importances(result)
    assert set(importances) == {"c", "epsilon"} and sum(importances.values()) == pytest.approx(1)
    assert importances["c"] > 0.7 > importances["epsilon"]
    assert parameter_importances(TuneResult("spsa", {"c": 0.7}, {"c": 1.0}, trials[:3])) == {}  # θ+ against θ−: no importances


def test_the_tuning_plot_draws_the_history_the_best_so_far_and_each_parameter(tmp_path: Path) -> None:
    trials = synthetic_trials(12, seed=2)
    result = TuneResult("tpe", {"c": 0.7, "epsilon": 0.1}, max(trials, key=lambda t: t.value).params, trials)
    path = tmp_path / "tuning.svg"
    figure = plot_tuning(result, path)
    assert path.read_text().lstrip().startswith("<?xml")
    history, c_panel, epsilon_panel, importance = figure.axes
    scores, best = history.lines[0].get_ydata(), history.lines[1].get_ydata()
    assert list(scores) == [t.value for t in trials]
    assert all(b >= s for b, s in zip(best, scores)) and list(best) == sorted(best) and best[-1] == max(scores)
    assert list(c_panel.collections[0].get_offsets()[:, 1]) == pytest.approx([t.params["c"] for t in trials])
    assert len(importance.patches) == 2


def test_kibitz_match_plot_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "match.png"
    assert main(["match", "just4fun_colours", "--bots", "greedy", "random", "--games", "4", "--processes", "1", "--plot", str(path)]) == 0
    assert path.read_bytes().startswith(PNG_MAGIC) and f"plot written: {path}" in capsys.readouterr().err


def test_without_matplotlib_plot_is_refused_before_any_game(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(OptionError, match=r"pip install 'kibitz\[plot\]'"):
        plot_ratings(run_match(kibitz.Game("just4fun_colours"), ["random", "random"], 2, seed=1, processes=1))
    assert main(["match", "just4fun_colours", "--bots", "greedy", "random", "--games", "2000", "--plot", "x.png"]) == 2
    assert "kibitz[plot]" in capsys.readouterr().err
