"""Search enhancements of issue 10: MAST rollouts, Progressive History, progressive bias from the
rollout policy, the opponent model, paranoid backups and best-reply search.

Each test checks a mode against its definition on a small position: the MAST table after a
known number of simulated games, the Progressive History term deciding one selection, a
heavy progressive bias selecting the policy's move, the opponent model's move values against a
brute-force search that models the opponent the same way, and paranoid proofs against a
brute-force paranoid search of a Yucata' endgame, and best-reply search against paranoid where
one opponent moves at a time and in that endgame.
"""

from __future__ import annotations

import pytest

import kibitz
from kibitz import SearchParams

J4FC = kibitz.Game("just4fun_colours", players=2)
J4FC4 = kibitz.Game("just4fun_colours", players=4)

# A 4-player Yucata' endgame (random play from seed 7 of a random layout): seat 3 to move. With
# every other seat playing against it (paranoid), S shares a win and 1, 2 and 3 lose; max^n
# search plays 3 there.
PARANOID_POSITION = (
    "yucata players=4 layout=PDPPPPPPPDPPPDPDPPPDDPPPDPPDPDPPPP start=2 turn=37 to_move=3 pos=30,36,33,32 "
    "hands=135SQ,12345,25SQ,1234S pale=6,5,4,8 dark=1,4,2,2 red=- prev=4 eff=4 moved=4 q=effective tiebreak=shared"
)


def paranoid_value(s: kibitz.State, root: int) -> float:
    """The root seat's return when it maximises it and every other seat minimises it."""
    if s.is_terminal():
        return s.returns()[root]
    values = []
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        values.append(paranoid_value(c, root))
    return max(values) if s.current_player == root else min(values)


def by_seat(result: kibitz.SearchResult) -> dict[int, set[float]]:
    means: dict[int, set[float]] = {}
    for h in result.history:
        means.setdefault(h.seat, set()).add(h.mean_reward)
    return means


# -- MAST --------------------------------------------------------------------------------------


def test_without_mast_or_progressive_history_no_table_is_kept():
    s = J4FC.new_initial_state(seed=3)
    assert s.search(SearchParams(iterations=300, seed=1)).history == []


@pytest.mark.parametrize("seed", range(4))
def test_after_one_simulated_game_every_entry_holds_its_seats_reward(seed):
    # one iteration: every move of the simulated game (tree and rollout) counted once, each with
    # the reward its seat backed up; in 4-player max^n that is one seat's win (or a shared one)
    s = J4FC4.new_initial_state(seed=seed)
    result = s.search(SearchParams(algorithm="uct", iterations=1, seed=seed, mast=1.0, solver=0))
    means = by_seat(result)
    assert set(means) == {0, 1, 2, 3} and all(len(v) == 1 for v in means.values())
    rewards = [means[p].pop() for p in range(4)]
    assert sum(rewards) == pytest.approx(1.0) and max(rewards) > 0
    assert all(h.count >= 1 for h in result.history)


@pytest.mark.parametrize("seed", range(4))
def test_paranoid_entries_of_the_opponents_hold_one_minus_the_searching_seats_reward(seed):
    s = J4FC4.new_initial_state(seed=seed)
    root = s.current_player
    result = s.search(SearchParams(algorithm="uct", iterations=1, seed=seed, mast=1.0, solver=0, backup="paranoid"))
    means = {p: v.pop() for p, v in by_seat(result).items()}
    assert all(means[p] == pytest.approx(1 - means[root]) for p in means if p != root)


def test_the_mast_table_counts_every_decision_of_every_simulated_game():
    # the two seats alternate, so in each simulated game their decisions differ by at most one
    s = J4FC.new_initial_state(seed=5)
    for iterations in (1, 200):
        history = s.search(SearchParams(algorithm="uct", iterations=iterations, seed=2, mast=0.5, solver=0)).history
        counts = [sum(h.count for h in history if h.seat == p) for p in (0, 1)]
        assert min(counts) >= iterations and abs(counts[0] - counts[1]) <= iterations
        assert all(0.0 <= h.mean_reward <= 1.0 for h in history)


def test_two_threads_sum_their_tables():
    s = J4FC.new_initial_state(seed=5)
    params = SearchParams(iterations=400, seed=2, mast=0.5)
    single = sum(h.count for h in s.search(params.with_(threads=1)).history)
    double = s.search(params.with_(threads=2))
    assert double.iterations == 400
    assert sum(h.count for h in double.history) == pytest.approx(single, rel=0.2)


