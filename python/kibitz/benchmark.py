"""Speed figures and the deterministic bench signature.

``figures()`` measures throughput (noisy: compare ratios taken in one run, not absolute
numbers across runs). ``signature()`` searches a fixed set of positions with fixed seeds
and iteration budgets and sums the tree nodes created, like Stockfish's ``bench``: any
change to search behaviour or move generation changes it, a pure speed-up does not.
"""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

import numpy as np

from kibitz import _core
from kibitz.game import Game, State
from kibitz.params import SearchParams

GAME = "just4fun_colours"
YUCATA = "yucata"
CANASTA = "canasta_tiles"
YAK = "yak"


def _opening(players: int = 4, seed: int = 1) -> State:
    return Game(GAME, players=players).new_initial_state(seed)


def _rate(count: float, seconds: float) -> float:
    return round(count / seconds, 1) if seconds > 0 else float("inf")


def random_playouts_per_s(state: State, playouts: int) -> float:
    start = time.perf_counter()
    state._s.random_playouts(playouts, 12345)
    return _rate(playouts, time.perf_counter() - start)


def heuristic_playouts_per_s(state: State, playouts: int) -> float:
    """Playouts to the end with the game's heuristic rollout policy (epsilon 0), one thread."""
    start = time.perf_counter()
    state._s.heuristic_playouts(playouts, 12345)
    return _rate(playouts, time.perf_counter() - start)


def observation_tensors_per_s(state: State, calls: int) -> float:
    """Observation tensors written from Python into one preallocated array (a training loop's
    way, docs/research.md), every seat in turn: the binding's cost and the game's writer."""
    out = np.empty(state.observation_tensor(0).shape, dtype=np.float32)
    seats = state.num_players
    start = time.perf_counter()
    for i in range(calls):
        state.observation_tensor_into(i % seats, out)
    return _rate(calls, time.perf_counter() - start)


def search_iterations_per_s(state: State, params: SearchParams) -> float:
    """Search speed; at a simultaneous node, of the first choosing seat's choice."""
    result = state.search(params, seat=_searched_seat(state))
    return _rate(result.iterations, result.seconds)


def _searched_seat(state: State) -> int | None:
    return state.choosing_seats()[0] if state.is_simultaneous() else None


