"""``kibitz web export DIR``: the web table as a static folder of HTML, JavaScript and
WebAssembly that any static host serves (``python -m http.server``), with no kibitz server
(docs/web.md, "The table with no server").

The folder holds the page of ``kibitz serve`` (``static/``, marked ``data-kibitz="static"`` so
that its transport talks to a worker instead of a WebSocket), the engine in WebAssembly
(``static/wasm/``: kibitz.mjs, kibitz.wasm and the presets, docs/wasm.md), and
``static/lobby.json``: the games, their options and seat menus as the Python package reads
them, each bot of the menu resolved to what the engine in the page plays (a difficulty level or
a parameter set as its search parameters). The worker (``static/worker/``) plays the table.

kibitz.wasm is not in the Python package: ``export`` takes a built one (``wasm``), or builds it
from the kibitz source tree (:func:`source_tree`) with Emscripten (emcmake), CMake and Node, and
says what is missing otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from kibitz.bots import GreedyBot, RandomBot, SearchBot, make_bot
from kibitz.errors import OptionError
from kibitz.game import Game
from kibitz.levels import LevelBot
from kibitz.web.limits import Limits
from kibitz.web.lobby import game_list

STATIC = Path(__file__).parent / "static"
SOURCE = Path(__file__).resolve().parents[3]  # the kibitz source tree, when the package runs from one
WASM_FILES = ("kibitz.mjs", "kibitz.wasm", "presets/index.json")
TOOLS = ("emcc", "emcmake", "node", "cmake")
DEBIAN_NODE_MODULES = Path("/usr/share/nodejs")  # where Debian's emscripten finds acorn
MARK = 'data-kibitz="static"'
# No host serves this folder's headers for it: the page names its own policy (nothing from other hosts).
CSP = (
    "default-src 'self'; worker-src 'self'; connect-src 'self'; img-src 'self' data: blob:; "
    "style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'none'"
)


class ExportError(OptionError):
    """The export cannot be written: no kibitz.wasm and no way to build it, or a folder in the way."""


# -- kibitz.wasm -----------------------------------------------------------------------------------


def missing_tools() -> list[str]:
    """The tools the WebAssembly build needs that are not on PATH."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def tool_env() -> dict[str, str]:
    """The environment for Emscripten: Debian's emscripten runs its JavaScript optimiser with
    whatever node is on PATH, which finds Debian's node packages (acorn) only on NODE_PATH."""
    env = dict(os.environ)
    if DEBIAN_NODE_MODULES.is_dir():
        env["NODE_PATH"] = os.pathsep.join(p for p in (env.get("NODE_PATH"), str(DEBIAN_NODE_MODULES)) if p)
    return env


