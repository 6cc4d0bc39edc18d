"""Helpers for the web table's tests in a real browser: Selenium driving the system's headless
Chromium through its chromedriver (Debian's ``chromium`` and ``chromium-driver``; nothing is
downloaded: the driver's path is given, so Selenium Manager is never asked).

Shared by tests/test_web_browser.py (the whole page against a live server) and the view tests
(tests/test_web_<game>.py: one view module drawing models of real positions):

- :func:`need`: skip when a tool is missing, fail when ``CI`` is set;
- :func:`new_driver`: a headless Chromium, optionally logging the network (WebSocket frames,
  requests) and downloading to a folder;
- :func:`model_of`: the model the server would send a seat for a position (kibitz.web.table),
  and :func:`game_positions` (with :func:`bots_choose`): the positions of a seeded game;
- :func:`node_json`: a view's pure modules run under Node over JSON cases;
- :func:`view_page`: a page that draws models with one view module, :func:`show`, :func:`acts`,
  :func:`query`, :func:`run`;
- :class:`LiveServer`: ``kibitz serve``'s app on a free port in a thread;
- :class:`Network`: the WebSocket frames received and the URLs requested, from Chrome's
  performance log;
- :func:`screenshot`: to ``$KIBITZ_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import kibitz
from kibitz.bots import make_bot
from kibitz.game import Move, State
from kibitz.web.limits import Limits
from kibitz.web.table import Entry, build_model, entry_of, joint_entries

STATIC = Path(kibitz.__file__).parent / "web" / "static"
PHONE, LAPTOP = 360, 1280
NAMES = ["You", "Ana", "greedy", "random"]
SCREENSHOTS = "KIBITZ_SCREENSHOTS"


def need(tool: str, found: bool) -> None:
    """Skips the test when ``tool`` is missing; in CI (``CI`` set) fails it instead."""
    if not found:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing; CI must install it (.ci/run)")
        pytest.skip(f"{tool} is not installed")


def browser_paths() -> tuple[str, str]:
    """Chromium and chromedriver, or the test skips (fails in CI)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        need("selenium (pip install '.[test]')", False)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    need("chromium and chromedriver (apt-get install chromium chromium-driver)", chromium is not None and driver is not None)
    assert chromium is not None and driver is not None
    return chromium, driver


def new_driver(width: int = LAPTOP, height: int = 900, network: bool = False, downloads: Path | None = None) -> Any:
    """A headless Chromium. ``network``: log the performance events (:class:`Network` reads
    them); ``downloads``: save downloads there without asking."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        options.add_argument(flag)
    if network:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


def emulate_width(driver: Any, width: int, height: int = 900) -> None:
    """Lays the page out ``width`` CSS pixels wide (a desktop window cannot be as narrow as a phone)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def screenshot(driver: Any, name: str) -> Path | None:
    """Saves a screenshot as ``$KIBITZ_SCREENSHOTS/<name>.png`` when that variable is set."""
    folder = os.environ.get(SCREENSHOTS)
    if not folder:
        return None
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    width = driver.execute_script("return window.innerWidth")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    emulate_width(driver, width, height)  # the whole page in one viewport, without a scrollbar
    try:
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


# -- models of positions, as the server builds them ------------------------------------------------


def deciders(state: State) -> list[int]:
    if state.is_terminal() or state.is_chance():
        return []
    return state.choosing_seats() if state.is_simultaneous() else [state.current_player]


def model_of(
    state: State,
    entries: list[Entry],
    seat: int | None,
    *,
    names: list[str] | None = None,
    hint: str | None = None,
    replay: bool = False,
    waiting: list[int] | None = None,
    chosen: str | None = None,
) -> dict[str, Any]:
    """The model the server sends ``seat``'s browser at ``state`` (seat None: the open view of a
    finished game), as kibitz.web.table builds it. At a simultaneous node the server holds the
    choices made so far: ``chosen`` is this seat's, ``waiting`` the seats still choosing."""
    over = state.is_terminal()
    to_move = deciders(state)
    waiting = to_move if waiting is None else waiting
    mine = [] if seat is None or replay else [seat]
    legal = state.legal_moves_for(seat) if seat in waiting and not replay else []
    results = (state.returns(), state.scores(), state.ranks()) if over else None
    model = build_model(state, seat, entries, names=(names or NAMES)[: state.num_players], mine=mine, legal=legal, to_move=to_move,
                        over=over, results=results, replaying=replay)
    model.update(hint=hint, waiting=waiting, chosen=chosen, options={})
    return model


Choose = Callable[[State, int, random.Random], Move]