def figures(scale: float = 1.0, repeats: int = 3) -> dict[str, Any]:
    """Named throughput figures at the opening of 4-player Just 4 Fun Colours; of Yucata'
    (random playouts with 4 players; UCT, the perfect-information search, with 2 players);
    and of a tile Canasta round (``canasta_tiles.*``, a tenth of the workload: a playout there
    is a whole round of about 130 decisions and 60 draws); and of 4-player Yak from its first
    Sunrise (``yak.*``, a fifth: a uniformly random game has some 360 decisions, Sunrise
    choices counted one per player; ``yak.ismcts_iterations_per_s`` searches the first
    choosing seat's card with SO-ISMCTS). ``*.observation_tensors_per_s``: observation tensors
    written into one array from Python, every seat in turn.

    ``scale`` multiplies every workload (use < 1 for a quick look). Each figure is the best
    of ``repeats`` runs, the measurements taken round-robin so that a burst of load on a
    shared machine hits every figure alike; the 2-thread speed-up is the ratio of the bests.
    """
    state = _opening()
    n = max(1, int(100_000 * scale))
    ismcts = SearchParams(algorithm="so_ismcts", iterations=n, seed=1)
    yucata4 = Game(YUCATA, players=4).new_initial_state(1)
    yucata2 = Game(YUCATA, players=2).new_initial_state(1)
    uct = SearchParams(algorithm="uct", iterations=2 * n, seed=1, solve_stones=0)
    canasta = Game(CANASTA).new_initial_state(1)
    m = max(1, n // 10)
    canasta_ismcts = SearchParams(algorithm="so_ismcts", iterations=m, seed=1)
    yak = Game(YAK, players=4).new_initial_state(1)
    k = max(1, n // 5)
    measurements: dict[str, Any] = {
        f"{GAME}.random_playouts_per_s": lambda: random_playouts_per_s(state, 2 * n),
        f"{GAME}.ismcts_iterations_per_s": lambda: search_iterations_per_s(state, ismcts),
        f"{GAME}.ismcts_iterations_per_s_2threads": lambda: search_iterations_per_s(state, ismcts.with_(threads=2, iterations=2 * n)),
        f"{GAME}.ismcts_random_rollout_iterations_per_s": lambda: search_iterations_per_s(state, ismcts.with_(rollout="random")),
        f"{GAME}.mo_ismcts_iterations_per_s": lambda: search_iterations_per_s(state, ismcts.with_(algorithm="mo_ismcts")),
        f"{GAME}.pimc_iterations_per_s": lambda: search_iterations_per_s(state, ismcts.with_(algorithm="pimc")),
        f"{GAME}.uct_iterations_per_s": lambda: search_iterations_per_s(state, ismcts.with_(algorithm="uct")),
        f"{YUCATA}.random_playouts_per_s": lambda: random_playouts_per_s(yucata4, 5 * n),
        f"{YUCATA}.mcts_iterations_per_s": lambda: search_iterations_per_s(yucata2, uct),
        f"{CANASTA}.random_round_playouts_per_s": lambda: heuristic_playouts_per_s(canasta, m),
        f"{CANASTA}.uniform_random_playouts_per_s": lambda: random_playouts_per_s(canasta, 2 * m),
        f"{CANASTA}.ismcts_iterations_per_s": lambda: search_iterations_per_s(canasta, canasta_ismcts),
        f"{YAK}.random_playouts_per_s": lambda: random_playouts_per_s(yak, k),
        f"{YAK}.heuristic_playouts_per_s": lambda: heuristic_playouts_per_s(yak, k),
        f"{GAME}.observation_tensors_per_s": lambda: observation_tensors_per_s(state, n),
        f"{YAK}.observation_tensors_per_s": lambda: observation_tensors_per_s(yak, k),
        f"{YAK}.ismcts_iterations_per_s": lambda: search_iterations_per_s(yak, ismcts.with_(iterations=k)),
    }
    best: dict[str, Any] = {name: 0.0 for name in measurements}
    for _ in range(repeats):
        for name, measure in measurements.items():
            best[name] = max(best[name], measure())
    one, two = best[f"{GAME}.ismcts_iterations_per_s"], best[f"{GAME}.ismcts_iterations_per_s_2threads"]
    best[f"{GAME}.ismcts_2thread_speedup"] = round(two / one, 3)
    best["search.tree_bytes_per_node"] = _core.TREE_BYTES_PER_NODE
    return best


def bench_positions() -> list[State]:
    """Fixed positions: openings for 2, 3 and 4 players and middle games reached by seeded
    random play, of Just 4 Fun Colours, then of Yucata' (2-player positions keep more stones
    than the default solve_stones, so that every algorithm searches them), then of Yak: a
    first Sunrise (a simultaneous node: the first choosing seat's choice is searched) and a
    Noon decision of a later round."""
    positions = []
    for players in (2, 3, 4):
        for plies in (0, 30, 60):
            state = _opening(players, seed=players * 100 + plies)
            rng = random.Random(players * 1000 + plies)
            while plies > 0 and not state.is_terminal():
                if state.is_chance():
                    state.apply(state.sample_chance(rng.getrandbits(63)))
                else:
                    state.apply(rng.choice(state.legal_actions()))
                    plies -= 1
            if not state.is_terminal():
                while state.is_chance():
                    state.apply(state.sample_chance(rng.getrandbits(63)))
                positions.append(state)
    for players, plies in ((2, 0), (3, 12), (4, 24)):
        state = Game(YUCATA, players=players).new_initial_state(players * 100 + plies)
        rng = random.Random(players * 1000 + plies)
        for _ in range(plies):
            state.apply(rng.choice(state.legal_actions()))
        positions.append(state)
    for players, rounds in ((4, 0), (3, 2)):
        state = Game(YAK, players=players).new_initial_state(players * 100 + rounds)
        rng = random.Random(players * 1000 + rounds)
        while rounds > 0 or not state.is_simultaneous() and state.current_player < 0:
            if state.is_simultaneous():
                state.apply_joint({seat: rng.choice(state.legal_actions_for(seat)) for seat in state.choosing_seats()})
                rounds -= 1
            elif state.is_chance():
                state.apply(state.sample_chance(rng.getrandbits(63)))
            else:
                state.apply(rng.choice(state.legal_actions()))
        positions.append(state)
    return positions


SIGNATURE_ALGORITHMS = ("uct", "pimc", "so_ismcts", "mo_ismcts")


def signature_searches(iterations: int = 10000) -> list[tuple[str, State, SearchParams, int | None]]:
    """The searches the signature sums, as (label, position, params, seat): every bench position
    with every algorithm, each with its own fixed seed."""
    searches = []
    for index, state in enumerate(bench_positions()):
        for algorithm in SIGNATURE_ALGORITHMS:
            params = SearchParams(algorithm=algorithm, iterations=iterations, seed=index, determinizations=8)
            searches.append((f"{index}:{algorithm}", state, params, _searched_seat(state)))
    return searches


def signature_of(results: list[tuple[str, int, int, list[tuple[int, int]]]]) -> tuple[int, str]:
    """(total nodes, digest of every root's statistics) of the searches' results, each as
    (label, nodes, chosen action id, [(action id, visits), ...] most visited first)."""
    digest = hashlib.sha256()
    for label, _, action, stats in results:
        digest.update(f"{label}:{action}:".encode())
        digest.update(",".join(f"{a}/{visits}" for a, visits in stats).encode())
    return sum(nodes for _, nodes, _, _ in results), digest.hexdigest()[:16]


def signature(iterations: int = 10000) -> tuple[int, str, float]:
    """(total nodes, digest of every root's statistics, seconds) over the bench positions
    and every algorithm."""
    results = []
    start = time.perf_counter()
    for label, state, params, seat in signature_searches(iterations):
        result = state.search(params, seat=seat)
        results.append((label, result.nodes, result.action, [(s.action, s.visits) for s in result.stats]))
    return (*signature_of(results), time.perf_counter() - start)


def bench_command(args: Any) -> int:
    """``kibitz bench``: prints the signature (and the speed of producing it)."""
    nodes, digest, seconds = signature(getattr(args, "iterations", 10000) or 10000)
    print(f"positions: {len(bench_positions())}  algorithms: {' '.join(SIGNATURE_ALGORITHMS)}")
    print(f"time: {seconds:.2f} s")
    print(f"nodes: {nodes}")
    print(f"signature: {nodes}-{digest}")
    return 0
