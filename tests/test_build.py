"""The developer loop (docs/architecture.md §7): documented, and its build current."""

from __future__ import annotations

import filecmp
import subprocess
from pathlib import Path

import pytest

import kibitz._core

ROOT = Path(__file__).resolve().parents[1]
DEV_LOOP = "pip install --no-build-isolation -Cbuild-dir=build/dev -e ."
DEV_BUILD = ROOT / "build" / "dev"


def test_the_developer_loop_is_documented():
    for doc in ("README.md", "docs/architecture.md"):
        assert DEV_LOOP in (ROOT / doc).read_text(), doc


def test_the_developer_build_is_current():
    """When the installed extension is the one in build/dev, nothing is left to rebuild: a
    failure means C++ changed since the last ``pip install … -e .``, and these tests would
    run an old extension."""
    built = sorted(DEV_BUILD.glob("_core*"))
    if not built or not filecmp.cmp(built[0], kibitz._core.__file__, shallow=False):
        pytest.skip("the installed extension is not the developer loop's build (build/dev)")
    run = subprocess.run(["cmake", "--build", str(DEV_BUILD), "--", "-n"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "no work to do" in run.stdout, f"C++ changed since the last `{DEV_LOOP}`:\n{run.stdout[-2000:]}"
