"""The opponent model in the tree (opponent_policy, against a brute-force search that models the
opponent the same way) and the adaptive one (opponent_model=adaptive, kibitz.opponents): per-seat
shares in the search, the estimate from observed moves, how the match runner and the engine feed it, and
the policy bot it is measured against."""

from __future__ import annotations

import io
import math

import pytest

import kibitz
from kibitz import SearchParams
from kibitz.bots import PolicyBot, SearchBot, make_bot
from kibitz.match import play_bots, positions, seat_bots
from kibitz.opponents import GRID, PRIOR_POWER, OpponentModel
from kibitz.protocol import Engine

YUCATA4 = kibitz.Game("yucata", players=4, layout="random")
J4FC = kibitz.Game("just4fun_colours", players=2)


def test_a_seat_share_is_that_seats_opponent_policy_and_the_searching_team_is_never_modelled():
    s = J4FC.new_initial_state(seed=5)
    params = SearchParams(iterations=1500, seed=3)
    mover, other = s.current_player, 1 - s.current_player
    for share in (0.3, 1.0):
        shares = [0.0, 0.0]
        shares[other] = share
        assert s.search(params, opponent_shares=shares).stats == s.search(params.with_(opponent_policy=share)).stats
    own_only = [0.0, 0.0]
    own_only[mover] = 1.0  # the mover's own entry is not read
    assert s.search(params, opponent_shares=own_only).stats == s.search(params).stats


# A 2-player Yucata' endgame (random play from seed 86): seat 1 to move. Against a maximising
# opponent Q (6) ties and 1 loses; against the rollout policy, which misses the reply that wins,
# 1 wins.
OPPONENT_MODEL_POSITION = (
    "yucata players=2 layout=PPDPPPDPPDPPPDPPPDPPDPPPDPPDPPPDPP start=1 turn=22 to_move=1 pos=34,32 hands=13Q,24Q "
    "pale=8,14 dark=3,5 red=- prev=S eff=S moved=1 q=effective tiebreak=shared"
)


def policy_model_value(s: kibitz.State, root: int, share: float) -> float:
    """The root seat's return when it maximises and the other seat plays the rollout policy's
    move with probability ``share`` (its distribution sampled over seeds) and maximises its own
    return otherwise."""
    if s.is_terminal():
        return s.returns()[root]
    values = {}
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        values[a] = policy_model_value(c, root, share)
    if s.current_player == root:
        return max(values.values())
    samples = [s._s.heuristic_action(seed) for seed in range(64)]
    policy = sum(values[a] for a in samples) / len(samples)
    return share * policy + (1 - share) * min(values.values())


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_the_opponent_model_values_moves_as_a_brute_force_search_against_the_policy(share):
    s = kibitz.Game("yucata", players=2).state_from_notation(OPPONENT_MODEL_POSITION)
    root = s.current_player
    expected = {}
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        expected[a] = policy_model_value(c, root, share)
    assert sorted(expected.values()) == ([0.0, 0.5, 1.0] if share == 1 else [0.0, 0.0, 0.5] if share == 0 else [0.0, 0.5, 0.5])
    # solve_stones=0: the exact endgame solver would play the tie at once
    params = SearchParams(algorithm="uct", iterations=3000, solver=0, solve_stones=0, opponent_policy=share)
    for seed in range(4):
        result = s.search(params.with_(seed=seed))
        best = max(expected.values())
        assert expected[result.action] == best
        top = next(x for x in result.stats if x.action == result.action)
        assert top.mean_reward == pytest.approx(best, abs=0.05)


def test_opponent_policy_zero_is_the_plain_search_and_a_share_changes_it():
    s = J4FC.new_initial_state(seed=5)
    plain = s.search(SearchParams(iterations=1500, seed=3))
    assert s.search(SearchParams(iterations=1500, seed=3, opponent_policy=0.0)).stats == plain.stats
    assert s.search(SearchParams(iterations=1500, seed=3, opponent_policy=0.5)).stats != plain.stats


@pytest.mark.parametrize("shares", [[0.5], [0.5, 0.5, 0.5], [0.0, 1.5], [-0.1, 0.0], [0.0, math.nan]])
def test_opponent_shares_need_one_share_in_0_to_1_per_seat(shares):
    s = J4FC.new_initial_state(seed=5)
    before = s.notation()
    with pytest.raises(kibitz.OptionError, match="opponent_shares"):
        s.search(SearchParams(iterations=100), opponent_shares=shares)
    assert s.notation() == before


def prior_mean() -> float:
    weights = [(1 - p) ** PRIOR_POWER for p in GRID]
    return sum(p * w for p, w in zip(GRID, weights)) / sum(weights)


def test_an_unseen_seat_has_the_prior_share_and_the_own_team_none():
    model = OpponentModel(0, [0, 1, 2, 3], SearchParams(algorithm="uct", iterations=500))
    assert model.shares()[0] == 0.0
    assert model.shares()[1:] == pytest.approx([prior_mean()] * 3)
    assert 0.1 < prior_mean() < 0.25
    team = OpponentModel(0, [0, 1, 0, 1], SearchParams(iterations=500))
    assert team.shares()[2] == 0.0 and team.shares()[1] > 0


