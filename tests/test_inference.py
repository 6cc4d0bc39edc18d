"""Policy-based inference (issue 10): the likelihood of the opponents' recent decisions that
Just 4 Fun Colours gives a determinization. The search's weighted pool of root deals that read it
was measured, found no gain and left the search (issue 41); the likelihood stays for research
(bench/inference_overlap.py).

The likelihood is checked against a brute force written here from its definition
(docs/games/just4fun_colours.md §10): every way the hand of the seat under inference can be
stepped back over its draws, and each decision's likelihood with a huge temperature, where the
model reads nothing but wins: epsilon for a hand that could have completed a line and did not,
else 1.
"""

from __future__ import annotations

import math

import pytest

import kibitz
from j4fc_reference import MAP, fidx, fields_of, hand_counts, parse_counts

# Seat 1 owns a1 b1 c1, so d1 (red, empty) completes its line; it holds no red. Seat 0 owns
# a6 c6 e6, no three of a line. Seat 1 moves first.
BASE = (
    "just4fun_colours players=2 line=4 start=1 draws=0 board=111111....../............/............/............/............/01..01..01.. "
    "hands=RROYGBP,OOYYGBB stock=7.5.6.8.6.8 discard=1.2.1.0.1.1 supply=17,17 boxed=0,0"
)
GAME = kibitz.Game.of_notation(BASE)
RED = 0
D1 = fidx("d1")
FLAT = 1e9  # a temperature beyond every score difference: only passed-up wins tell


def after(*moves: str) -> kibitz.State:
    s = GAME.state_from_notation(BASE)
    for m in moves:
        s.apply(m)
    return s


# Seat 1 passes up d1 twice (e3 with a yellow, e4 with a blue), drawing one card each time;
# seat 0 plays f4 with a red in between. Seat 0 to move.
TWO_PASSES = ("e3", "G", "f4", "O", "e4", "P")


def hand_before_its_move(deal: kibitz.State, seat: int, field: str) -> list[int]:
    """The hand `seat` held before its one move since the base, a placement on the empty
    `field`: its hand now, less the one card it drew since the base, plus the card it paid."""
    f = fields_of(deal.notation())
    hand = hand_counts(f["hands"].split(",")[seat])
    drawn = parse_counts(f["drawn"].split("/")[seat])
    assert sum(drawn) == 1
    return [hand[c] - drawn[c] + (c == MAP[fidx(field)]) for c in range(6)]


def heights(s: kibitz.State) -> list[int]:
    rows = fields_of(s.notation())["board"].split("/")
    return [0 if rows[r][2 * c] == "." else int(rows[r][2 * c + 1]) for r in range(6) for c in range(6)]


def flat_likelihood(height: list[int], hand: list[int], epsilon: float) -> float:
    """The model at a flat temperature, with d1 (red) the only winning field."""
    return epsilon if hand[RED] > height[D1] else 1.0


def brute_force(deal: kibitz.State, epsilon: float) -> dict[float, float]:
    """Seat 1's two decisions of TWO_PASSES: every way to take back the card its second draw
    brought (uniform over the hand's cards its drawn cards account for), with its probability;
    the log-likelihood of each, as {log-likelihood: probability}."""
    f = fields_of(deal.notation())
    hand = hand_counts(f["hands"].split(",")[1])
    drawn = parse_counts(f["drawn"].split("/")[1])
    board = heights(deal)
    before_e4 = list(board)
    before_e4[fidx("e4")] -= 1
    before_e3 = list(before_e4)
    before_e3[fidx("f4")] -= 1
    before_e3[fidx("e3")] -= 1
    candidates = [min(h, d) for h, d in zip(hand, drawn)]
    out: dict[float, float] = {}
    for c in range(6):
        if not candidates[c]:
            continue
        at_e4 = list(hand)
        at_e4[c] -= 1
        at_e4[MAP[fidx("e4")]] += 1
        left = list(drawn)
        left[c] -= 1
        (first,) = [k for k in range(6) if left[k]]  # the first draw: the one card left
        at_e3 = list(at_e4)
        at_e3[first] -= 1
        at_e3[MAP[fidx("e3")]] += 1
        ll = math.log(flat_likelihood(before_e4, at_e4, epsilon)) + math.log(flat_likelihood(before_e3, at_e3, epsilon))
        key = round(ll, 6)
        out[key] = out.get(key, 0) + candidates[c] / sum(candidates)
    return out


