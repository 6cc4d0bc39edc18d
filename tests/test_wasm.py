"""kibitz in WebAssembly (docs/wasm.md): builds the target with emcmake (incrementally: nothing is
rebuilt when it is current), runs the Node tests of the JavaScript API (tests/js/), and checks that
kibitz.wasm answers the bench positions exactly as the native engine does. Needs Emscripten, CMake
and Node on PATH: skipped without them, failed when the environment variable CI is set."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

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


@pytest.fixture(scope="module")
def dist() -> Path:
    """The built folder of kibitz.mjs (build/wasm/kibitz/)."""
    missing = bench.missing_tools()
    if missing:
        message = f"the WebAssembly build needs {', '.join(missing)} on PATH (docs/wasm.md)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return bench.build()


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


def test_same_answers_as_native(dist: Path) -> None:
    """Every bench position, every algorithm, fixed seeds: the same moves, root statistics and
    node counts (the bench signature) from kibitz.wasm in Node as from the native engine."""
    with bench.wasm_engine(dist) as engine:
        native, wasm = bench.signatures(engine, SIGNATURE_ITERATIONS)
    assert wasm == native
