"""kibitz.interop.openspiel (docs/research.md): every kibitz game passes OpenSpiel's own random
simulation test, and OpenSpiel's Python MCTS and ISMCTS bots play on the adapter. Skipped when
the openspiel extra is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import kibitz

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed: pip install 'kibitz[openspiel]'")
kibitz_openspiel = pytest.importorskip("kibitz.interop.openspiel")
mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")
ismcts = pytest.importorskip("open_spiel.python.algorithms.ismcts")

CONFIGURATIONS = [
    ("kibitz_just4fun_colours", {}),
    ("kibitz_just4fun_colours", {"players": 4, "options": "line:5"}),
    ("kibitz_yucata", {"players": 3}),
    ("kibitz_canasta_tiles", {}),
    ("kibitz_yak", {"players": 2}),
    ("kibitz_yak", {}),
    ("kibitz_biased_rps", {}),
    ("kibitz_goofspiel", {"options": "cards:5"}),
]


def test_every_kibitz_game_is_registered() -> None:
    assert set(kibitz_openspiel.GAMES) == {"kibitz_" + g.name for g in kibitz.games()}
    assert set(kibitz_openspiel.GAMES) <= set(pyspiel.registered_names())
    assert kibitz_openspiel.register() == kibitz_openspiel.GAMES  # a second call changes nothing
    assert {name for name, _ in CONFIGURATIONS} == set(kibitz_openspiel.GAMES)  # each is simulated below


@pytest.mark.parametrize(("name", "params"), CONFIGURATIONS)
def test_openspiel_random_simulation_test_passes(name: str, params: dict) -> None:
    """pyspiel.random_sim_test: legal actions sorted and unique in text, masks, clones, chance
    outcomes, observation and information-state tensors and strings for every seat, returns
    summing to the utility sum, the length bound, and serialization round trips."""
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_and_info_follow_the_metadata() -> None:
    game = pyspiel.load_game("kibitz_yak", {"players": 3})
    meta = kibitz.Game("yak", players=3).metadata
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_distinct_actions() == meta.max_actions and game.max_game_length() == meta.max_game_length
    assert game.observation_tensor_size() == meta.observation_size and game.utility_sum() == 1.0
    canasta = pyspiel.load_game("kibitz_canasta_tiles")
    assert canasta.utility_sum() == 2.0 and canasta.num_players() == 4
    assert pyspiel.load_game("kibitz_yucata").get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION


def test_a_game_without_a_length_bound_is_refused() -> None:
    with pytest.raises(Exception, match="no bound on its length"):
        pyspiel.load_game("kibitz_canasta_tiles", {"options": "winner_required:1"})
    with pytest.raises(Exception, match="key:value"):
        pyspiel.load_game("kibitz_yak", {"options": "players3"})


def dealt(name: str, deal: int = 5, **params: int | str) -> pyspiel.State:
    """A game's state just after the setup chance node took outcome ``deal``."""
    state = pyspiel.load_game(name, params).new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == params.get("deals", kibitz_openspiel.DEFAULT_DEALS)
    state.apply_action(deal)
    return state


def test_the_setup_chance_node_deals_from_the_seed() -> None:
    a, b, c = dealt("kibitz_just4fun_colours", 5), dealt("kibitz_just4fun_colours", 5), dealt("kibitz_just4fun_colours", 6)
    assert str(a) == str(b) != str(c)
    assert str(dealt("kibitz_just4fun_colours", 5, seed=1)) != str(a)


def test_resample_from_infostate_keeps_the_players_information() -> None:
    state = dealt("kibitz_just4fun_colours")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = [state.resample_from_infostate(0, sampler) for _ in range(8)]
    for sample in samples:
        assert sample.information_state_string(0) == state.information_state_string(0)
        assert np.array_equal(sample.observation_tensor(0), state.observation_tensor(0))
    assert len({str(s) for s in samples}) > 1  # the opponent's hand and the stock are drawn anew