@pytest.mark.parametrize("epsilon", [0.1, 0.5])
def test_the_likelihood_of_one_passed_up_win_agrees_with_the_brute_force(epsilon):
    s = after("e3", "G")
    for seed in range(60):
        deal = s.determinize(0, seed)
        before = hand_before_its_move(deal, 1, "e3")
        board = heights(deal)
        board[fidx("e3")] -= 1
        ll = deal._s.decision_log_likelihood(0, 1, FLAT, epsilon, seed)
        assert ll == pytest.approx(math.log(flat_likelihood(board, before, epsilon)), abs=1e-4)


def test_the_likelihood_of_two_decisions_agrees_with_the_brute_force_over_the_draws():
    s = after(*TWO_PASSES)
    several = 0
    for deal_seed in range(12):
        deal = s.determinize(0, deal_seed)
        expected = brute_force(deal, 0.1)
        several += len(expected) > 1
        seen: dict[float, int] = {}
        runs = 300
        for seed in range(runs):
            key = round(deal._s.decision_log_likelihood(0, 2, FLAT, 0.1, seed), 4)
            seen[key] = seen.get(key, 0) + 1
        assert set(seen) == {round(k, 4) for k in expected}
        for k, p in expected.items():  # each way is taken about as often as it should be (4 sigma)
            assert abs(seen[round(k, 4)] / runs - p) <= 4 * math.sqrt(p * (1 - p) / runs) + 1e-9
    assert several  # some deals leave the order of the draws open


def test_a_passed_up_win_makes_hands_holding_its_colour_unlikely():
    # uniform deals give seat 1 a red in most hands; weighted, a red is in a hand only when it
    # was drawn after the pass (or through the model's epsilon)
    s = after("e3", "G")
    uniform = weighted = total = 0.0
    for seed in range(400):
        deal = s.determinize(0, seed)
        red = hand_counts(fields_of(deal.notation())["hands"].split(",")[1])[RED] > 0
        w = math.exp(deal._s.decision_log_likelihood(0, 4, 1e4, 0.1, seed))
        uniform += red
        weighted += w * red
        total += w
    assert uniform / 400 > 0.6
    assert weighted / total < 0.4


def test_the_observer_own_decisions_and_zero_turns_tell_nothing():
    s = after(*TWO_PASSES)
    deal = s.determinize(0, 1)
    assert deal._s.decision_log_likelihood(0, 0, 1e4, 0.1, 1) == 0.0
    # seat 1's view: only seat 0's one move (f4) is read, whatever the turns
    deal1 = s.determinize(1, 1)
    for seed in range(5):
        assert deal1._s.decision_log_likelihood(1, 5, 20.0, 0.1, seed) == deal1._s.decision_log_likelihood(1, 1, 20.0, 0.1, seed)


def test_an_unanswered_threat_makes_hands_that_could_answer_it_unlikely():
    # seen from seat 1: at its move seat 0 faced seat 1's threat at d1 (one red; seat 0 does not
    # see that seat 1 holds none) and played f4. Taking a1, b1 or c1 (two yellows, oranges or
    # purples) would have broken the line; covering d1 would not (two reds are feared), so
    # the hands that held such a pair are unlikely
    s = after("e3", "G", "f4", "O")
    could, could_not = 0, 0
    for seed in range(80):
        deal = s.determinize(1, seed)
        before = hand_before_its_move(deal, 0, "f4")
        ll = deal._s.decision_log_likelihood(1, 1, 1e4, 0.1, seed)
        if any(before[MAP[fidx(x)]] >= 2 for x in ("a1", "b1", "c1")):
            could += 1
            assert ll == pytest.approx(math.log(0.1))
        else:
            could_not += 1
            assert ll > math.log(0.5)
    assert could and could_not


def test_the_history_before_the_base_is_not_read():
    # at the base there is no decision to read, and going back stops there
    s = GAME.state_from_notation(BASE)
    assert s._s.decision_log_likelihood(0, 10, 20.0, 0.1, 1) == 0.0


@pytest.mark.parametrize(
    "args, match",
    [((0, -1, 20.0, 0.1), "turns"), ((0, 1, 0.0, 0.1), "temperature"), ((0, 1, 20.0, 1.5), "epsilon"), ((2, 1, 20.0, 0.1), "seat")],
)
def test_bad_likelihood_arguments_raise(args, match):
    with pytest.raises((kibitz.OptionError, IndexError), match=match):
        after("e3", "G")._s.decision_log_likelihood(*args, 1)
