"""Simultaneous decisions (csrc/core/game.h SimultaneousGame; docs/architecture.md §2.3): the
Python API of a joint node, perft and playouts through joint nodes, the match runner and the
bots, and the two test games with known answers.

The known answers are computed here, never copied from the engine: the equilibrium of biased
rock-paper-scissors and the value of Goofspiel positions by backward induction with one linear
program per simultaneous node (scipy's linprog), each checked against a value derived by hand.
"""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest
from scipy.optimize import linprog

import kibitz
from kibitz.match import play_bots, play_game, replay
from state_helpers import joint_moves

RPS = kibitz.Game("biased_rps")
GOOF = kibitz.Game("goofspiel")


# --------------------------------------------------------------------------------------------
# Backward induction with an LP per simultaneous node
# --------------------------------------------------------------------------------------------


def maximin(payoff: np.ndarray) -> tuple[float, np.ndarray]:
    """The row player's value and an optimal mixed strategy of the zero-sum matrix game
    `payoff` (rows: the row player's actions): maximise v subject to payoff^T x >= v,
    sum x = 1, x >= 0."""
    rows, cols = payoff.shape
    c = np.zeros(rows + 1)
    c[-1] = -1.0  # minimise -v
    a_ub = np.hstack([-payoff.T, np.ones((cols, 1))])  # v - sum_i payoff[i, j] x_i <= 0
    a_eq = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    bounds = [(0, 1)] * rows + [(None, None)]
    result = linprog(c, A_ub=a_ub, b_ub=np.zeros(cols), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    assert result.success, result.message
    return result.x[-1], result.x[:-1]


def solve(game: kibitz.Game, notation: str) -> float:
    """Seat 0's exact expected return from a position of a 2-seat constant-sum game (returns
    sum to 1): chance nodes average, a joint node of both seats is a matrix game solved by LP."""

    @functools.cache
    def value(text: str) -> float:
        s = game.state_from_notation(text)
        if s.is_terminal():
            return s.returns()[0]
        if s.is_chance():
            total = 0.0
            for outcome, p in s.chance_outcomes():
                c = s.clone()
                c.apply(outcome)
                total += p * value(c.notation())
            return total
        assert s.is_simultaneous() and s.choosing_seats() == [0, 1]
        return maximin(matrix(s, value))[0]

    return value(notation)


def matrix(s: kibitz.State, value) -> np.ndarray:
    """Seat 0's values of every joint move of a joint node of seats 0 and 1."""
    rows, cols = s.legal_actions_for(0), s.legal_actions_for(1)
    out = np.zeros((len(rows), len(cols)))
    for (i, a), (j, b) in itertools.product(enumerate(rows), enumerate(cols)):
        c = s.clone()
        c.apply_joint({0: a, 1: b})
        out[i, j] = value(c.notation())
    return out


def test_biased_rps_has_its_known_equilibrium():
    s = RPS.new_initial_state()
    payoff = matrix(s, lambda text: solve(RPS, text))
    # the engine's payoffs, through its chance node: 1/2 + u/100 for the matrix u of §1.5
    u = np.array([[0, -25, 50], [25, 0, -5], [-50, 5, 0]])
    assert np.allclose(payoff, 0.5 + u / 100)
    v, x = maximin(payoff)
    assert v == pytest.approx(0.5, abs=1e-9)
    assert x == pytest.approx(np.array([1, 10, 5]) / 16, abs=1e-7)
    # against the equilibrium every pure choice earns exactly 1/2 (nothing exploits it)
    assert payoff.T @ x == pytest.approx([0.5] * 3, abs=1e-7)
    _, y = maximin(1 - payoff.T)  # the column seat's strategy is the same by symmetry
    assert y == pytest.approx(x, abs=1e-7)


def test_biased_rps_scores_are_the_payoffs_and_the_chance_node_their_win_probability():
    s = RPS.new_initial_state()
    s.apply_joint({0: "rock", 1: "paper"})
    assert s.scores() == [-25.0, 25.0]
    assert dict(s.chance_outcomes()) == pytest.approx({0: 0.25, 1: 0.75})
    s = RPS.new_initial_state()
    s.apply_joint({0: "rock", 1: "scissors"})
    assert s.chance_outcomes() == [(0, 1.0)]  # +50: a sure win
    s.apply("win 0")
    assert s.returns() == [1.0, 0.0] and s.ranks() == [1, 2]
    s = RPS.new_initial_state()
    s.apply_joint({0: "paper", 1: "paper"})
    assert s.is_terminal() and s.returns() == [0.5, 0.5] and s.ranks() == [1, 1]


GOOF4 = kibitz.Game("goofspiel", cards=4)
# Seat 0 holds 1 3, seat 1 holds 2 4, prizes 1 and 3 are left and seat 0 leads 4 to 2 (round 1:
# prize 2, bids 2 and 3; round 2: prize 4, bids 4 and 1). By hand: with prize 3 up, seat 0's
# values of (bid 1, bid 3) against (bid 2, bid 4) are [[0, 1/2], [1, 0]] (bid 1 loses 3 and takes
# nothing or ties 4-4 on the last prize; bid 3 against bid 2 wins 7-2...), so seat 0 bids 1 with
# probability 2/3 and the value is 1/3; with prize 1 up the matrix is [[0, 1], [1/2, 0]], bid 1
# with probability 1/3, value 1/3. So the position is worth 1/3 to seat 0.
MIXED = "goofspiel players=2 cards=4 hands=13,24 deck=13 prize=- points=4,2"


def test_goofspiel_backward_induction_matches_the_hand_derived_position():
    assert solve(GOOF4, MIXED) == pytest.approx(1 / 3, abs=1e-9)
    s = GOOF4.state_from_notation(MIXED)
    s.apply("prize 3")
    payoff = matrix(s, lambda text: solve(GOOF4, text))
    assert payoff == pytest.approx(np.array([[0, 0.5], [1, 0]]))
    v, x = maximin(payoff)
    assert v == pytest.approx(1 / 3, abs=1e-9) and x == pytest.approx([2 / 3, 1 / 3], abs=1e-7)
    s = GOOF4.state_from_notation(MIXED)
    s.apply("prize 1")
    v, x = maximin(matrix(s, lambda text: solve(GOOF4, text)))
    assert v == pytest.approx(1 / 3, abs=1e-9) and x == pytest.approx([1 / 3, 2 / 3], abs=1e-7)


@pytest.mark.parametrize("cards", [1, 2, 3, 4])
def test_goofspiel_from_the_start_is_worth_one_half_by_symmetry(cards):
    game = kibitz.Game("goofspiel", cards=cards)
    assert solve(game, game.new_initial_state().notation()) == pytest.approx(0.5, abs=1e-9)


def test_goofspiel_rules_of_a_round():
    s = GOOF4.new_initial_state()
    assert s.is_chance() and [a for a, _ in s.chance_outcomes()] == [0, 1, 2, 3]
    s.apply("prize 3")
    assert s.is_simultaneous() and s.legal_moves_for(0) == ["bid 1", "bid 2", "bid 3", "bid 4"]
    s.apply_joint({0: "bid 4", 1: "bid 2"})  # the higher bid takes the prize's points
    assert s.notation() == "goofspiel players=2 cards=4 hands=123,134 deck=124 prize=- points=3,0"
    s.apply("prize 4")
    s.apply_joint({0: "bid 3", 1: "bid 3"})  # equal bids discard it
    assert s.notation() == "goofspiel players=2 cards=4 hands=12,14 deck=12 prize=- points=3,0"


# --------------------------------------------------------------------------------------------
# The API of a joint node
# --------------------------------------------------------------------------------------------


def goof_at_bid() -> kibitz.State:
    s = GOOF4.new_initial_state()
    s.apply("prize 2")
    return s


def test_a_joint_node_names_its_seats_and_their_own_moves():
    s = goof_at_bid()
    assert s.current_player == kibitz.SIMULTANEOUS and s.is_simultaneous() and not s.is_chance()
    assert s.choosing_seats() == [0, 1]
    assert s.legal_actions_for(0) == [0, 1, 2, 3] and s.legal_moves_for(1) == ["bid 1", "bid 2", "bid 3", "bid 4"]
    with pytest.raises(kibitz.IllegalMoveError, match="choose at once here: ask legal_actions_for"):
        s.legal_actions()
    with pytest.raises(kibitz.IllegalMoveError, match="choose at once"):
        s.apply("bid 1")
    chance = GOOF4.new_initial_state()
    assert chance.choosing_seats() == [] and chance.legal_actions_for(0) == []
    with pytest.raises(kibitz.IllegalMoveError, match="no joint move here: chance is to act"):
        chance.apply_joint({0: 0, 1: 0})


@pytest.mark.parametrize(
    "joint, error, message",
    [
        ({0: "bid 1"}, kibitz.IllegalMoveError, "the joint move has no move of seat 1; every choosing seat"),
        ({0: "bid 1", 1: "bid 1", 2: "bid 1"}, kibitz.IllegalMoveError, "seat 2 does not choose here; the choosing seats are 0, 1"),
        ({0: "bid 1", "1": "bid 1"}, kibitz.IllegalMoveError, "seat '1' does not choose here"),
        ({0: "bid 9", 1: "bid 1"}, kibitz.NotationError, "seat 0: bid: expected an integer in 1..4, got '9'"),
        ({0: "bid 1", 1: 7}, kibitz.IllegalMoveError, "seat 1: action id 7 is not legal here; legal: bid 1 bid 2 bid 3 bid 4"),
        ({0: "bid 1", 1: "pass"}, kibitz.NotationError, "seat 1: 'pass': expected 'bid <card 1..4>' here"),
        ([0, 1], kibitz.NotationError, "a joint move is a mapping seat -> move"),
    ],
)
def test_a_bad_joint_move_is_refused_naming_what_is_wrong_and_changes_nothing(joint, error, message):
    s = goof_at_bid()
    before = s.notation()
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        s.apply_joint(joint)
    assert s.notation() == before


def test_an_illegal_move_of_one_seat_names_the_seat_and_its_legal_moves():
    s = goof_at_bid()
    s.apply_joint({0: "bid 2", 1: "bid 3"})
    s.apply("prize 1")
    before = s.notation()
    with pytest.raises(kibitz.IllegalMoveError, match=r"^seat 0: 'bid 2' is not legal here; legal: bid 1 bid 3 bid 4$"):
        s.apply_joint({0: "bid 2", 1: "bid 1"})
    assert s.notation() == before


def test_joint_moves_are_observed_choice_by_choice_and_views_follow_them():
    s = goof_at_bid()
    joint = {0: 3, 1: 0}
    assert s.observe_choice(0, 1, 0) == 0  # goofspiel shows the bids at once
    assert s.joint_observation_text(0, joint) == "bid 4" + kibitz.JOINT_SEPARATOR + "bid 1"
    views = [s.view(seat) for seat in (0, 1)]
    seen = [s.joint_observation_text(seat, joint) for seat in (0, 1)]
    s.apply_joint(joint)
    assert [v.advance(t).notation() for v, t in zip(views, seen)] == [s.view(0).notation(), s.view(1).notation()]
    with pytest.raises(kibitz.NotationError, match="a joint move here has 2 choices"):
        views[0].advance("bid 4")


def test_perft_counts_each_joint_move_as_one_ply():
    s = GOOF4.new_initial_state()
    # N prizes, then N x N joint bids, then N - 1 prizes, ...
    assert [s.perft(d) for d in range(5)] == [1, 4, 4 * 16, 4 * 16 * 3, 4 * 16 * 3 * 9]
    rps = RPS.new_initial_state()
    # 9 joint moves; the 3 ties end the game, the other 6 have 2 outcomes except the two sure wins
    assert [rps.perft(d) for d in range(3)] == [1, 9, 3 + 4 * 2 + 2 * 1]
    assert len(joint_moves(rps)) == 9


def test_playouts_pass_joint_nodes_and_count_every_seat_s_choice():
    s = GOOF4.new_initial_state()
    # every goofspiel game has N rounds of 2 choices each
    assert s._s.random_playouts(50, 3) == 50 * 8
    assert s._s.heuristic_playouts(50, 3) == 50 * 8


def test_search_at_a_joint_node_needs_one_of_the_choosing_seats():
    s = goof_at_bid()
    with pytest.raises(kibitz.IllegalMoveError, match=r"seats 0, 1 choose at once here: search one of them \(seat=...\), got None"):
        s.search(kibitz.SearchParams(iterations=10))
    with pytest.raises(kibitz.IllegalMoveError, match="got 2"):
        s.search(kibitz.SearchParams(iterations=10), seat=2)
    with pytest.raises(ValueError, match="seats 0, 1 choose at once here; search one of them"):
        s._s.search(kibitz.SearchParams(iterations=10).to_core(), -1)  # the core says so too
    chance = GOOF4.new_initial_state()
    with pytest.raises(kibitz.IllegalMoveError, match="terminal or a chance node"):
        chance.search(kibitz.SearchParams(iterations=10))
    # the bots search their own seat's choice
    assert kibitz.make_bot("ismcts:iterations=200").act(s.view(1)) in s.legal_actions_for(1)
    assert kibitz.make_bot("uct:iterations=200").act(s, 0) in s.legal_actions_for(0)


# --------------------------------------------------------------------------------------------
# The search at joint nodes: average strategies against the known equilibria
# --------------------------------------------------------------------------------------------

RPS_PAYOFF = 0.5 + np.array([[0, -25, 50], [25, 0, -5], [-50, 5, 0]]) / 100  # seat 0's win chance


def root_strategy(state: kibitz.State, result: kibitz.SearchResult, seat: int) -> np.ndarray:
    """The search's probabilities over seat's legal actions, in their order."""
    actions = state.legal_actions_for(seat)
    x = np.zeros(len(actions))
    for stat in result.stats:
        x[actions.index(stat.action)] = stat.probability
    assert x.sum() == pytest.approx(1.0)
    return x


def exploitability(x: np.ndarray, payoff: np.ndarray, value: float) -> float:
    """How much less than the game's value the row strategy x earns against the best reply."""
    return value - float((x @ payoff).min())


def rps_exploitability(algorithm: str, simultaneous: str, iterations: int, seed: int) -> float:
    s = RPS.new_initial_state()
    params = kibitz.SearchParams(algorithm=algorithm, iterations=iterations, seed=seed, simultaneous=simultaneous)
    return exploitability(root_strategy(s, s.search(params, seat=0), 0), RPS_PAYOFF, 0.5)


# Measured (10 seeds, 20,000 iterations, sm_gamma 0.1): rm mean 0.015, max 0.032; exp3 mean 0.017,
# max 0.033; duct mean 0.054, max 0.085 (the same for uct, so_ismcts and mo_ismcts: nothing is
# hidden). The equilibrium (1/16, 10/16, 5/16) is 0; the uniform strategy 0.067; pure paper 0.25.
@pytest.mark.parametrize("algorithm", ["uct", "so_ismcts", "mo_ismcts"])
@pytest.mark.parametrize("simultaneous", ["rm", "exp3"])
def test_regret_matching_and_exp3_approach_the_biased_rps_equilibrium(algorithm, simultaneous):
    for seed in range(4):
        assert rps_exploitability(algorithm, simultaneous, 20_000, seed) < 0.05


def test_decoupled_uct_on_biased_rps_is_more_exploitable_than_regret_matching():
    rm = [rps_exploitability("uct", "rm", 20_000, seed) for seed in range(6)]
    duct = [rps_exploitability("uct", "duct", 20_000, seed) for seed in range(6)]
    assert max(duct) < 0.12  # it still learns something: uniform play is 0.067, but pure paper 0.25
    assert np.mean(rm) < 0.03 < np.mean(duct)


def test_the_move_at_a_joint_root_is_drawn_from_the_average_strategy_under_rm_and_the_most_visited_under_duct():
    s = RPS.new_initial_state()
    moves = []
    for seed in range(40):
        result = s.search(kibitz.SearchParams(algorithm="uct", iterations=3000, seed=seed, simultaneous="rm"), seat=1)
        assert dict((st.action, st.probability) for st in result.stats)[result.action] > 0
        moves.append(result.move)
    assert {"paper", "scissors"} <= set(moves)  # a mixed strategy, played as one
    assert moves.count("paper") > moves.count("scissors")  # 10/16 against 5/16
    again = s.search(kibitz.SearchParams(algorithm="uct", iterations=3000, seed=7, simultaneous="rm"), seat=1)
    assert again.move == moves[7]  # the draw comes from the seed
    for seed in range(5):
        result = s.search(kibitz.SearchParams(algorithm="uct", iterations=3000, seed=seed, simultaneous="duct"), seat=1)
        assert result.action == result.stats[0].action
        assert [st.probability for st in result.stats] == pytest.approx([st.visits / 3000 for st in result.stats])


def test_the_goofspiel_root_strategy_of_regret_matching_is_near_the_lp_equilibrium_and_duct_s_is_not():
    s = GOOF4.new_initial_state()
    s.apply("prize 3")
    payoff = matrix(s, lambda text: solve(GOOF4, text))  # seat 0's values with best play after
    value, _ = maximin(payoff)
    assert value == pytest.approx(0.5)

    def measured(simultaneous: str, seed: int) -> float:
        params = kibitz.SearchParams(algorithm="uct", iterations=200_000, seed=seed, simultaneous=simultaneous)
        return exploitability(root_strategy(s, s.search(params, seat=0), 0), payoff, value)

    # Measured (6 seeds): at 100,000 iterations rm mean 0.035, max 0.069, duct mean 0.160, max
    # 0.248; at 400,000 rm mean 0.024, max 0.046, duct 0.164 and 0.243 (it does not converge).
    rm = [measured("rm", seed) for seed in range(3)]
    duct = [measured("duct", seed) for seed in range(3)]
    assert max(rm) < 0.08 and np.mean(rm) < 0.06
    assert np.mean(duct) > 2 * np.mean(rm)


# --------------------------------------------------------------------------------------------
# Bots and the match runner
# --------------------------------------------------------------------------------------------


class Spy:
    """A bot that plays randomly and remembers what it was shown at each decision."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.seen: list[tuple[int, str, bool]] = []
        self._rng = random.Random(seed)

    def act(self, view: kibitz.View) -> int:
        state = view.state()
        self.seen.append((view.seat, view.notation(), state.is_simultaneous()))
        return self._rng.choice(state.legal_actions_for(view.seat))


def test_the_match_runner_asks_every_choosing_seat_before_applying_and_records_them_in_order():
    spies = [Spy("a", 1), Spy("b", 2)]
    moves: list[tuple[str, object]] = []
    record = play_bots(GOOF4, spies, seed=4, on_move=lambda s, move: moves.append((s.notation(), move)))
    joint = [(text, move) for text, move in moves if isinstance(move, dict)]
    assert len(joint) == 4 and all(set(move) == {0, 1} for _, move in joint)
    # both seats were asked on the same state, before either choice was applied
    for (text, move), a, b in zip(joint, spies[0].seen, spies[1].seen):
        assert a[2] and b[2]
        assert a[1] == GOOF4.state_from_notation(text).view(0).notation()
        assert b[1] == GOOF4.state_from_notation(text).view(1).notation()
    # the record lists each joint move's choices in choosing order, after its prize
    assert record.moves[1:3] == [f"bid {joint[0][1][0] + 1}", f"bid {joint[0][1][1] + 1}"]
    assert len(record.actions) == 4 * 3
    assert replay(record).returns() == record.returns


@pytest.mark.parametrize("game", [RPS, GOOF4], ids=["biased_rps", "goofspiel"])
def test_random_and_greedy_bots_play_simultaneous_games(game):
    for seed in range(6):
        record = play_game(game, ["greedy", "random"], seed=seed)
        final = replay(record)
        assert final.is_terminal() and sum(record.returns) == pytest.approx(1.0)


def test_a_replay_that_ends_inside_a_joint_move_is_refused():
    record = play_game(GOOF4, ["random", "random"], seed=2)
    cut = type(record)(**{**record.__dict__, "actions": record.actions[:2], "moves": record.moves[:2]})
    with pytest.raises(ValueError, match="the record ends inside the joint move of seats 0, 1"):
        replay(cut)


def test_what_a_seat_sees_of_a_choice_is_asked_of_a_legal_choice_only():
    """Game('yak', players=3).new_initial_state(3).observe_choice(1, 1, 10**9) returned 1000000000."""
    s = kibitz.Game("yak", players=3).new_initial_state(3)
    assert s.is_simultaneous() and s.choosing_seats() == [0, 1, 2]
    before = s.notation()
    legal = s.legal_actions_for(1)
    for observer in (1, 0):
        with pytest.raises(kibitz.IllegalMoveError, match=r"^illegal choice action id 1000000000 for seat 1 in yak; legal: "):
            s.observe_choice(observer, 1, 10**9)
    assert s.observe_choice(1, 1, legal[0]) == legal[0] and s.observe_choice(0, 1, legal[0]) is None  # a Sunrise card is secret
    with pytest.raises(kibitz.IllegalMoveError, match="choose at once here .*: what is seen of a choice is observe_choice's"):
        s.observe(0, legal[0])
    assert s.notation() == before
    prize = goof_at_bid()
    prize.apply_joint({0: 0, 1: 1})
    with pytest.raises(ValueError, match="not a simultaneous node"):
        prize.observe_choice(0, 1, 0)