def test_in_a_team_game_only_the_other_team_is_modelled():
    game = kibitz.Game("canasta_tiles", players=4)
    bots = seat_bots(["ismcts:iterations=200,opponent_model=adaptive", "greedy", "greedy", "greedy"], 3)
    play_bots(game, bots, seed=3)
    model = bots[0].opponents
    assert isinstance(model, OpponentModel) and model.teams == [0, 1, 0, 1]
    assert model.decisions[2] == 0 and model.decisions[1] > 10 and model.decisions[3] > 10
    assert model.shares()[0] == model.shares()[2] == 0.0


def test_the_model_tells_a_policy_player_from_a_searching_one():
    # Yucata', 4 players: seat 1 plays the rollout policy, seat 2 the search the model's
    # maximiser stands for (seat 0's own search), seat 3 at random. In all but at most one of the
    # seeded games the policy player ends with a share above the prior's and above the
    # searching seat's.
    params = "uct:iterations=2000,opponent_model=adaptive"
    above = 0
    games = 6
    for seed in range(games):
        bots = seat_bots([params, "policy", "uct:iterations=2000", "random"], seed)
        play_bots(YUCATA4, bots, seed)
        model = bots[0].opponents
        assert isinstance(model, OpponentModel) and min(model.decisions[1:]) >= 5
        shares = model.shares()
        above += shares[1] > prior_mean() and shares[1] > shares[2]
    assert above >= games - 1


class Recorder:
    """A bot that plays the first legal move and records what observe_move showed it."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[tuple[object, int, str, int]] = []

    def act(self, view: kibitz.View) -> int:
        return view.state().legal_actions()[0]

    def observe_move(self, before: object, mover: int, move: str, seat: int) -> None:
        self.seen.append((before, mover, move, seat))


def test_the_runner_shows_a_bot_every_other_seats_decision_through_its_own_view():
    game = kibitz.Game("just4fun_colours", players=3)
    recorders = [Recorder() for _ in range(3)]
    record = play_bots(game, recorders, seed=4)
    decisions = []
    for state, action in positions(record):
        if state.current_player >= 0:
            seen = [(state.observation_text(s, action), state.view(s).notation()) for s in range(3)]
            decisions.append((state.current_player, seen))
    for seat, bot in enumerate(recorders):
        expected = [(mover, *seen[seat]) for mover, seen in decisions if mover != seat and seen[seat][0] != "?"]
        assert len(expected) >= 5
        assert [(mover, move, before.notation()) for before, mover, move, _ in bot.seen] == expected
        assert all(isinstance(before, kibitz.View) and before.seat == seat and s == seat for before, _, _, s in bot.seen)


def test_a_search_bot_without_the_adaptive_model_learns_nothing_and_plays_as_before():
    state = YUCATA4.new_initial_state(seed=2)
    fixed = make_bot("uct:iterations=300", seed=9)
    assert isinstance(fixed, SearchBot)
    fixed.observe_move(
        state, state.current_player, state.move_to_string(state.legal_actions()[0]), (state.current_player + 1) % 4
    )
    assert fixed.opponents is None


def test_the_policy_bot_plays_the_rollout_policy_and_checks_its_options():
    bot = make_bot("policy:policy.dark=2,seed=4")
    assert isinstance(bot, PolicyBot) and repr(bot) == "PolicyBot(seed=4, policy.dark=2.0)"
    state = YUCATA4.new_initial_state(seed=3)
    support = {state._s.heuristic_action(seed, [("dark", 2.0)]) for seed in range(200)}
    assert {bot.act(state.view(state.current_player)) for _ in range(30)} <= support
    with pytest.raises(kibitz.OptionError, match="bot 'policy' takes no options except seed"):
        make_bot("policy:iterations=3")
    with pytest.raises(kibitz.OptionError, match="a number"):
        make_bot("policy:policy.dark=x")


def engine_lines(lines: list[str]) -> tuple[Engine, list[str]]:
    out = io.StringIO()
    engine = Engine(lambda line: out.write(line + "\n"), info_period_s=60)
    for line in lines:
        engine.handle(line)
        engine.wait()
    return engine, out.getvalue().splitlines()


def test_the_engine_feeds_observe_lines_to_the_model_and_a_new_position_clears_it():
    game = kibitz.Game("just4fun_colours", players=2)
    state = game.new_initial_state(seed=1)
    while state.current_player < 0:
        state.apply(state.sample_chance(0))
    seat = 1 - state.current_player  # the engine's seat moves second
    move = state.move_to_string(state.legal_actions()[0])
    seen = state.observation_text(seat, state.parse_move(move))
    engine, out = engine_lines(
        [
            "setoption name OpponentModel value adaptive",
            "setoption name Iterations value 300",
            f"newgame just4fun_colours players 2 seat {seat}",
            f"position view {state.view(seat).notation()}",
            f"observe {seen}",
        ]
    )
    assert not [line for line in out if "error" in line]
    assert engine.bot.opponents is not None and engine.bot.opponents.decisions[1 - seat] == 1
    engine.handle(f"position view {state.view(seat).notation()}")
    assert engine.bot.opponents is None
