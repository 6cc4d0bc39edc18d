"""pytest-benchmark versions of the figures in bench/run.py: ``pytest bench/``."""

import pytest

import kibitz

pytest.importorskip("pytest_benchmark")


@pytest.fixture(scope="module")
def opening():
    return kibitz.Game("just4fun_colours", players=4).new_initial_state(1)


@pytest.mark.parametrize("game,players", [("just4fun_colours", 4), ("yucata", 4), ("yak", 4)])
def test_random_playouts(benchmark, game, players):
    state = kibitz.Game(game, players=players).new_initial_state(1)
    decisions = benchmark(state._s.random_playouts, 1000, 7)
    assert decisions > 0


def test_yucata_uct_10k(benchmark):
    state = kibitz.Game("yucata", players=2).new_initial_state(1)
    result = benchmark(state.search, kibitz.SearchParams(algorithm="uct", iterations=10_000, solve_stones=0, seed=1))
    assert result.iterations == 10_000


@pytest.mark.parametrize("algorithm", ["so_ismcts", "mo_ismcts", "pimc", "uct"])
def test_search_10k(benchmark, opening, algorithm):
    params = kibitz.SearchParams(algorithm=algorithm, iterations=10_000, seed=1)
    result = benchmark(opening.search, params)
    assert result.iterations == 10_000


def test_ismcts_2threads(benchmark, opening):
    params = kibitz.SearchParams(iterations=20_000, threads=2, seed=1)
    result = benchmark(opening.search, params)
    assert result.iterations == 20_000