def game_positions(game: kibitz.Game, seed: int, choose: Choose) -> Iterator[tuple[State, list[Entry]]]:
    """Every decision point of a seeded game (a simultaneous node once, for all its choosers)
    and its end, each with the entries so far. The deal comes from ``seed``, each chance outcome
    from ``random.Random(seed)``; ``choose(state, seat, rng)`` gives a seat's move (text or id),
    ``rng`` being that same generator."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    entries: list[Entry] = []
    while not state.is_terminal():
        if state.is_chance():
            action = state.sample_chance(rng.getrandbits(63))
            entries.append(entry_of(state, action))
            state.apply(action)
            continue
        yield state.clone(), list(entries)
        if state.is_simultaneous():
            joint = {seat: state.parse_move(choose(state, seat, rng)) for seat in state.choosing_seats()}
            entries.extend(joint_entries(state, joint))
            state.apply_joint(joint)
        else:
            action = state.parse_move(choose(state, state.current_player, rng))
            entries.append(entry_of(state, action))
            state.apply(action)
    yield state, entries


def bots_choose(specs: list[str], seed: int) -> Choose:
    """``choose`` for :func:`game_positions`: seat k played by ``make_bot(specs[k], seed + k)``,
    which sees its view only."""
    bots = [make_bot(spec, seed + k) for k, spec in enumerate(specs)]
    return lambda state, seat, rng: bots[seat].act(state.view(seat))


def node_json(imports: dict[str, Path], function: str, cases: list[Any]) -> list[Any]:
    """Runs ``function`` (a JavaScript function of one case, e.g. ``"({ model }) => readTable(model).stock"``)
    under Node over every case, the view's modules imported by name (``{"readTable, MAP":
    GAMES / "just4fun_colours" / "table.js"}``); returns its results. The cases go in as JSON
    on stdin, the results come back as JSON. Skips without Node (fails in CI)."""
    node = shutil.which("node")
    need("node", node is not None)
    assert node is not None
    head = "".join(f"import {{ {names} }} from {json.dumps(path.as_uri())};\n" for names, path in imports.items())
    script = (
        f"{head}const run = {function};\n"
        "let text = ''; process.stdin.on('data', (d) => (text += d));\n"
        "process.stdin.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(text).map(run))));\n"
    )
    done = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(cases), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    assert isinstance(results, list) and len(results) == len(cases)
    return results


# -- one view module on a page of its own ------------------------------------------------------------

VIEW_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/style.css">{style}</head>
<body style="margin:0"><div id="holder"></div><script type="module">
import * as view from "/games/{game}.js";
window.errors = [];
window.addEventListener("error", (e) => window.errors.push(String(e.message)));
// Draws a model into a fresh root (so that a module's selection starts empty); the root is put
// on the page unless `shown` is false. Returns the root and the moves `act` was asked for.
function fresh(model, shown = true) {{
  const root = document.createElement("div");
  root.id = "root";
  root.className = "view view-{game}";
  if (shown) document.getElementById("holder").replaceChildren(root);
  const acts = [];
  view.render(root, model, (m) => acts.push(m));
  return {{ root, acts }};
}}
window.fresh = fresh;
window.show = (model) => {{ window.acts = fresh(model).acts; }};
window.title = view.title;
{extra}
document.title = "ready";
</script></body></html>"""


@contextmanager
def view_page(game: str, extra_script: str = "") -> Iterator[Any]:
    """A headless Chromium showing a page that draws models with ``games/<game>.js``: call
    :func:`show` with a model, read what ``act`` was asked with :func:`acts`. ``extra_script``
    runs in the page's module after ``window.fresh`` and ``view`` are defined."""
    style = f'<link rel="stylesheet" href="/games/{game}.css">' if (STATIC / "games" / f"{game}.css").exists() else ""
    page = VIEW_PAGE.format(game=game, style=style, extra=extra_script).encode()

    class Handler(SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/":
                super().do_GET()
                return
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    browser_paths()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(STATIC)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    driver = new_driver()
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
        deadline = time.monotonic() + 20
        while driver.title != "ready":
            assert time.monotonic() < deadline, f"the page of {game}.js did not load: {driver.execute_script('return window.errors')}"
            time.sleep(0.05)
        yield driver
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()


def show(page: Any, model: dict[str, Any], width: int = LAPTOP) -> None:
    """Draws ``model`` at ``width`` CSS pixels; fails on a script error."""
    emulate_width(page, width)
    page.execute_script("window.show(arguments[0])", model)
    assert page.execute_script("return window.errors") == []


def run(page: Any, script: str, *args: Any) -> Any:
    return page.execute_script(script, *args)


def query(page: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(page.find_elements(By.CSS_SELECTOR, selector))


def acts(page: Any) -> list[str]:
    return list(page.execute_script("return window.acts"))


# -- the whole page against a live server -------------------------------------------------------------


class LiveServer:
    """``kibitz serve``'s app in a thread on a free port of 127.0.0.1, answering only that host
    name as ``kibitz serve`` does; ``hall`` holds its tables."""

    def __init__(self, limits: Limits) -> None:
        import uvicorn

        from kibitz.web import create_app

        self.app = create_app(limits, allowed_hosts=["127.0.0.1"])
        self.hall = self.app.state.hall
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        config = uvicorn.Config(self.app, log_level="warning", ws="websockets-sansio", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "the server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


class Network:
    """What a driver created with ``network=True`` received and asked for, from Chrome's
    performance log (read as it goes: the log empties when read)."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.frames: list[str] = []  # WebSocket frames received, in order
        self.sent: list[str] = []
        self.requests: list[str] = []  # every URL requested (pages, modules, WebSockets)

    def read(self) -> Network:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message.get("method"), message.get("params", {})
            if method == "Network.webSocketFrameReceived":
                self.frames.append(params["response"]["payloadData"])
            elif method == "Network.webSocketFrameSent":
                self.sent.append(params["response"]["payloadData"])
            elif method == "Network.requestWillBeSent":
                self.requests.append(params["request"]["url"])
            elif method == "Network.webSocketCreated":
                self.requests.append(params["url"])
        return self
