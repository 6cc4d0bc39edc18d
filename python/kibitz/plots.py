"""Pictures of a tournament's ratings and of a tuning run (``--plot out.png``).

Needs matplotlib (``pip install 'kibitz[plot]'``); the figures are drawn without a display
(the Agg backend) and written to a file whose extension picks the format (png, svg, pdf).
Each function returns the matplotlib Figure, so a notebook can show it or draw on it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from kibitz.errors import OptionError

__all__ = ["check_plotting", "parameter_importances", "plot_ratings", "plot_tuning"]

if TYPE_CHECKING:
    from kibitz.match import MatchResult
    from kibitz.tune import TuneResult


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend; OptionError (saying what to install) without it."""
    try:
        import matplotlib
    except ImportError:
        raise OptionError("plotting needs matplotlib: pip install 'kibitz[plot]'") from None
    matplotlib.use("Agg")  # files only: no display is needed
    import matplotlib.pyplot as plt

    return plt


def check_plotting() -> None:
    """Raises OptionError unless matplotlib can be loaded (before a long run that ends in a plot)."""
    _pyplot()


def plot_ratings(result: MatchResult, path: str | os.PathLike[str] | None = None) -> Any:
    """Each participant's win % with its 95 % interval against the baseline a bot no better
    than its opponents would score, and beside it its Elo against the others at its tables
    with the interval (where there are two or more complete units to measure it on)."""
    plt = _pyplot()
    bots = result.bots
    labels = [bot.label for bot in bots]
    rows = list(range(len(bots)))[::-1]  # the first participant on top
    with_elo = [bot.elo is not None for bot in bots]
    figure, axes = plt.subplots(1, 2 if any(with_elo) else 1, figsize=(11 if any(with_elo) else 6, 1.2 + 0.5 * len(bots)), squeeze=False)
    wins = axes[0][0]
    means = [100 * bot.win_rate.mean for bot in bots]
    lows = [100 * (bot.win_rate.mean - (bot.win_rate.low if bot.win_rate.low is not None else bot.win_rate.mean)) for bot in bots]
    highs = [100 * ((bot.win_rate.high if bot.win_rate.high is not None else bot.win_rate.mean) - bot.win_rate.mean) for bot in bots]
    wins.errorbar(means, rows, xerr=[lows, highs], fmt="o", capsize=4)
    wins.axvline(100 * result.baseline, color="grey", linestyle="--", label=f"baseline {100 * result.baseline:.0f} %")
    wins.set_yticks(rows, labels)
    wins.set_xlabel("win % (95 % Wilson interval)")
    wins.legend(loc="best")
    if any(with_elo):
        elo_axes = axes[0][1]
        measured = [(row, bot.elo) for row, bot in zip(rows, bots) if bot.elo is not None]
        elo_axes.errorbar(
            [e.elo for _, e in measured],
            [row for row, _ in measured],
            xerr=[[e.elo - e.low for _, e in measured], [e.high - e.elo for _, e in measured]],
            fmt="s",
            capsize=4,
            color="tab:orange",
        )
        elo_axes.axvline(0, color="grey", linestyle="--")
        elo_axes.set_yticks(rows, labels)
        elo_axes.set_xlabel("Elo against the others at its tables (95 % interval)")
    figure.suptitle(f"{result.game}: {result.games} games, seed {result.seed}")
    figure.tight_layout()
    if path is not None:
        figure.savefig(path)
    return figure


def parameter_importances(result: TuneResult) -> dict[str, float]:
    """How much of the variation of the trials' scores each tuned parameter explains
    (Optuna's PED-ANOVA over the trials; each 0..1, summing to 1). Empty for SPSA, whose
    trials measure θ+ against θ−, and for fewer than two trials."""
    if result.method == "spsa" or len(result.trials) < 2:
        return {}
    import optuna
    from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize")
    names = list(result.start)
    bounds = {n: (min(t.params[n] for t in result.trials), max(t.params[n] for t in result.trials)) for n in names}
    distributions: dict[str, BaseDistribution] = {
        n: IntDistribution(int(lo), int(hi)) if isinstance(result.start[n], int) else FloatDistribution(float(lo), float(hi))
        for n, (lo, hi) in bounds.items()
        if hi > lo
    }
    if not distributions:  # every trial had the same values
        return {}
    for trial in result.trials:
        params = {n: trial.params[n] for n in distributions}
        study.add_trial(optuna.trial.create_trial(params=params, distributions=distributions, value=trial.value))
    importances = optuna.importance.get_param_importances(study, evaluator=optuna.importance.PedAnovaImportanceEvaluator())
    return {n: float(importances.get(n, 0.0)) for n in names}


def plot_tuning(result: TuneResult, path: str | os.PathLike[str] | None = None) -> Any:
    """The tuning history (each trial's score and the best so far; for SPSA θ+'s score
    against θ−), each parameter's value per trial (SPSA: θ), and the parameters' importances."""
    plt = _pyplot()
    names = list(result.start)
    importances = parameter_importances(result)
    panels = 1 + len(names) + (1 if importances else 0)
    figure, axes = plt.subplots(panels, 1, figsize=(7, 2.4 * panels), squeeze=False)
    numbers = [t.number for t in result.trials]
    values = [t.value for t in result.trials]
    history = axes[0][0]
    history.plot(numbers, values, "o", label="trial score")
    if result.method != "spsa":
        best = [max(values[: i + 1]) for i in range(len(values))]
        history.plot(numbers, best, "-", label="best so far")
    history.axhline(0.5, color="grey", linestyle="--")
    history.set_ylabel("θ+ score against θ−" if result.method == "spsa" else "score against the pool")
    history.set_title(f"{result.method}: {len(result.trials)} trials, {result.games} games")
    history.legend(loc="best")
    for row, name in enumerate(names, start=1):
        ax = axes[row][0]
        if result.method == "spsa":
            ax.plot(numbers, [(t.theta or t.params)[name] for t in result.trials], "-o", markersize=3)
            ax.set_ylabel(f"θ {name}")
        else:
            ax.scatter(numbers, [t.params[name] for t in result.trials], c=values, cmap="viridis")
            ax.set_ylabel(name)
        ax.axhline(result.best[name], color="tab:red", linestyle=":", label=f"best {result.best[name]:.4g}")
        ax.legend(loc="best")
    axes[len(names)][0].set_xlabel("trial")
    if importances:
        ax = axes[-1][0]
        ax.barh(list(importances), list(importances.values()))
        ax.set_xlabel("importance (PED-ANOVA)")
    figure.tight_layout()
    if path is not None:
        figure.savefig(path)
    return figure
