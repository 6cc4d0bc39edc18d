"""kibitz in WebAssembly against the native engine, in one run (issue 43; docs/wasm.md):

1. the same answers: the ``kibitz bench`` signature (every bench position, every algorithm,
   fixed seeds and iteration budgets) from the native engine and from kibitz.wasm in Node;
2. speed: iterations per second of each game's ``strong`` preset search from its opening (at
   Yak's first Sunrise, the first choosing seat's card), native and WebAssembly, one thread
   each, measured in turn (best of ``--repeats``) so that load on the machine hits both alike;
3. size: kibitz.wasm, raw and gzipped.

    python bench/wasm.py                       # the figures of docs/wasm.md
    python bench/wasm.py --iterations 1000 --scale 0.1 --repeats 1   # a quick look

Builds the WebAssembly target first when needed (``emcmake cmake``; Emscripten and Node on PATH).
tests/test_wasm.py uses the helpers here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kibitz
from kibitz.benchmark import signature_of, signature_searches
from kibitz.bots import ALGORITHM_NAMES, parameter_set

ROOT = Path(__file__).resolve().parents[1]
BUILD_DIR = ROOT / "build" / "wasm"
RUNNER = Path(__file__).resolve().parent / "wasm_runner.mjs"
DEBIAN_NODE_MODULES = Path("/usr/share/nodejs")  # where Debian's emscripten finds acorn
GAMES = {"just4fun_colours": 4, "yucata": 2, "canasta_tiles": 4, "yak": 4}  # the default player counts
PRESET = "strong"


def missing_tools() -> list[str]:
    """The tools the WebAssembly build and its tests need that are not on PATH."""
    return [tool for tool in ("emcc", "emcmake", "node", "cmake") if shutil.which(tool) is None]


def tool_env() -> dict[str, str]:
    """The environment for Emscripten: Debian's emscripten runs its JavaScript optimiser with
    whatever node is on PATH, which finds Debian's node packages (acorn) only on NODE_PATH."""
    env = dict(os.environ)
    if DEBIAN_NODE_MODULES.is_dir():
        env["NODE_PATH"] = os.pathsep.join(p for p in (env.get("NODE_PATH"), str(DEBIAN_NODE_MODULES)) if p)
    return env


def build(build_dir: Path = BUILD_DIR, jobs: int = 2) -> Path:
    """Configures (once) and builds the WebAssembly target; returns the folder of kibitz.mjs.
    Incremental: nothing is rebuilt when the sources are unchanged."""
    env = tool_env()
    if not (build_dir / "CMakeCache.txt").exists():
        subprocess.run(
            ["emcmake", "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"], check=True, env=env
        )
    subprocess.run(["nice", "cmake", "--build", str(build_dir), "-j", str(jobs)], check=True, env=env)
    return build_dir / "kibitz"


class WasmEngine:
    """kibitz.mjs in a Node process (bench/wasm_runner.mjs) that searches positions on request."""

    def __init__(self, dist: Path) -> None:
        self._node = subprocess.Popen(
            ["node", str(RUNNER), str(dist / "kibitz.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def search(self, state: kibitz.State, params: kibitz.SearchParams, seat: int | None = None) -> dict[str, Any]:
        """The search's {action, nodes, iterations, seconds, stats: [[action, visits], ...]}."""
        assert self._node.stdin is not None and self._node.stdout is not None
        request = {"notation": state.notation(), "params": {**params.to_dict(), "seed": str(params.seed)}, "seat": seat}
        self._node.stdin.write(json.dumps(request) + "\n")
        answer: dict[str, Any] = json.loads(self._node.stdout.readline())
        if "error" in answer:
            raise RuntimeError(f"kibitz.wasm: {answer['error']}")
        return answer

    def close(self) -> None:
        assert self._node.stdin is not None
        self._node.stdin.close()
        self._node.wait(timeout=30)


@contextmanager
def wasm_engine(dist: Path) -> Iterator[WasmEngine]:
    engine = WasmEngine(dist)
    try:
        yield engine
    finally:
        engine.close()


def signatures(engine: WasmEngine, iterations: int) -> tuple[str, str]:
    """The bench signature ("nodes-digest") of the native engine and of kibitz.wasm."""
    native, wasm = [], []
    for label, state, params, seat in signature_searches(iterations):
        result = state.search(params, seat=seat)
        native.append((label, result.nodes, result.action, [(s.action, s.visits) for s in result.stats]))
        answer = engine.search(state, params, seat)
        wasm.append((label, answer["nodes"], answer["action"], [(a, v) for a, v in answer["stats"]]))
    return "-".join(map(str, signature_of(native))), "-".join(map(str, signature_of(wasm)))


def preset_params(game: str, scale: float) -> kibitz.SearchParams:
    """The game's strong preset (bots/<game>/strong.json), one thread, its iterations times ``scale``."""
    preset = parameter_set(f"{game}/{PRESET}")
    params = kibitz.SearchParams.from_options(preset["params"], algorithm=ALGORITHM_NAMES[preset["bot"]], seed=1)
    return params.with_(iterations=max(1, round(params.iterations * scale)))


def opening(game: str) -> tuple[kibitz.State, int | None]:
    """The game's opening at its default player count (Yak: the first Sunrise, its first choosing seat)."""
    state = kibitz.Game(game, players=GAMES[game]).new_initial_state(1)
    return state, state.choosing_seats()[0] if state.is_simultaneous() else None


def speeds(engine: WasmEngine, scale: float, repeats: int) -> dict[str, tuple[float, float]]:
    """Per game: the best iterations per second of its preset search, native and in WebAssembly."""
    best = {game: (0.0, 0.0) for game in GAMES}
    for _ in range(repeats):
        for game in GAMES:
            state, seat = opening(game)
            params = preset_params(game, scale)
            native = state.search(params, seat=seat)
            answer = engine.search(state, params, seat)
            best[game] = (
                max(best[game][0], native.iterations / native.seconds),
                max(best[game][1], answer["iterations"] / answer["seconds"]),
            )
    return best


def sizes(dist: Path) -> tuple[int, int]:
    """kibitz.wasm's size in bytes, raw and gzipped (level 9)."""
    data = (dist / "kibitz.wasm").read_bytes()
    return len(data), len(gzip.compress(data, 9))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", type=Path, default=BUILD_DIR)
    parser.add_argument("--iterations", type=int, default=10000, help="the signature's iterations per search (kibitz bench's)")
    parser.add_argument("--scale", type=float, default=1.0, help="times each preset's iterations in the speed runs")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    dist = build(args.build_dir)
    with wasm_engine(dist) as engine:
        native_signature, wasm_signature = signatures(engine, args.iterations)
        print(
            f"signature ({args.iterations} iterations): native {native_signature}  wasm {wasm_signature}  "
            f"{'equal' if native_signature == wasm_signature else 'DIFFERENT'}"
        )
        print(f"\n{PRESET} preset, iterations per second, one thread, best of {args.repeats}:")
        print(f"{'game':18} {'iterations':>10} {'native':>10} {'wasm':>10} {'wasm/native':>12}")
        for game, (native, wasm) in speeds(engine, args.scale, args.repeats).items():
            print(
                f"{game:18} {preset_params(game, args.scale).iterations:>10} {native:>10.0f} {wasm:>10.0f} {wasm / native:>11.0%}"
            )
    raw, zipped = sizes(dist)
    print(f"\nkibitz.wasm: {raw / 1e6:.2f} MB, gzipped {zipped / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
