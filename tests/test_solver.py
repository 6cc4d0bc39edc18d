"""The exact solver (csrc/search/solver.h) and its use by the search (SearchParams.solve_stones).

The solver's values are checked against plain minimax written here: no pruning, no table, over
the public State API, and over the independent Yucata' model of yucata_reference.py. Values are
the seat-to-move's game-theoretic returns: 1 win, 0.5 tie, 0 loss.
"""

from __future__ import annotations

import functools
import random

import pytest

import kibitz
from kibitz import SearchParams
from yucata_reference import GAME, Model


def minimax(s, seat: int) -> float:
    """The value for `seat` with both players playing perfectly: every line to the end."""
    if s.is_terminal():
        return s.returns()[seat]
    values = []
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)
        values.append(minimax(c, seat))
    return max(values) if s.current_player == seat else min(values)


def stones_left(s: kibitz.State) -> int:
    lead = max(int(x) for x in s.notation().split("pos=")[1].split()[0].split(","))
    return 39 - max(lead, 4)


def endgames(options: dict, seeds: range, max_stones: int, max_leaves: int | None = None):
    """Decision states of seeded random 2-player games with few stones left (and, if given, at
    most `max_leaves` complete lines of play)."""
    game = kibitz.Game(GAME, players=2, **options)
    for seed in seeds:
        rng = random.Random(seed)
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal():
            if stones_left(s) <= max_stones and (max_leaves is None or s.perft(200) <= max_leaves):
                yield s.clone()
            s.apply(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("options", [{}, {"q": "distance"}, {"layout": "random", "tiebreak": "dark"}])
def test_solver_agrees_with_plain_minimax(options):
    checked = set()
    values = set()
    for s in endgames(options, range(40), max_stones=8, max_leaves=3000):
        if s.notation() in checked:
            continue
        checked.add(s.notation())
        seat = s.current_player
        expected = minimax(s, seat)
        result = s.solve()
        assert result.values[seat] == expected, s.notation()
        assert result.values[1 - seat] == 1 - expected
        # the move it names achieves the value
        c = s.clone()
        c.apply(result.action)
        assert minimax(c, seat) == expected, (s.notation(), result.move)
        assert result.nodes >= 1
        values.add(expected)
    assert len(checked) >= 100
    # wins, losses and (unless broken by dark stones) ties all occur
    assert values == ({0.0, 1.0} if options.get("tiebreak") == "dark" else {0.0, 0.5, 1.0})


def test_solver_agrees_with_minimax_of_the_reference_model():
    @functools.cache
    def value(text: str, seat: int) -> float:  # a cache of exact values, not pruning
        m = Model.parse(text)
        if m.is_terminal():
            return m.returns()[seat]
        children = []
        for a in m.legal_actions():
            c = m.clone()
            c.apply(a)
            children.append(value(c.notation(), seat))
        return max(children) if m.to_move == seat else min(children)

    checked = 0
    for s in endgames({}, range(100, 130), max_stones=10, max_leaves=5000):
        if checked >= 40:
            break
        assert s.solve().values[s.current_player] == value(s.notation(), s.current_player), s.notation()
        checked += 1
    assert checked == 40


def test_values_are_consistent_one_ply_down():
    """value(s) = max over moves of (1 - value(child)) for the mover, on larger endgames."""
    game = kibitz.Game(GAME, players=2)
    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal():
            if 10 <= stones_left(s) <= 20:
                seat = s.current_player
                children = []
                for a in s.legal_actions():
                    c = s.clone()
                    c.apply(a)
                    children.append(c.returns()[seat] if c.is_terminal() else c.solve().values[seat])
                result = s.solve()
                assert result.values[seat] == max(children)
                assert children[s.legal_actions().index(result.action)] == max(children)
                checked += 1
            s.apply(rng.choice(s.legal_actions()))
    assert checked >= 20


def test_a_solved_win_is_won_against_any_play():
    """From positions the solver calls won, the solver's moves win against random replies."""
    game = kibitz.Game(GAME, players=2)
    wins = 0
    for seed in range(30):
        rng = random.Random(seed)
        s = game.new_initial_state(seed=seed)
        while stones_left(s) > 18 and not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        seat = s.current_player
        if s.solve().values[seat] != 1.0:
            continue
        while not s.is_terminal():
            s.apply(s.solve().action if s.current_player == seat else rng.choice(s.legal_actions()))
        assert s.returns()[seat] == 1.0
        wins += 1
    assert wins >= 5


def test_the_search_plays_the_solvers_move_below_the_threshold():
    found = lost = 0
    for s in endgames({}, range(30), max_stones=26):
        if stones_left(s) < 14 or found >= 10:
            continue
        solved = s.solve()
        if len(s.legal_actions()) == 1:
            continue  # a forced move is answered without solving or searching
        if solved.values[s.current_player] == 0.0:  # lost: every move loses, so the search decides
            # (the MCTS-Solver may prove the loss before the budget ends; without it the whole budget runs)
            assert 0 < s.search(SearchParams(algorithm="uct", iterations=300, seed=1, solve_stones=26)).iterations <= 300
            assert s.search(SearchParams(algorithm="uct", iterations=300, seed=1, solve_stones=26, solver=0)).iterations == 300
            lost += 1
            continue
        for algorithm in ("uct", "so_ismcts"):
            result = s.search(SearchParams(algorithm=algorithm, iterations=3000, seed=found, solve_stones=26))
            assert result.action == solved.action and result.move == solved.move
            assert result.iterations == 0 and result.root_value == solved.values[s.current_player]
            assert [(st.action, st.mean_reward) for st in result.stats] == [(solved.action, solved.values[s.current_player])]
        bot = kibitz.make_bot("uct:iterations=3000,solve_stones=26", seed=found)
        assert s.parse_move(bot.act(s)) == solved.action
        # below a lower threshold, or with the solver off, the search searches
        for threshold in (0, stones_left(s) - 1):
            assert s.search(SearchParams(algorithm="uct", iterations=300, seed=1, solve_stones=threshold, solver=0)).iterations == 300
        found += 1
    assert found == 10 and lost > 0


SOLVE_NODES_QUICK = 1_000_000  # at 26 stones left the solves seen take 6,000-95,000 positions, a few ms


def test_the_default_threshold_solves_quickly_in_the_search():
    assert SearchParams().solve_stones == 26
    game = kibitz.Game(GAME, players=2)
    solved = 0
    for seed in range(10):
        rng = random.Random(seed)
        s = game.new_initial_state(seed=seed)
        while stones_left(s) > 26:
            s.apply(rng.choice(s.legal_actions()))
        result = s.search(SearchParams(algorithm="uct", iterations=100_000, seed=1))
        if result.iterations == 0:  # solved: quickly, in positions searched (not seconds: no wall clock in tests)
            assert result.nodes < SOLVE_NODES_QUICK
            solved += 1
    assert solved > 0


def test_solver_refuses_what_it_cannot_solve():
    with pytest.raises(ValueError, match="2 players"):
        kibitz.Game(GAME, players=3).new_initial_state(seed=1).solve()
    with pytest.raises(ValueError, match="no exact solver"):
        kibitz.Game("just4fun_colours", players=2).new_initial_state(seed=1).solve()
    s = kibitz.Game(GAME, players=2).new_initial_state(seed=1)
    rng = random.Random(1)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    with pytest.raises(kibitz.IllegalMoveError, match="seat to move"):
        s.solve()
    with pytest.raises(kibitz.OptionError, match="solve_stones"):
        SearchParams(solve_stones=-1)


def test_three_players_and_other_games_ignore_the_threshold():
    s = kibitz.Game(GAME, players=3).new_initial_state(seed=1)
    assert s.search(SearchParams(algorithm="uct", iterations=200, solve_stones=35)).iterations == 200
    j = kibitz.Game("just4fun_colours", players=2).new_initial_state(seed=1)
    assert j.search(SearchParams(iterations=200, solve_stones=35)).iterations == 200