def play(game: pyspiel.Game, bot_of_seat: dict[int, object], seed: int) -> list[float]:
    """A game with ``bot_of_seat`` at its seats and uniform random moves at the others."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        elif state.current_player() in bot_of_seat:
            action = bot_of_seat[state.current_player()].step(state)  # type: ignore[attr-defined]
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state.returns()


@pytest.mark.parametrize("name", ["kibitz_just4fun_colours", "kibitz_canasta_tiles"])
def test_openspiel_ismcts_bot_plays_on_the_adapter(name: str) -> None:
    game = pyspiel.load_game(name)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(1))
    returns = play(game, {0: bot}, seed=2)
    assert sum(returns) == pytest.approx(game.utility_sum())


def test_openspiel_mcts_bot_plays_on_the_adapter() -> None:
    game = pyspiel.load_game("kibitz_yucata")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, 2.0, 30, evaluator, random_state=np.random.RandomState(1))
    returns = play(game, {0: bot, 1: bot}, seed=3)
    assert sum(returns) == pytest.approx(1.0)


def test_side_by_side_bench_bots_play_a_match() -> None:
    """bench/side_by_side.py's bots (OpenSpiel's ISMCTS fed the seat's view, kibitz's timed
    SO-ISMCTS) play legal games through kibitz's match runner."""
    import importlib.util
    import sys
    from pathlib import Path

    from kibitz.match import run_match

    path = Path(__file__).resolve().parents[1] / "bench" / "side_by_side.py"
    spec = importlib.util.spec_from_file_location("side_by_side", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up there
    spec.loader.exec_module(bench)
    result = run_match(
        kibitz.Game(bench.GAME, players=bench.PLAYERS),
        [lambda seed: bench.TimedKibitz("ismcts:iterations=50", seed), lambda seed: bench.OpenSpielIsmcts(5, seed)],
        games=2,
        seed=3,
        processes=1,
    )
    assert result.games == 2 and sum(b.win_share for b in result.bots) == pytest.approx(2)
    assert bench.CLOCKS["openspiel-ismcts"].moves > 0 and bench.CLOCKS["kibitz-so-ismcts"].moves > 0


@pytest.mark.parametrize("name", ["kibitz_yak", "kibitz_just4fun_colours"])
def test_the_setup_chance_node_refuses_an_outcome_that_is_not_a_deal(name: str) -> None:
    """apply_action(10**7) at the setup node was accepted, dealing from a seed no outcome names."""
    state = pyspiel.load_game(name, {"players": 3}).new_initial_state()
    assert [a for a, _ in state.chance_outcomes()] == list(range(1024))
    for outcome in (10**7, 1024, -2):
        with pytest.raises(kibitz.IllegalMoveError, match=f"setup chance node: outcome {outcome} is not one of the 1024 deals 0..1023"):
            state.apply_action(outcome)
        assert state.is_chance_node() and str(state) == "setup"  # nothing dealt
    state.apply_action(1023)
    assert str(state) != "setup"


def test_apply_actions_names_the_count_it_expects() -> None:
    """apply_actions([0]) at a 3-player Yak Sunrise raised a bare IndexError: OpenSpiel passes one
    action per player, by seat."""
    state = pyspiel.load_game("kibitz_yak", {"players": 3}).new_initial_state()
    state.apply_action(0)
    while not state.is_simultaneous_node():
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0])
    before = str(state)
    for actions in ([0], [], [0, 0, 0, 0]):
        with pytest.raises(kibitz.IllegalMoveError, match=rf"apply_actions: expected 3 actions, one per player by seat \(seats 1, 2, 0 choose here\), got {len(actions)}"):
            state.apply_actions(actions)
        assert str(state) == before
    joint = [state.legal_actions(seat)[0] for seat in range(3)]
    state.apply_actions(joint)
    assert str(state) != before
