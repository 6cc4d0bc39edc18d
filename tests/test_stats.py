"""kibitz.stats against published values: fastchess's Elo and SPRT tests (tests/elo_test.cpp,
tests/sprt_test.cpp of Disservin/fastchess, which checks them to 1 %), fishtest's formulas
(server/fishtest/stats/LLRcalc.py, stat_util.py of official-stockfish/fishtest) and hand
computations; SPRT decisions and error rates on synthetic result streams of known Elo."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from scipy.optimize import minimize

import kibitz.stats
from kibitz.errors import OptionError
from kibitz.stats import SPRT, Scores, elo_estimate, elo_from_score, llr, plackett_luce, score_from_elo


def test_the_docstrings_hold() -> None:
    assert doctest.testmod(kibitz.stats).failed == 0


# -- Elo ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("score", "elo"), [(0.5, 0.0), (0.75, 190.849), (0.6, 70.437), (0.9, 381.697), (0.25, -190.849)])
def test_elo_of_a_score_is_the_logistic_curve(score: float, elo: float) -> None:
    # -400 log10(1/s - 1): 0.75 -> 400 log10 3 = 190.849, 0.9 -> 400 log10 9 = 381.697
    assert elo_from_score(score) == pytest.approx(elo, abs=1e-3)
    assert score_from_elo(elo_from_score(score)) == pytest.approx(score)


def test_scores_of_zero_and_one_are_clamped_as_fishtest_does() -> None:
    assert elo_from_score(1.0) == pytest.approx(-400 * math.log10(1 / 0.999 - 1))
    assert elo_from_score(0.0) == pytest.approx(-elo_from_score(1.0))


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "elo", "error"),
    [(0, 36, 14, -315.34, 95.43), (859, 772, 1329, 10.21, 9.28), (1164, 1267, 3049, -6.53, 6.12)],
)
def test_elo_and_its_error_match_fastchess(wins: int, losses: int, draws: int, elo: float, error: float) -> None:
    estimate = elo_estimate(Scores.trinomial(losses, draws, wins))
    assert estimate.elo == pytest.approx(elo, rel=0.01)
    assert estimate.error == pytest.approx(error, rel=0.01)
    assert estimate.low < estimate.elo < estimate.high
    assert estimate.games == wins + losses + draws


def test_pentanomial_elo_interval_and_los_by_hand() -> None:
    # pairs 1, 2, 4, 2, 1 at 0, 1/4, 1/2, 3/4, 1: mean 1/2, variance (2·1/4 + 4·1/16) / 10 = 0.075
    estimate = elo_estimate(Scores.pentanomial(1, 2, 4, 2, 1))
    half = 1.959964 * math.sqrt(0.075 / 10)
    assert estimate.elo == pytest.approx(0.0, abs=1e-9) and estimate.los == pytest.approx(0.5)
    assert estimate.high == pytest.approx(elo_from_score(0.5 + half), rel=1e-6)
    assert estimate.low == pytest.approx(-estimate.high)
    assert (estimate.units, estimate.games) == (10, 20)
    # LOS = Phi((mean - 1/2) / sqrt(var / n)): 20 pairs at +70 Elo
    ahead = Scores.pentanomial(0, 2, 10, 6, 2)
    mean, variance = ahead.mean_and_variance()
    assert elo_estimate(ahead).los == pytest.approx(0.5 * (1 + math.erf((mean - 0.5) / math.sqrt(variance / ahead.units) / math.sqrt(2))))
    assert 0.98 < elo_estimate(ahead).los < 0.99


def test_pairing_luck_away_narrows_the_interval() -> None:
    # the same 40 games: as 20 pairs each split 1-1 (luck of the deal cancelled) and unpaired
    paired = elo_estimate(Scores.pentanomial(0, 0, 20, 0, 0))
    unpaired = elo_estimate(Scores.trinomial(20, 0, 20))
    assert paired.elo == pytest.approx(unpaired.elo, abs=1e-6)
    assert paired.error < unpaired.error / 5


# -- SPRT --------------------------------------------------------------------------------------


def trinomial(wins: int, losses: int, draws: int) -> Scores:
    return Scores.trinomial(losses, draws, wins)


def pentanomial(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> Scores:
    """fastchess's Stats(ll, ld, wl, dd, wd, ww): WL and DD are both one point per pair."""
    return Scores.pentanomial(ll, ld, wl + dd, wd, ww)


