"""Match statistics: Elo differences with confidence intervals, the likelihood of
superiority (LOS), the sequential probability ratio test (SPRT), intervals for rates and
means, and ratings from the rank orders of games of three or four players.

A two-sided result is a sample of *scores* in [0, 1], one per unit (:class:`Scores`). A unit
is one game (win 1, draw 1/2, loss 0: the trinomial) or one duplicate group: the games that
replay one deal with the seats permuted, scored by their mean. For two seats a group is a
game pair and its five values 0, 1/4, 1/2, 3/4, 1 are the pentanomial LL, LD, WL+DD, WD, WW
of fishtest and fastchess. The games of a group are correlated (that is the point: the luck
of the deal cancels), so the group, not the game, is the independent unit.

Formulas (docs/tournaments.md gives them with their sources):

- Elo from a score: ``s = 1 / (1 + 10^(-elo/400))`` (the logistic model).
- Interval: mean score ± z·sqrt(var/n) over the n units, mapped to Elo; the error is half the
  interval's width (fishtest's ``stat_util.get_elo``; cutechess and fastchess for games).
- LOS: ``Φ((mean - 1/2) / sqrt(var/n))``.
- SPRT: the generalized SPRT of Michel Van den Bergh used by fishtest (``LLRcalc.py``):
  ``LLR = N · Σ p̂_i log(p1_i / p0_i)`` where p̂ is the observed distribution and p_k the
  maximum-likelihood distribution whose expected score is that of elo_k (``logistic``) or
  whose t-value is that of normalized elo_k (``normalized``); a value never observed counts
  1/1000 (fishtest's regularization). Wald's bounds ``log(β/(1-α))`` and ``log((1-β)/α)``.

>>> round(elo_from_score(0.75), 2)
190.85
>>> e = elo_estimate(Scores.trinomial(losses=772, draws=1329, wins=859))  # fastchess's test
>>> round(e.elo, 1), round(e.error, 1)
(10.2, 9.3)
>>> SPRT(elo0=0, elo1=2).test(Scores.pentanomial(871, 26175, 55983, 26678, 821)).decision
'H0'
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from openskill.models import PlackettLuce

from kibitz.errors import OptionError

Z_95: float = statistics.NormalDist().inv_cdf(0.975)
"""z of a two-sided 95 % interval of the normal distribution."""

UNSEEN = 1e-3  # the count given to a score value never observed (fishtest's regularize)
SCORE_CLAMP = 1e-3  # scores are clamped to [0.001, 0.999] before conversion to Elo, as fishtest does
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (fishtest: nelo_divided_by_nt)
SCORE_DIGITS = 12  # scores that differ only in float rounding (1/3 summed two ways) are one value
MODELS = ("logistic", "normalized")


def _phi(x: float) -> float:
    return statistics.NormalDist().cdf(x)


# -- Elo ---------------------------------------------------------------------------------------


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_from_score(score: float) -> float:
    """The Elo difference that gives the expected ``score``: -400·log10(1/score - 1); scores
    are clamped to [0.001, 0.999] (±1200 Elo), as fishtest does, so that 0 and 1 are finite."""
    score = min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP)
    return -400 * math.log10(1 / score - 1)


# -- samples of scores -------------------------------------------------------------------------


@dataclass(frozen=True)
class Scores:
    """How often each unit score occurred, for units of ``games_per_unit`` games each.

    ``counts`` holds ``(score, count)`` pairs in increasing order of score. The *grid* of a
    unit of k games is i/(2k), i = 0..2k: every score a unit of wins, draws and losses can
    have; fractional shares (a win shared three ways) add their own values.

    >>> Scores.pentanomial(1, 2, 3, 4, 5).counts[1]
    (0.25, 2)
    """

    counts: tuple[tuple[float, int], ...]
    games_per_unit: int = 1

    def __post_init__(self) -> None:
        if self.games_per_unit < 1:
            raise ValueError(f"a unit has at least 1 game, got {self.games_per_unit}")
        for score, count in self.counts:
            if not 0 <= score <= 1 or count < 0:
                raise ValueError(f"scores are in 0..1 and counts are not negative, got {score}: {count}")

    @classmethod
    def of(cls, scores: Iterable[float], games_per_unit: int = 1) -> Scores:
        """The sample of these unit scores."""
        counted = Counter(round(score, SCORE_DIGITS) for score in scores)
        return cls(tuple(sorted(counted.items())), games_per_unit)

    @classmethod
    def trinomial(cls, losses: int, draws: int, wins: int) -> Scores:
        """Single games: ``losses``, ``draws`` and ``wins`` (fishtest's order L, D, W)."""
        return cls(((0.0, losses), (0.5, draws), (1.0, wins)), 1)

    @classmethod
    def pentanomial(cls, ll: int, ld: int, wl_dd: int, wd: int, ww: int) -> Scores:
        """Game pairs by their points: LL, LD+DL, WL+LW+DD, WD+DW, WW (fishtest's order)."""
        return cls(tuple(zip((0.0, 0.25, 0.5, 0.75, 1.0), (ll, ld, wl_dd, wd, ww))), 2)

    @property
    def units(self) -> int:
        return sum(count for _, count in self.counts)

    @property
    def games(self) -> int:
        return self.units * self.games_per_unit

    def __add__(self, other: Scores) -> Scores:
        if other.games_per_unit != self.games_per_unit:
            raise ValueError(f"units of {self.games_per_unit} and of {other.games_per_unit} games do not add up")
        total = Counter(dict(self.counts))
        total.update(dict(other.counts))
        return Scores(tuple(sorted(total.items())), self.games_per_unit)

    def distribution(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The values, their frequencies and the total count, every value of the grid
        present (counted 1/1000 if unseen, as fishtest's ``regularize`` does)."""
        k = self.games_per_unit
        counts = {round(i / (2 * k), SCORE_DIGITS): UNSEEN for i in range(2 * k + 1)}
        for score, count in self.counts:
            if count:
                counts[score] = float(count)
        values = np.array(sorted(counts))
        weights = np.array([counts[v] for v in values])
        total = float(weights.sum())
        return values, weights / total, total

    def mean_and_variance(self) -> tuple[float, float]:
        """The mean unit score and the variance of one unit's score (of the regularized sample)."""
        values, p, _ = self.distribution()
        mean = float(p @ values)
        return mean, float(p @ (values - mean) ** 2)

    def __str__(self) -> str:
        return " ".join(f"{score:g}:{count}" for score, count in self.counts)


# -- Elo and LOS -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EloInterval:
    """An Elo value and its confidence interval ``low..high``."""

    elo: float
    low: float
    high: float

    @property
    def error(self) -> float:
        """Half the width of the interval: the ``±`` of fishtest and cutechess."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class EloEstimate(EloInterval):
    """An Elo difference, its confidence interval ``low..high``, the likelihood of
    superiority ``los`` (the probability that the difference is positive), the mean
    ``score`` and the sample size in units and games."""

    los: float
    score: float
    units: int
    games: int

    def to_dict(self) -> dict[str, float]:
        return {"elo": self.elo, "low": self.low, "high": self.high, "error": self.error, "los": self.los, "score": self.score}

    def __str__(self) -> str:
        return f"{self.elo:+.1f} ± {self.error:.1f} (LOS {100 * self.los:.1f} %)"


def elo_estimate(scores: Scores, confidence: float = 0.95) -> EloEstimate:
    """The Elo difference of the side that scored ``scores``, with a two-sided interval at
    ``confidence`` and the LOS; raises ValueError for an empty sample."""
    if scores.units == 0:
        raise ValueError("an Elo estimate needs at least one result")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence is between 0 and 1, got {confidence}")
    mean, variance = scores.mean_and_variance()
    spread = math.sqrt(variance / scores.units)
    z = statistics.NormalDist().inv_cdf((1 + confidence) / 2)
    return EloEstimate(
        elo=elo_from_score(mean),
        low=elo_from_score(mean - z * spread),
        high=elo_from_score(mean + z * spread),
        los=_phi((mean - 0.5) / spread),
        score=mean,
        units=scores.units,
        games=scores.games,
    )


# -- the SPRT ----------------------------------------------------------------------------------


def _secular(a: np.ndarray, p: np.ndarray) -> float:
    """The root x of Σ p_i·a_i / (1 + x·a_i) = 0 with every 1 + x·a_i > 0 (the a_i of both
    signs), found by Brent's method (fishtest's ``secular``)."""
    # Imported here: scipy.optimize takes about a second to import, and only the SPRT needs it.
    from scipy.optimize import brentq

    epsilon = 1e-9
    low, high = -1 / a.max() + epsilon, -1 / a.min() - epsilon
    return float(brentq(lambda x: float(np.sum(p * a / (1 + x * a))), low, high))


def _mle_with_mean(values: np.ndarray, p: np.ndarray, s: float) -> np.ndarray:
    """The distribution on ``values`` closest in likelihood to ``p`` whose mean is ``s``
    (Van den Bergh, "support_MLE_multinomial", Proposition 1.1)."""
    a = values - s
    return p / (1 + _secular(a, p) * a)


def _mle_with_t(values: np.ndarray, p: np.ndarray, ref: float, t: float) -> np.ndarray:
    """The distribution on ``values`` closest in likelihood to ``p`` whose t-value
    (mean - ref) / sd is ``t`` (Van den Bergh, "normalized_elo_practical", section 4.1),
    by fishtest's fixed-point iteration."""
    q = np.full_like(p, 1 / len(p))
    for _ in range(10):
        mean = float(q @ values)
        sd = math.sqrt(float(q @ (values - mean) ** 2))
        a = values - ref - t * sd * (1 + ((mean - values) / sd) ** 2) / 2
        previous, q = q, p / (1 + _secular(a, p) * a)
        if np.max(np.abs(previous - q)) < 1e-9:
            break
    return q


def llr(scores: Scores, elo0: float, elo1: float, model: str = "logistic") -> float:
    """The generalized log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``)
    for the sample (see the module's docstring); ``model`` is ``logistic`` (Elo from the
    expected score) or ``normalized`` (Elo from the t-value, fishtest's nElo)."""
    values, p, total = scores.distribution()
    if model == "logistic":
        q0, q1 = (_mle_with_mean(values, p, score_from_elo(elo)) for elo in (elo0, elo1))
    elif model == "normalized":
        # normalized Elo is per game; a unit of k games has k times one game's variance
        scale = math.sqrt(scores.games_per_unit) / NELO_PER_T
        q0, q1 = (_mle_with_t(values, p, 0.5, elo * scale) for elo in (elo0, elo1))
    else:
        raise OptionError(f"Elo model {model!r}: expected one of {', '.join(MODELS)}")
    return total * float(p @ (np.log(q1) - np.log(q0)))


@dataclass(frozen=True)
class SPRTResult:
    """One look at an SPRT: the LLR, the bounds, and the decision: ``"H1"`` (the LLR
    reached the upper bound: elo >= elo1 accepted), ``"H0"`` (the lower bound: elo <= elo0)
    or None (go on playing)."""

    llr: float
    lower: float
    upper: float
    decision: str | None
    units: int

    def __str__(self) -> str:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[self.decision]
        return f"LLR {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}): {verdict}"


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test of H0: elo = ``elo0`` against H1: elo = ``elo1``
    with error rates ``alpha`` (accepting H1 when elo <= elo0) and ``beta`` (accepting H0
    when elo >= elo1), as fishtest and fastchess run it. Test the sample after every unit
    (game, or duplicate group); stop at the first decision.

    >>> t = SPRT(elo0=0, elo1=5)
    >>> round(t.lower, 3), round(t.upper, 3)
    (-2.944, 2.944)
    """

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise OptionError(f"SPRT: elo0 must be below elo1, got elo0={self.elo0:g} elo1={self.elo1:g}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise OptionError(f"SPRT: alpha and beta must be in 0..1 with a sum below 1, got alpha={self.alpha:g} beta={self.beta:g}")
        if self.model not in MODELS:
            raise OptionError(f"SPRT: model {self.model!r}: expected one of {', '.join(MODELS)}")
        for name in ("elo0", "elo1"):
            if not abs(getattr(self, name)) < 1000:
                raise OptionError(f"SPRT: {name} must be within ±1000, got {getattr(self, name):g}")

    @classmethod
    def parse(cls, words: str | Sequence[str]) -> SPRT:
        """An SPRT from ``key=value`` words such as ``elo0=0 elo1=5 alpha=0.05 beta=0.05
        model=logistic``; a key not given keeps its default. Raises OptionError naming a bad word."""
        items = words.split() if isinstance(words, str) else list(words)
        values: dict[str, Any] = {}
        for word in items:
            key, eq, value = word.partition("=")
            if not eq or key not in ("elo0", "elo1", "alpha", "beta", "model"):
                raise OptionError(f"SPRT: expected elo0=, elo1=, alpha=, beta= or model=, got {word!r}")
            if key in values:
                raise OptionError(f"SPRT: {key} given twice")
            if key == "model":
                values[key] = value
                continue
            try:
                values[key] = float(value)
            except ValueError:
                raise OptionError(f"SPRT: {key}={value!r} is not a number") from None
        return cls(**values)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def test(self, scores: Scores) -> SPRTResult:
        """The LLR of the sample so far and the decision it gives."""
        value = llr(scores, self.elo0, self.elo1, self.model) if scores.units else 0.0
        decision = "H1" if value >= self.upper else "H0" if value <= self.lower else None
        return SPRTResult(value, self.lower, self.upper, decision, scores.units)

    def to_dict(self) -> dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model}

    def __str__(self) -> str:
        return f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g} ({self.model})"


# -- rates and means ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A sample mean and its confidence interval ``low..high`` (None with fewer than two
    samples, where the interval is undefined)."""

    mean: float
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, float | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def standard_error(values: Sequence[float]) -> float:
    """The standard error of the mean: sample standard deviation (n - 1) over sqrt(n).
    Needs at least two values."""
    if len(values) < 2:
        raise ValueError(f"the standard error needs at least 2 values, got {len(values)}")
    return statistics.stdev(values) / math.sqrt(len(values))


def mean_ci(values: Sequence[float], z: float = Z_95) -> Estimate:
    """The mean of ``values`` with a normal-approximation confidence interval:
    mean ± z · standard error (z = 1.96 for 95 %). Used for ranks and scores."""
    if not values:
        raise ValueError("the mean of no values is undefined")
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return Estimate(mean, None, None)
    half_width = z * standard_error(values)
    return Estimate(mean, mean - half_width, mean + half_width)


def wilson_ci(shares: Sequence[float], z: float = Z_95) -> Estimate:
    """The mean win share with a Wilson score interval, treating the summed share as the
    number of successes in ``len(shares)`` trials (a shared win counts its fraction).

    Unlike the normal approximation it stays inside [0, 1] and does not collapse to zero
    width when every game ends the same way (10 wins of 10 gives 0.72..1.00).
    """
    if not shares:
        raise ValueError("the mean of no values is undefined")
    n = len(shares)
    p = math.fsum(shares) / n
    if n < 2:
        return Estimate(p, None, None)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half_width = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Estimate(p, max(0.0, centre - half_width), min(1.0, centre + half_width))


# -- ratings of many players -------------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    """A Plackett–Luce skill estimate: mean ``mu`` and uncertainty ``sigma`` (openskill's
    scale: a new player is 25 ± 8.33). ``ordinal`` = mu - 3·sigma is the conservative value
    to rank by."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}

    def __str__(self) -> str:
        return f"{self.mu:.1f} ± {2 * self.sigma:.1f}"


Placing = Sequence[tuple[Sequence[int], float]]
"""One game's result for :func:`plackett_luce`: for each team, its players and its rank
(1 = first; equal ranks are a tie)."""


def plackett_luce(players: int, games: Iterable[Placing]) -> list[Rating]:
    """Ratings of ``players`` players (numbered 0..players-1) from the full rank orders of
    ``games``, in order, with openskill's Plackett–Luce model (Weng and Lin 2011) at its
    default settings. A team of several players shares its rank."""
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(players)]
    for placing in games:
        teams = [[ratings[p] for p in members] for members, _ in placing]
        rated = model.rate(teams, ranks=[rank for _, rank in placing])
        for (members, _), team in zip(placing, rated):
            for p, rating in zip(members, team):
                ratings[p] = rating
    return [Rating(r.mu, r.sigma) for r in ratings]


