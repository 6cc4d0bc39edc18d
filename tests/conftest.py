"""Makes the shared test helpers in this folder (j4fc_reference.py, state_helpers.py) importable by the test
modules, whichever pytest import mode is used and whichever test files are named; and the fixtures
several test modules share."""

import os
import sys
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def wasm_dist() -> Path:
    """The built folder of kibitz.mjs (build/wasm/kibitz/ of this checkout), built once a run
    (incrementally: nothing is rebuilt when it is current) for every test that needs kibitz.wasm.
    Skipped without Emscripten, CMake and Node; failed when the environment variable CI is set."""
    from kibitz.web.export import build_wasm, missing_tools

    missing = missing_tools()
    if missing:
        message = f"the WebAssembly build needs {', '.join(missing)} on PATH (docs/wasm.md)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    root = Path(__file__).resolve().parents[1]
    return build_wasm(root, root / "build" / "wasm")