def build_wasm(source: Path, build_dir: Path, jobs: int = 2) -> Path:
    """Configures (once) and builds the WebAssembly target of the kibitz source tree ``source``
    in ``build_dir`` (niced); returns the folder of kibitz.mjs. Incremental: nothing is rebuilt
    when the sources are unchanged. Raises subprocess.CalledProcessError when the build fails."""
    env = tool_env()
    if not (build_dir / "CMakeCache.txt").exists():
        subprocess.run(["emcmake", "cmake", "-S", str(source), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"], check=True, env=env)
    subprocess.run(["nice", "cmake", "--build", str(build_dir), "-j", str(jobs)], check=True, env=env)
    return build_dir / "kibitz"


def source_tree() -> Path | None:
    """The kibitz source tree with the WebAssembly target: the one this package runs from (an
    editable install), else the current directory if it is one (a checkout where kibitz was
    installed with ``pip install .``); None without either."""
    return next((root for root in (SOURCE, Path.cwd()) if (root / "csrc" / "wasm" / "CMakeLists.txt").is_file()), None)


def find_wasm(wasm: Path | None = None, build_dir: Path | None = None) -> Path:
    """The folder of a built kibitz.mjs: ``wasm`` if given, else built from the source tree (in
    ``build_dir``, default ``build/wasm`` there). Raises ExportError saying what is missing."""
    if wasm is not None:
        missing = [name for name in WASM_FILES if not (wasm / name).is_file()]
        if missing:
            raise ExportError(f"--wasm {wasm}: not a built kibitz.mjs folder (no {', '.join(missing)}); build one as docs/wasm.md says")
        return wasm
    source = source_tree()
    if source is None:
        raise ExportError(
            "kibitz.wasm is not part of the installed package, and neither this kibitz nor the current directory is a source tree to "
            "build it from: run this in a kibitz checkout, or build it there (emcmake cmake -S . -B build/wasm && cmake --build "
            "build/wasm, docs/wasm.md) and pass --wasm build/wasm/kibitz"
        )
    missing = missing_tools()
    if missing:
        raise ExportError(
            f"building kibitz.wasm needs {', '.join(missing)} on PATH (Debian: apt-get install emscripten nodejs cmake make); "
            "or pass --wasm DIR, a folder of a kibitz.mjs built before (docs/wasm.md)"
        )
    try:
        return build_wasm(source, build_dir or source / "build" / "wasm")
    except subprocess.CalledProcessError as err:
        raise ExportError(f"the WebAssembly build failed ({' '.join(map(str, err.cmd))} exited with {err.returncode}); its output is above") from None


# -- the lobby of the static page ------------------------------------------------------------------


def static_bot(spec: str, game: Game) -> dict[str, Any] | None:
    """What the engine in the page plays for ``spec`` at ``game``: ``{kind: "search", params,
    seesEverything}`` (one thread), ``{kind: "greedy"}`` or ``{kind: "random"}``; None for a bot
    that needs Python (an expert, a plug-in, the adaptive opponent model, greedy weights)."""
    bot: Any = make_bot(spec)
    if isinstance(bot, LevelBot):
        bot = bot.resolve(game.new_initial_state(0))
    if isinstance(bot, RandomBot):
        return {"kind": "random"}
    if isinstance(bot, GreedyBot):
        return None if bot.eval else {"kind": "greedy"}
    if not isinstance(bot, SearchBot) or bot.plugin is not None or bot.params.opponent_model == "adaptive":
        return None
    params = bot.params.with_(threads=1).to_dict()
    del params["seed"]  # each decision's seed comes from the table's, as in kibitz serve
    return {"kind": "search", "params": params, "seesEverything": bot.sees_everything}


def static_lobby(limits: Limits) -> dict[str, Any]:
    """The lobby of the static page (what ``/api/games`` answers in ``kibitz serve``), each
    menu entry with its ``bot`` (:func:`static_bot`), the entries the page cannot play left out;
    the limits with the hint's search and the pause between bot moves."""
    folder = STATIC / "games"
    lobby = game_list(limits, {p.stem for p in folder.glob("*.js")}, {p.stem for p in folder.glob("*.css")})
    for info in lobby["games"]:
        playable = []
        for entry in info["bots"]:
            game = Game(info["name"], players=entry["players"][0]) if "players" in entry else Game(info["name"])
            bot = static_bot(entry["spec"], game)
            if bot is not None:
                playable.append({**entry, "bot": bot})
        info["bots"] = playable
    hint = static_bot(limits.hint_bot, Game("yucata"))
    assert hint is not None and hint["kind"] == "search"  # Limits checks that the hint is a search from the view
    lobby["limits"].update(maxThreads=1, plugins=[], hintSearch=hint["params"], movePauseMs=limits.move_pause_ms)
    return lobby


# -- the folder ------------------------------------------------------------------------------------


def export(folder: Path, wasm: Path | None = None, build_dir: Path | None = None, limits: Limits | None = None) -> Path:
    """Writes the static table into ``folder`` (new, empty, or an earlier export, which is
    replaced); returns ``folder/index.html``. ``wasm``: a built kibitz.mjs folder (else built,
    :func:`find_wasm`). Raises ExportError (an OptionError) naming what is wrong."""
    limits = limits or Limits()
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"{folder} is a file; the export writes a folder")
    index = folder / "index.html"
    if folder.is_dir() and any(folder.iterdir()) and not (index.is_file() and MARK in index.read_text(errors="replace")):
        raise ExportError(f"{folder} is not empty and holds no earlier export: choose a new or empty folder")
    built = find_wasm(wasm, build_dir)
    lobby = static_lobby(limits)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "static"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(STATIC, target, ignore=shutil.ignore_patterns("__pycache__", "index.html"))
    wasm_target = target / "wasm"
    wasm_target.mkdir()
    for name in ("kibitz.mjs", "kibitz.wasm"):
        shutil.copy2(built / name, wasm_target / name)
    shutil.copytree(built / "presets", wasm_target / "presets")
    (target / "lobby.json").write_text(json.dumps(lobby, indent=1) + "\n")
    page = (STATIC / "index.html").read_text()
    page = page.replace('<html lang="en">', f'<html lang="en" {MARK}>', 1)
    page = page.replace('<meta charset="utf-8">', f'<meta charset="utf-8">\n  <meta http-equiv="content-security-policy" content="{CSP}">', 1)
    assert MARK in page and CSP in page
    index.write_text(page)
    return index