def test_mast_changes_the_rollouts_and_mast_zero_is_the_plain_search():
    s = J4FC.new_initial_state(seed=5)
    plain = s.search(SearchParams(iterations=1000, seed=3))
    assert s.search(SearchParams(iterations=1000, seed=3, mast=0.0, mast_epsilon=0.9)).stats == plain.stats
    assert s.search(SearchParams(iterations=1000, seed=3, mast=0.5)).stats != plain.stats


def test_greedy_mast_rollouts_repeat_the_best_move():
    # mast=1, mast_epsilon=0: after every move has been tried, each rollout decision is the
    # mover's best by the table, so the most played entries are few: the table's counts are far
    # more concentrated than with uniform MAST moves (mast_epsilon=1)
    s = J4FC.new_initial_state(seed=6)

    def top_share(epsilon: float) -> float:
        history = s.search(SearchParams(algorithm="uct", iterations=400, seed=4, mast=1.0, mast_epsilon=epsilon, solver=0)).history
        counts = sorted((h.count for h in history if h.seat == 0), reverse=True)
        return sum(counts[:3]) / sum(counts)

    assert top_share(0.0) > top_share(1.0) + 0.1


# -- Progressive History -----------------------------------------------------------------------


@pytest.mark.parametrize("weight", [1e-9, 0.5, 3.0, 50.0])
def test_progressive_history_decides_the_selection_as_its_formula_says(weight):
    # With c = 0, after one iteration per root move (each expanded once), the next iteration
    # selects the root child with the best mean + W * history / (visits * (1 - mean) + 1),
    # the first in legal order on a tie; the first iterations do not depend on W. (A tiny W
    # only breaks the ties of the means.)
    s = J4FC.new_initial_state(seed=8)
    for _ in range(3):
        s.apply(s.legal_actions()[-1])
        while s.is_chance():
            s.apply(s.chance_outcomes()[0][0])
    legal = s.legal_actions()
    n = len(legal)
    params = SearchParams(algorithm="uct", c=0.0, seed=9, solver=0, progressive_history=weight)
    before = s.search(params.with_(iterations=n))
    assert len(before.stats) == n and all(x.visits == 1 for x in before.stats)
    mean = {x.action: x.mean_reward for x in before.stats}
    history = {h.action: h.mean_reward for h in before.history if h.seat == s.current_player}
    score = {a: mean[a] + weight * history[a] / (1 - mean[a] + 1) for a in legal}
    best = max(score.values())
    expected = next(a for a in legal if score[a] == best)
    after = s.search(params.with_(iterations=n + 1))
    assert [x.action for x in after.stats if x.visits == 2] == [expected]


@pytest.mark.parametrize("enhancement", [{"progressive_history": 3.0}, {"progressive_bias": 1.0}])
def test_progressive_history_and_bias_change_the_search(enhancement):
    s = J4FC.new_initial_state(seed=5)
    plain = s.search(SearchParams(iterations=1000, seed=3))
    assert s.search(SearchParams(iterations=1000, seed=3, **enhancement)).stats != plain.stats


# -- progressive bias --------------------------------------------------------------------------


def test_a_heavy_progressive_bias_selects_a_move_of_the_rollout_policy():
    # c = 0: after one iteration per root move, the next selection is decided by W / 2 for the
    # move the rollout policy plays in that iteration (W = 100 outweighs any mean)
    s = J4FC.new_initial_state(seed=8)
    legal = s.legal_actions()
    support = {s._s.heuristic_action(seed) for seed in range(3000)}
    assert len(support) < len(legal) / 2
    chosen = set()
    for seed in range(12):
        params = SearchParams(algorithm="uct", c=0.0, seed=seed, solver=0, progressive_bias=100.0)
        stats = s.search(params.with_(iterations=len(legal) + 1)).stats
        chosen |= {x.action for x in stats if x.visits == 2}
    assert chosen and chosen <= support


# -- the opponent model (opponent_policy) ------------------------------------------------------

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


# -- paranoid backups --------------------------------------------------------------------------