@pytest.mark.parametrize(
    ("scores", "elo0", "elo1", "model", "expected"),
    [
        (trinomial(21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
        (trinomial(57433, 57030, 106593), 0, 2, "logistic", -2.59),
        (pentanomial(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
        (pentanomial(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
        (trinomial(36433, 36027, 68692), 0, 2, "normalized", 0.92),
        (trinomial(10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
        (pentanomial(365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
        (pentanomial(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ],
)
def test_llr_matches_fastchess(scores: Scores, elo0: float, elo1: float, model: str, expected: float) -> None:
    assert llr(scores, elo0, elo1, model) == pytest.approx(expected, rel=0.01)


def test_llr_is_the_likelihood_ratio_of_the_constrained_maxima() -> None:
    # an independent computation for scores off the pentanomial grid (shares of 1/3 and 2/3):
    # maximize the multinomial likelihood under the mean constraint with SLSQP
    scores = Scores.of([0, 1 / 3, 1 / 3, 0.5, 2 / 3, 1, 1, 2 / 3, 0.5, 1, 0.25, 0.75] * 5, games_per_unit=2)
    values, p, total = scores.distribution()

    def best_log_likelihood(mean: float) -> float:
        fit = minimize(
            lambda q: -float(p @ np.log(q)),
            p,
            constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}, {"type": "eq", "fun": lambda q: q @ values - mean}],
            bounds=[(1e-12, 1)] * len(p),
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return -fit.fun

    expected = total * (best_log_likelihood(score_from_elo(60)) - best_log_likelihood(score_from_elo(10)))
    assert llr(scores, 10, 60) == pytest.approx(expected, rel=1e-4)


def test_wald_bounds() -> None:
    # log(beta / (1 - alpha)) and log((1 - beta) / alpha): ±log 19 = ±2.944 at 5 % (fishtest's bounds)
    assert (SPRT().lower, SPRT().upper) == pytest.approx((-math.log(19), math.log(19)))
    t = SPRT(alpha=0.01, beta=0.1)
    assert (t.lower, t.upper) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def test_sprt_decisions_on_synthetic_counts() -> None:
    t = SPRT(elo0=0, elo1=10)
    assert t.test(Scores.pentanomial(0, 0, 0, 0, 0)).decision is None  # nothing played yet
    assert t.test(Scores.pentanomial(5, 100, 500, 200, 15)).decision == "H1"  # about +37 Elo
    assert t.test(Scores.pentanomial(15, 200, 500, 100, 5)).decision == "H0"  # about -37 Elo
    middle = t.test(Scores.pentanomial(10, 150, 500, 155, 10))  # +2 Elo, 825 pairs: not yet
    assert middle.decision is None and middle.lower < middle.llr < middle.upper
    # the LLR at a score half way between the hypotheses is about 0
    assert abs(llr(Scores.pentanomial(10, 150, 480, 170, 10), 0, 10)) < 0.5
    assert "H1 accepted" in str(t.test(Scores.pentanomial(5, 100, 500, 200, 15)))


def _pentanomial_probabilities(elo: float, draw_rate: float = 0.3) -> np.ndarray:
    """Two independent games of expected score L(elo) with the given draw rate."""
    s = score_from_elo(elo)
    game = np.array([1 - s - draw_rate / 2, draw_rate, s - draw_rate / 2])  # loss, draw, win
    return np.convolve(game, game)


def _error_rate(true_elo: float, test: SPRT, wrong: str, runs: int, seed: int) -> float:
    """How often the test, looking after every 5 pairs, decides ``wrong`` on pairs drawn at ``true_elo``."""
    rng = np.random.default_rng(seed)
    p = _pentanomial_probabilities(true_elo)
    wrong_decisions = 0
    for _ in range(runs):
        counts = np.zeros(5, dtype=int)
        decision = None
        while decision is None:
            counts += rng.multinomial(5, p)
            decision = test.test(Scores.pentanomial(*counts.tolist())).decision
        wrong_decisions += decision == wrong
    return wrong_decisions / runs


def test_sprt_error_rates_stay_within_alpha_and_beta() -> None:
    # 300 simulated tests at elo = elo0 and 300 at elo = elo1 (seeded); the SPRT promises
    # error rates of at most alpha and beta there. Bound: the rate plus 3 binomial standard
    # deviations (a false failure about once in 700 runs of this test).
    test = SPRT(elo0=0, elo1=40, alpha=0.1, beta=0.1)
    runs = 300
    slack = 3 * math.sqrt(0.1 * 0.9 / runs)
    assert _error_rate(0, test, "H1", runs, seed=1) <= test.alpha + slack
    assert _error_rate(40, test, "H0", runs, seed=2) <= test.beta + slack


def test_sprt_parse_and_bad_input() -> None:
    assert SPRT.parse("elo0=0 elo1=5") == SPRT(0, 5)
    assert SPRT.parse(["elo0=-1", "elo1=3", "alpha=0.01", "beta=0.2", "model=normalized"]) == SPRT(-1, 3, 0.01, 0.2, "normalized")
    for text, named in [
        ("elo0=5 elo1=0", "elo0 must be below elo1"),
        ("elo0=0 elo1=x", "elo1='x' is not a number"),
        ("elo0=0 elo1=5 gamma=1", "got 'gamma=1'"),
        ("elo0=0 elo0=1", "elo0 given twice"),
        ("alpha=0.6 beta=0.6", "sum below 1"),
        ("model=bayes", "model 'bayes'"),
        ("elo1=inf", "within ±1000"),
    ]:
        with pytest.raises(OptionError, match=named):
            SPRT.parse(text)


# -- samples -----------------------------------------------------------------------------------


def test_scores_count_values_and_fill_the_grid() -> None:
    scores = Scores.of([1, 0.5, 1, 1 / 3, 0.1 + 0.2 + 1 / 3 - 0.3])  # 1/3 reached two ways is one value
    assert scores.counts == ((round(1 / 3, 12), 2), (0.5, 1), (1.0, 2))
    values, _, total = scores.distribution()
    assert list(values) == pytest.approx([0, 1 / 3, 0.5, 1]) and total == pytest.approx(5.001)
    assert (Scores.trinomial(1, 2, 3) + Scores.trinomial(1, 0, 0)).counts == ((0.0, 2), (0.5, 2), (1.0, 3))
    with pytest.raises(ValueError, match="do not add up"):
        Scores.trinomial(1, 2, 3) + Scores.pentanomial(1, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="at least one result"):
        elo_estimate(Scores.of([]))


# -- ratings of many players -------------------------------------------------------------------


def test_plackett_luce_orders_players_by_their_finishes() -> None:
    games = [[([0], 1), ([1], 2), ([2], 3)]] * 15 + [[([1], 1), ([0], 2), ([2], 3)]] * 5
    ratings = plackett_luce(3, games)
    assert ratings[0].mu > ratings[1].mu > 25 > ratings[2].mu
    assert all(r.sigma < 25 / 3 for r in ratings)  # every player is known better than at the start
    assert ratings[0].ordinal == pytest.approx(ratings[0].mu - 3 * ratings[0].sigma)


def test_plackett_luce_ties_and_teams() -> None:
    tied = plackett_luce(2, [[([0], 1), ([1], 1)]] * 10)
    assert tied[0].mu == pytest.approx(tied[1].mu)
    # two teams of two: the partners of the winning team rise together
    teams = plackett_luce(4, [[([0, 2], 1), ([1, 3], 2)]] * 10)
    assert teams[0].mu == pytest.approx(teams[2].mu) and teams[0].mu > 25 > teams[1].mu


# -- one Elo scale ------------------------------------------------------------------------------


def simulated_meetings(elos: list[float], pairs: list[tuple[int, int]], units: int, seed: int) -> list[kibitz.stats.Meeting]:
    """Pairs of games (duplicate units) between players of known Elo, each game won with the
    logistic probability (no draws)."""
    rng = np.random.default_rng(seed)
    meetings = []
    for a, b in pairs:
        p = score_from_elo(elos[a] - elos[b])
        for _ in range(units):
            meetings.append(kibitz.stats.Meeting(a, b, float(rng.binomial(2, p)) / 2, games=2))
    return meetings


def test_elo_scale_recovers_known_ratings_within_its_intervals() -> None:
    elos = [0.0, 150.0, 300.0, 450.0, 600.0]
    pairs = [(i, j) for i in range(5) for j in range(i + 1, min(i + 3, 5))]  # a ladder: each meets the next two
    ratings = kibitz.stats.elo_scale(5, simulated_meetings(elos, pairs, 300, seed=3), anchor=0)
    assert ratings[0].elo == ratings[0].low == ratings[0].high == 0
    for true, rating in zip(elos[1:], ratings[1:]):
        assert rating.low < true < rating.high, (true, rating)
        assert rating.error < 60
    assert [r.units for r in ratings] == [600, 900, 1200, 900, 600]


def test_elo_scale_of_two_players_agrees_with_elo_estimate() -> None:
    meetings = simulated_meetings([0.0, 120.0], [(1, 0)], 200, seed=4)
    scale = kibitz.stats.elo_scale(2, meetings, anchor=1, virtual_draws=0)[0]
    direct = elo_estimate(Scores.of([1 - m.score for m in meetings], games_per_unit=2))
    assert scale.elo == pytest.approx(direct.elo, abs=0.01)
    assert scale.error == pytest.approx(direct.error, rel=0.05)  # the delta method against mapped ends


def test_elo_scale_stays_finite_for_a_clean_sweep_and_refuses_what_it_cannot_rate() -> None:
    sweep = [kibitz.stats.Meeting(1, 0, 1.0, 2)] * 10
    rating = kibitz.stats.elo_scale(2, sweep)[1]
    assert 300 < rating.elo < 1200 and math.isfinite(rating.high)
    with pytest.raises(ValueError, match="players 2 met no one connected to the anchor 0"):
        kibitz.stats.elo_scale(3, sweep)
    with pytest.raises(ValueError, match="two different players"):
        kibitz.stats.elo_scale(2, [kibitz.stats.Meeting(0, 0, 0.5)])
    with pytest.raises(ValueError, match="anchor"):
        kibitz.stats.elo_scale(2, sweep, anchor=2)


def simulated_orders(elos: list[float], units: int, seed: int) -> list[list[kibitz.stats.Placing]]:
    """Units of four games of all players at one table, each game's rank order drawn from the
    Plackett-Luce model with strengths 10^(elo/400)."""
    rng = np.random.default_rng(seed)
    strength = np.power(10.0, np.array(elos) / 400)
    out = []
    for _ in range(units):
        unit = []
        for _ in range(4):
            left, placing = list(range(len(elos))), []
            while left:
                weights = strength[left] / strength[left].sum()
                chosen = left[int(rng.choice(len(left), p=weights))]
                placing.append(([chosen], float(len(placing) + 1)))
                left.remove(chosen)
            unit.append(placing)
        out.append(unit)
    return out


def test_plackett_luce_scale_recovers_known_ratings_and_narrows_with_more_games() -> None:
    elos = [0.0, -300.0, 100.0, 250.0]
    ratings = kibitz.stats.plackett_luce_scale(4, simulated_orders(elos, 400, seed=5), anchor=0)
    assert ratings[0].elo == ratings[0].low == ratings[0].high == 0
    for true, rating in zip(elos[1:], ratings[1:]):
        assert rating.low < true < rating.high, (true, rating)
        assert rating.error < 40
    assert [r.games for r in ratings] == [1600] * 4 and [r.units for r in ratings] == [400] * 4
    fewer = kibitz.stats.plackett_luce_scale(4, simulated_orders(elos, 100, seed=6), anchor=0)
    for many, few in zip(ratings[1:], fewer[1:]):  # a quarter of the games: about twice the interval
        assert 1.5 < few.error / many.error < 2.7


def test_plackett_luce_scale_of_two_players_is_the_elo_scale() -> None:
    meetings = simulated_meetings([0.0, 120.0], [(1, 0)], 200, seed=4)
    units = [[[([1], 1.0 if k < m.score * 2 else 2.0), ([0], 2.0 if k < m.score * 2 else 1.0)] for k in range(2)] for m in meetings]
    ordered = kibitz.stats.plackett_luce_scale(2, units, anchor=1)[0]
    scale = kibitz.stats.elo_scale(2, meetings, anchor=1)[0]
    assert ordered.elo == pytest.approx(scale.elo, abs=0.5) and ordered.error == pytest.approx(scale.error, rel=0.02)


def test_plackett_luce_scale_refuses_what_it_cannot_rate() -> None:
    game = [([0], 1.0), ([1], 2.0)]
    with pytest.raises(ValueError, match="players 2 met no one connected to the anchor 0"):
        kibitz.stats.plackett_luce_scale(3, [[game]])
    with pytest.raises(ValueError, match="two or more teams of different players"):
        kibitz.stats.plackett_luce_scale(2, [[[([0], 1.0), ([0], 2.0)]]])
    with pytest.raises(ValueError, match="anchor"):
        kibitz.stats.plackett_luce_scale(2, [[game]], anchor=2)
