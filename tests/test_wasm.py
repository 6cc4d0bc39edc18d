"""kibitz in WebAssembly (docs/wasm.md): builds the target with emcmake (incrementally: nothing is
rebuilt when it is current), runs the Node tests of the JavaScript API (tests/js/), and checks that
kibitz.wasm answers the bench positions (and Just 4 Fun Colours searches with fractional policy
weights) exactly as the native engine does. Needs Emscripten, CMake
and Node on PATH: skipped without them, failed when the environment variable CI is set (the build is
the session fixture ``wasm_dist`` of tests/conftest.py, shared with tests/test_web_static.py)."""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import kibitz
from state_helpers import random_step
from test_rollout_policies import WEIGHTS

ROOT = Path(__file__).resolve().parents[1]
SIGNATURE_ITERATIONS = 1000  # kibitz bench's is 10,000 (bench/wasm.py); a tenth keeps the test short


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_wasm", ROOT / "bench" / "wasm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()


@pytest.fixture
def dist(wasm_dist: Path) -> Path:
    """The built folder of kibitz.mjs (tests/conftest.py builds it once a run)."""
    return wasm_dist


def test_javascript_api(dist: Path) -> None:
    """node --test tests/js/: every function of the JavaScript API and every error, the worker, kibitz.d.ts."""
    run = subprocess.run(
        ["node", "--test", str(ROOT / "tests" / "js")],
        env={**os.environ, "KIBITZ_WASM_DIR": str(dist)},
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-10000:] + run.stderr[-4000:]
    assert "# fail 0" in run.stdout


FRACTIONAL_POLICY = WEIGHTS["just4fun_colours"][4]  # the recorded fractional weights: their sums round


def fractional_policy_positions() -> list[kibitz.State]:
    """Up to 8 positions for each of 2, 3 and 4 players: seeded uniformly random play from the
    opening (a game that ends on the way gives none)."""
    positions = []
    for players in (2, 3, 4):
        for seed in range(8):
            state = kibitz.Game("just4fun_colours", players=players).new_initial_state(900 + seed)
            rng = random.Random(seed)
            decisions = rng.randrange(30)
            while not state.is_terminal() and (decisions > 0 or state.is_chance()):
                decisions -= 0 if state.is_chance() else 1
                random_step(rng, state)
            if not state.is_terminal():
                positions.append(state)
    return positions


def test_same_answers_as_native_with_fractional_policy_weights(dist: Path) -> None:
    """Just 4 Fun Colours' rollout policy with fractional weights searches alike in kibitz.wasm
    (the portable line sums; WebAssembly has no fused multiply-add) and natively (byte lanes where
    the CPU has AVX-512; CMakeLists.txt turns off contraction into fused multiply-adds for the
    game's file; with contraction this test failed): SO-ISMCTS, fixed seeds."""
    positions = fractional_policy_positions()
    assert len(positions) >= 20
    with bench.wasm_engine(dist) as engine:
        for index, state in enumerate(positions):
            params = kibitz.SearchParams(algorithm="so_ismcts", iterations=10_000, seed=index, policy=FRACTIONAL_POLICY)
            native = state.search(params)
            wasm = engine.search(state, params)
            assert (wasm["nodes"], wasm["action"], [tuple(s) for s in wasm["stats"]]) == (
                native.nodes,
                native.action,
                [(s.action, s.visits) for s in native.stats],
            ), f"position {index}"


def test_same_answers_as_native(dist: Path) -> None:
    """Every bench position, every algorithm, fixed seeds: the same moves, root statistics and
    node counts (the bench signature) from kibitz.wasm in Node as from the native engine."""
    with bench.wasm_engine(dist) as engine:
        native, wasm = bench.signatures(engine, SIGNATURE_ITERATIONS)
    assert wasm == native