def test_with_two_players_paranoid_is_max_n():
    # the two seats' rewards sum to 1, so the opponent's own reward is one minus the searcher's
    s = J4FC.new_initial_state(seed=5)
    for algorithm in ("so_ismcts", "uct"):
        maxn = s.search(SearchParams(algorithm=algorithm, iterations=1500, seed=3))
        assert s.search(SearchParams(algorithm=algorithm, iterations=1500, seed=3, backup="paranoid")).stats == maxn.stats


def test_paranoid_proofs_and_choice_agree_with_a_brute_force_paranoid_search():
    s = kibitz.Game("yucata", players=4, layout="random").state_from_notation(PARANOID_POSITION)
    root = s.current_player
    values = {}
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        values[a] = paranoid_value(c, root)
    assert sorted(values.values()) == [0.0, 0.0, 0.0, 0.5]
    best = max(values, key=values.__getitem__)
    for seed in range(3):
        result = s.search(SearchParams(algorithm="uct", iterations=3000, seed=seed, backup="paranoid"))
        assert result.action == best
        for x in result.stats:
            assert x.proof in (None, "win" if values[x.action] == 1 else "loss" if values[x.action] == 0 else None)
        assert sum(x.proof == "loss" for x in result.stats) == 3
        # max^n proves no loss here: the other seats do not all play against seat 3
        maxn = s.search(SearchParams(algorithm="uct", iterations=3000, seed=seed))
        assert all(x.proof is None for x in maxn.stats)


# -- best-reply search ---------------------------------------------------------------------------


def test_where_one_opponent_moves_between_the_searching_teams_turns_best_reply_is_paranoid():
    # two players, and tile Canasta's two teams (partners sit apart): each run of opponents'
    # turns is one seat, which then replies with no node of its own
    s = J4FC.new_initial_state(seed=5)
    for algorithm in ("so_ismcts", "uct"):
        paranoid = s.search(SearchParams(algorithm=algorithm, iterations=1500, seed=3, backup="paranoid"))
        assert s.search(SearchParams(algorithm=algorithm, iterations=1500, seed=3, backup="best_reply")).stats == paranoid.stats
    c = kibitz.Game("canasta_tiles", players=4).new_initial_state(seed=2)
    paranoid = c.search(SearchParams(iterations=800, seed=4, backup="paranoid"))
    assert c.search(SearchParams(iterations=800, seed=4, backup="best_reply")).stats == paranoid.stats


def test_best_reply_proves_nothing_below_a_replier_and_finds_the_replies_that_beat_the_searcher():
    """In the paranoid endgame the coalition beats moves 0, 1 and 2 (paranoid proves them lost)
    and max^n plays 2. Under best reply one opponent at a time is enough to make those three
    score low, so the search plays 5 as paranoid does; but a replier node's states also differ
    by the policy moves of the seats that did not reply, so it is never proven and no loss
    reaches the root."""
    s = kibitz.Game("yucata", players=4, layout="random").state_from_notation(PARANOID_POSITION)
    for seed in range(3):
        result = s.search(SearchParams(algorithm="uct", iterations=3000, seed=seed, backup="best_reply"))
        assert result.action == 5
        assert all(x.proof is None for x in result.stats)
        means = {x.action: x.mean_reward for x in result.stats}
        assert means[5] > 0.5 and max(means[a] for a in (0, 1, 2)) < 0.3, means


def test_best_reply_needs_a_single_tree():
    s = J4FC4.new_initial_state(seed=1)
    with pytest.raises(kibitz.OptionError, match="best_reply.*mo_ismcts"):
        s.search(SearchParams(algorithm="mo_ismcts", iterations=100, backup="best_reply"))


def test_new_parameters_reach_the_core_and_are_checked():
    core = SearchParams(backup="paranoid", mast=0.3, mast_epsilon=0.2, progressive_history=4.0, progressive_bias=2.0).to_core()
    assert core.backup == "paranoid"
    assert (core.mast, core.mast_epsilon, core.progressive_history, core.progressive_bias) == (0.3, 0.2, 4.0, 2.0)
    assert SearchParams(backup="best_reply").to_core().backup == "best_reply"
    bad_values = (dict(backup="brs"), dict(mast=1.5), dict(mast_epsilon=-0.1), dict(progressive_history=101.0), dict(progressive_bias=-1.0))
    for bad in bad_values:
        with pytest.raises(kibitz.OptionError, match=next(iter(bad))):
            SearchParams(**bad)
    assert kibitz.make_bot("ismcts:mast=0.5,progressive_history=2,backup=paranoid").params.mast == 0.5