# -- one Elo scale for many players -----------------------------------------------------------


@dataclass(frozen=True)
class Meeting:
    """One unit of a two-sided result between players ``first`` and ``second`` (numbered
    0..players-1): the score of ``first`` (a game, or the mean over a duplicate group of
    ``games`` games), as :class:`Scores` holds it."""

    first: int
    second: int
    score: float
    games: int = 1


@dataclass(frozen=True)
class ScaleRating(EloInterval):
    """A player's rating on one Elo scale (:func:`elo_scale`): ``elo`` with its interval
    ``low..high`` relative to the anchor (whose interval is its rating alone), and the units
    and games it played."""

    units: int
    games: int

    def to_dict(self) -> dict[str, float]:
        return {"elo": self.elo, "low": self.low, "high": self.high, "units": self.units, "games": self.games}

    def __str__(self) -> str:
        return f"{self.elo:+.0f} ({self.low:+.0f}..{self.high:+.0f})"


ELO_PER_NATURAL_UNIT = 400 / math.log(10)


def elo_scale(
    players: int,
    meetings: Iterable[Meeting],
    anchor: int = 0,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    virtual_draws: float = 1.0,
) -> list[ScaleRating]:
    """Every player's Elo on one scale from two-sided results between some of them, the
    ``anchor`` player fixed at ``anchor_elo``: the maximum-likelihood ratings of Elo's
    logistic model (Bradley-Terry; as Ordo and BayesElo fit a tournament), each unit weighted
    by its games. The interval of each rating is relative to the anchor, from the sandwich
    (robust) covariance over the units, so that the games of one duplicate deal, which are
    correlated, count as one observation as :func:`elo_estimate` counts them. Every pair that
    met gets ``virtual_draws`` drawn games (BayesElo's prior), which keeps a rating finite when
    one player won every game against the others; raises ValueError when the players are not
    all connected to the anchor through the meetings."""
    units = list(meetings)
    if not 0 <= anchor < players:
        raise ValueError(f"the anchor is one of the players 0..{players - 1}, got {anchor}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence is between 0 and 1, got {confidence}")
    for m in units:
        if not (0 <= m.first < players and 0 <= m.second < players and m.first != m.second and 0 <= m.score <= 1 <= m.games):
            raise ValueError(f"a meeting of two different players 0..{players - 1} with a score in 0..1: {m}")
    _check_connected(players, units, anchor)
    pairs = sorted({(min(m.first, m.second), max(m.first, m.second)) for m in units})
    first = np.array([m.first for m in units] + [a for a, _ in pairs], dtype=int)
    second = np.array([m.second for m in units] + [b for _, b in pairs], dtype=int)
    score = np.array([m.score for m in units] + [0.5] * len(pairs))
    weight = np.array([float(m.games) for m in units] + [virtual_draws] * len(pairs))
    free = [p for p in range(players) if p != anchor]
    index = {p: i for i, p in enumerate(free)}
    design = np.zeros((len(score), len(free)))  # +1 for first, -1 for second (the anchor has no column)
    for row, (a, b) in enumerate(zip(first, second)):
        if a in index:
            design[row, index[a]] += 1
        if b in index:
            design[row, index[b]] -= 1
    theta = np.zeros(len(free))  # natural units: Elo / (400 / ln 10)
    for _ in range(100):  # Newton's method on a concave log-likelihood
        p = 1 / (1 + np.exp(-(design @ theta)))
        gradient = design.T @ (weight * (score - p))
        information = design.T @ (design * (weight * p * (1 - p))[:, None])
        step = np.linalg.solve(information, gradient)
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1 / (1 + np.exp(-(design @ theta)))
    information = design.T @ (design * (weight * p * (1 - p))[:, None])
    residual = (weight * (score - p))[: len(units), None] * design[: len(units)]  # each real unit's gradient
    bread = np.linalg.inv(information)
    covariance = bread @ (residual.T @ residual) @ bread
    counts = []
    for player in range(players):
        played = [m for m in units if player in (m.first, m.second)]
        counts.append((len(played), sum(m.games for m in played)))
    return _scale_ratings(anchor, anchor_elo, theta, covariance, confidence, counts)


def _scale_ratings(
    anchor: int, anchor_elo: float, theta: np.ndarray, covariance: np.ndarray, confidence: float, counts: Sequence[tuple[int, int]]
) -> list[ScaleRating]:
    """Each player's :class:`ScaleRating` from a fit in natural units: ``theta`` and its
    ``covariance`` over every player but the anchor (in player order), ``counts`` each player's
    (units, games)."""
    z = statistics.NormalDist().inv_cdf((1 + confidence) / 2)
    ratings = []
    for player, (units, games) in enumerate(counts):
        if player == anchor:
            ratings.append(ScaleRating(anchor_elo, anchor_elo, anchor_elo, units, games))
            continue
        i = player - (player > anchor)
        elo = anchor_elo + ELO_PER_NATURAL_UNIT * theta[i]
        half = z * ELO_PER_NATURAL_UNIT * math.sqrt(max(float(covariance[i, i]), 0.0))
        ratings.append(ScaleRating(float(elo), float(elo - half), float(elo + half), units, games))
    return ratings


def plackett_luce_scale(
    players: int,
    units: Iterable[Sequence[Placing]],
    anchor: int = 0,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    virtual_draws: float = 1.0,
) -> list[ScaleRating]:
    """Every player's Elo on one scale from the full rank orders of games of any number of
    players, the ``anchor`` player fixed at ``anchor_elo``: the maximum-likelihood ratings of
    the Plackett-Luce model (a game's order drawn first place first, each remaining team with
    chance proportional to its strength, a team's log-strength the sum of its players'), on
    Elo's scale, where it is Bradley-Terry, that is Elo, for two players. ``units`` are groups
    of games (the games of one duplicate deal); the interval of each rating is relative to the
    anchor, from the sandwich covariance over the units, as :func:`elo_scale` has it. Tied
    teams are each drawn from the same remaining set (Breslow's rule). Every pair of players
    that met gets ``virtual_draws`` drawn two-player games (as :func:`elo_scale` does), which
    keeps ratings finite. Unlike :func:`plackett_luce` (openskill's online update, whose
    uncertainty stops shrinking), the intervals narrow as one over the root of the games.
    Raises ValueError when the players are not all connected to the anchor."""
    groups = [list(unit) for unit in units]
    if not 0 <= anchor < players:
        raise ValueError(f"the anchor is one of the players 0..{players - 1}, got {anchor}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence is between 0 and 1, got {confidence}")
    meetings = []  # who met whom, for the connection check and the virtual draws
    for unit in groups:
        for placing in unit:
            members = [p for team, _ in placing for p in team]
            if len(placing) < 2 or any(not 0 <= p < players for p in members) or len(set(members)) != len(members):
                raise ValueError(f"a game of two or more teams of different players 0..{players - 1}: {placing}")
            meetings += [Meeting(a, b, 0.5) for i, a in enumerate(members) for b in members[i + 1 :]]
    _check_connected(players, meetings, anchor)
    free = [p for p in range(players) if p != anchor]
    index = {p: i for i, p in enumerate(free)}
    pairs = sorted({(min(m.first, m.second), max(m.first, m.second)) for m in meetings})

    def teams_matrix(placing: Placing) -> np.ndarray:
        matrix = np.zeros((len(placing), len(free)))  # a team's log-strength over the free players
        for row, (team, _) in enumerate(placing):
            for p in team:
                if p in index:
                    matrix[row, index[p]] += 1
        return matrix

    def game_terms(placing: Placing, theta: np.ndarray, weight: float = 1.0) -> tuple[float, np.ndarray, np.ndarray]:
        """The log-likelihood of one game's order, its gradient and its information."""
        matrix = teams_matrix(placing)
        strength = matrix @ theta
        ranks = np.array([rank for _, rank in placing], dtype=float)
        log_likelihood, gradient, information = 0.0, np.zeros(len(free)), np.zeros((len(free), len(free)))
        remaining = np.ones(len(placing), dtype=bool)
        for rank in sorted(set(ranks)):
            if remaining.sum() < 2:
                break
            exp = np.exp(strength - strength[remaining].max()) * remaining
            chance = exp / exp.sum()
            mean = chance @ matrix
            spread = matrix.T @ (matrix * chance[:, None]) - np.outer(mean, mean)
            for team in np.flatnonzero(ranks == rank):
                log_likelihood += weight * math.log(chance[team])
                gradient += weight * (matrix[team] - mean)
                information += weight * spread
            remaining &= ranks != rank
        return log_likelihood, gradient, information

    draws = [([([a], 1.0), ([b], 2.0)], virtual_draws / 2) for a, b in pairs] + [([([b], 1.0), ([a], 2.0)], virtual_draws / 2) for a, b in pairs]
    theta = np.zeros(len(free))  # natural units: Elo / (400 / ln 10)
    for _ in range(100):  # Newton's method on a concave log-likelihood
        gradient, information = np.zeros(len(free)), np.zeros((len(free), len(free)))
        for placing, weight in [(g, 1.0) for unit in groups for g in unit] + draws:
            _, g, info = game_terms(placing, theta, weight)
            gradient += g
            information += info
        step = np.linalg.solve(information, gradient)
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    information = np.zeros((len(free), len(free)))
    unit_gradients = []
    for unit in groups:
        total = np.zeros(len(free))
        for placing in unit:
            _, g, info = game_terms(placing, theta)
            total += g
            information += info
        unit_gradients.append(total)
    for placing, weight in draws:
        information += game_terms(placing, theta, weight)[2]
    bread = np.linalg.inv(information)
    meat = sum((np.outer(g, g) for g in unit_gradients), np.zeros((len(free), len(free))))
    covariance = bread @ meat @ bread
    counts = []
    for player in range(players):
        played = [unit for unit in groups if any(player in team for g in unit for team, _ in g)]
        counts.append((len(played), sum(1 for unit in played for g in unit if any(player in team for team, _ in g))))
    return _scale_ratings(anchor, anchor_elo, theta, covariance, confidence, counts)


def _check_connected(players: int, units: Sequence[Meeting], anchor: int) -> None:
    reached, frontier = {anchor}, [anchor]
    while frontier:
        p = frontier.pop()
        for m in units:
            for q, r in ((m.first, m.second), (m.second, m.first)):
                if q == p and r not in reached:
                    reached.add(r)
                    frontier.append(r)
    missing = sorted(set(range(players)) - reached)
    if missing:
        names = ", ".join(map(str, missing))
        raise ValueError(f"players {names} met no one connected to the anchor {anchor}: their ratings are undefined")
