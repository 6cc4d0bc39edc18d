"""The web table with no server (issue 43 point 3; docs/web.md, "The table with no server"):
``kibitz web export`` writes a folder that a plain static server serves, and in headless Chromium
a person plays a complete game of each of the four games against bots that search in the page's
worker (kibitz.wasm). Asserted: the record replays in Python and is the game ``kibitz serve``'s
table plays with the same seed, bots and person's moves; every message the worker sent the page
before the end shows only the person's seat (no other seat's hidden cards); the page and its
worker asked nothing of another host, nor any file outside the export.

kibitz.wasm is the session's build (tests/conftest.py ``wasm_dist``, shared with test_wasm.py).
Needs Emscripten, Node, Chromium and chromedriver: skipped without them, failed when ``CI`` is set.
"""

from __future__ import annotations

import json
import random
import subprocess
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import kibitz
from kibitz.cli import main
from kibitz.game import SearchProgress, StopFlag
from kibitz.match import replay
from kibitz.records import GameRecord
from kibitz.web import export as web_export
from kibitz.web.limits import Limits
from kibitz.web.table import Seat, Table
from test_web_browser import by, logged, open_table, over, present, resign, text, undo_a_move_then_ask_a_hint, wait
from web_browser import STATIC, browser_paths, need, net_log_requests, new_driver
from web_hidden import check_frames, leaks, secrets

ROOT = Path(__file__).resolve().parents[1]
# Records what the page's workers send it, as the WebSocket frames are recorded for kibitz serve.
RECORD_WORKERS = """
window.__frames = [];
window.__workers = [];
const PageWorker = window.Worker;
window.Worker = class extends PageWorker {
  constructor(...args) {
    super(...args);
    window.__workers.push(this);
    this.addEventListener("message", (event) => window.__frames.push(JSON.stringify(event.data)));
  }
};
"""


# A person's clicks, made in the page (a WebDriver round trip a click would make a game take half a
# minute): a highlighted (data-legal) element of the view drawn at random, one at a time, each once
# the page has drawn the answer to the one before; the page's HTML kept before every fourth click.
PLAY_BY_CLICKING = """
const [seed, done] = [arguments[0], arguments[arguments.length - 1]];
let state = seed >>> 0;
const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const snapshots = [];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  let clicks = 0;
  while (!document.querySelector("[data-testid=download]")) {
    const turn = document.querySelector("[data-testid=turn]")?.textContent ?? "";
    const targets = [...document.querySelectorAll("[data-testid=view] [data-legal]")];
    if (targets.length && /turn|Choose/.test(turn)) {
      if (clicks % 4 === 0) snapshots.push(document.getElementById("screen").innerHTML);
      const drawn = document.querySelector("[data-testid=view]").innerHTML;
      targets[Math.floor(random() * targets.length)].dispatchEvent(new MouseEvent("click", { bubbles: true }));
      clicks += 1;
      for (let i = 0; i < 100 && document.querySelector("[data-testid=view]").innerHTML === drawn; i++) await sleep(5);
    } else {
      await sleep(10);
    }
  }
  done({ clicks, snapshots });
})().catch((error) => done({ error: String(error) }));
"""


class StaticSite:
    """An exported folder served by Python's static file server on a free port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def site(wasm_dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticSite]:
    browser_paths()  # skips (or fails in CI) before exporting anything
    folder = tmp_path_factory.mktemp("site")
    assert main(["web", "export", str(folder), "--wasm", str(wasm_dist), "--move-pause-ms", "0", "--hint-bot", "ismcts:iterations=300"]) == 0
    served = StaticSite(folder)
    yield served
    served.stop()


class Browser:
    """A headless Chromium recording what the page's workers send it (``frames``) and, in its
    NetLog, every request the page and its workers make (``requests``, once it has quit)."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "net-log.json"
        self.driver = new_driver(net_log=self.log)
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_WORKERS})
        self.running = True

    def quit(self) -> None:
        if self.running:
            self.running = False
            self.driver.quit()

    def requests(self, origin: str) -> list[str]:
        """The URLs that a page or worker of ``origin`` asked for (the browser quits first)."""
        self.quit()
        return [url for url, initiator in net_log_requests(self.log) if initiator == origin]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    chrome = Browser(tmp_path)
    yield chrome
    chrome.quit()


@pytest.fixture
def driver(browser: Browser) -> Any:
    return browser.driver


def frames(driver: Any) -> list[str]:
    return list(driver.execute_script("return window.__frames"))


def record_of(driver: Any) -> GameRecord:
    """The finished game's record as the page received it from its worker."""
    for frame in reversed(frames(driver)):
        message = json.loads(frame)
        if message.get("record"):
            return GameRecord.from_json(message["record"])
    raise AssertionError("no message held the record")


def served_by_python(record: GameRecord, seat: int) -> GameRecord:
    """The record of the game kibitz serve's table (kibitz.web.table) plays with the record's seed
    and bot specs when the person at ``seat`` makes the recorded person's moves."""
    game = kibitz.Game(record.game, **record.options)
    seats = [Seat("person", spec.removeprefix("person:")) if spec.startswith("person:") else Seat("bot", spec, spec) for spec in record.specs]
    table = Table(game, seats, record.seed, Limits().hint_bot)
    person = iter(move for entry, move in zip(replay_entries(record), record.moves) if entry == seat)
    while not table.over:
        bots = table.bots_to_act()
        if bots:
            job = table.bot_job(bots[0])
            assert table.bot_played(job, job.run(StopFlag(), SearchProgress()))
        else:
            table.play(seat, next(person))
    return table.record()


def replay_entries(record: GameRecord) -> list[int | None]:
    """Who made each recorded action (None: chance)."""
    state = kibitz.match.initial_state(kibitz.Game(record.game, **record.options), record.seed)
    movers: list[int | None] = []
    i = 0
    while i < len(record.actions):
        if state.is_simultaneous():
            seats = state.choosing_seats()
            movers += seats
            state.apply_joint(dict(zip(seats, record.actions[i : i + len(seats)])))
            i += len(seats)
        else:
            movers.append(state.current_player if state.current_player >= 0 else None)
            state.apply(record.actions[i])
            i += 1
    return movers


PLAY_SECONDS = 90
GAMES = [
    ("yucata", ["person", "level=1"], {}),
    ("just4fun_colours", ["person", "ismcts:iterations=40"], {}),
    ("canasta_tiles", ["person", "random", "greedy", "ismcts:iterations=20"], {}),
    ("yak", ["mo_ismcts:iterations=20", "person"], {"players": 2}),
]


@pytest.mark.parametrize("game, seats, options", GAMES, ids=[g[0] for g in GAMES])
def test_a_person_plays_a_whole_game_against_bots_in_the_page(browser: Browser, driver: Any, site: StaticSite, game: str, seats: list[str], options: dict[str, Any]) -> None:
    open_table(driver, site, game, seats, seed=11, **options)
    seat = seats.index("person")
    driver.set_script_timeout(PLAY_SECONDS)
    played = driver.execute_async_script(PLAY_BY_CLICKING, 5)
    assert played.get("clicks", 0) > 0, played
    snapshots = played["snapshots"]
    assert "Game over" in text(driver, "[data-testid=turn]")
    record = record_of(driver)
    assert replay(record).returns() == record.returns and record.specs[seat] == "person:You"
    assert record.seed == 11 and record.specs[1 - seat if len(seats) == 2 else 1] == seats[1 - seat if len(seats) == 2 else 1]
    # the same game as kibitz serve's table: the deal, chance and every bot decision from the same seeds
    assert served_by_python(record, seat).actions == record.actions
    # the page never held another seat's hidden cards before the end
    assert check_frames(frames(driver), record, {seat}) > 0
    assert not leaks(snapshots, secrets(record, seat))
    # every request of the page and its workers: the export's own files, nothing from another host
    origin = site.url.rstrip("/")
    asked = browser.requests(origin)
    assert f"{origin}/static/wasm/kibitz.wasm" in asked and f"{origin}/static/worker/main.js" in asked, asked
    for url in asked:
        assert url.startswith(f"{origin}/") and (site.folder / urlsplit(url).path.lstrip("/")).is_file(), url


def test_undo_hint_resign_and_the_replay_in_the_page(driver: Any, site: StaticSite) -> None:
    start, suggestion = undo_a_move_then_ask_a_hint(driver, site)
    hinted = wait(driver, lambda: [m for m in map(json.loads, frames(driver)) if m.get("kind") == "table" and m["views"][0]["hint"]], "the hint's table")
    assert hinted[-1]["views"][0]["hint"] == suggestion and suggestion in hinted[-1]["views"][0]["legal"]
    # bad messages to the worker: each a clear error, and the table unchanged
    for message, named in [({"kind": "move", "seat": 0, "move": "zz9"}, "zz9"), ({"kind": "move", "seat": 1, "move": "a1"}, "does not play seat 1"),
                           ({"kind": "move", "seat": "0"}, "'seat' must be a seat number"), ({"kind": "fly"}, "unknown message kind"),
                           ({"kind": "rematch"}, "once this game is over")]:
        count = len(frames(driver))
        driver.execute_script("window.__workers[0].postMessage(arguments[0])", message)
        answer = json.loads(wait(driver, lambda count=count: frames(driver)[count:], f"the answer to {message}")[0])
        assert answer["kind"] == "error" and named in answer["message"], answer
    assert logged(driver) == start and present(driver, "[data-testid=view] [data-legal]")
    resign(driver)
    record = record_of(driver)
    assert record.adjudication is not None and record.adjudication["reason"] == "resigned"
    replay(record)
    # the rematch: a new table with the seats rotated by one; back to the finished one for its replay
    table = driver.current_url
    driver.find_element(*by("[data-testid=rematch]")).click()
    wait(driver, lambda: driver.current_url != table and text(driver, "[data-testid=seat-card-1]").startswith("You"), "the rematch")
    assert text(driver, "[data-testid=seat-card-0]").startswith("greedy")
    driver.back()
    wait(driver, lambda: over(driver), "the finished table again")
    driver.find_element(*by("[data-testid=replay]")).click()
    wait(driver, lambda: text(driver, "[data-testid=replay-step]").startswith("0 /"), "the replay")
    steps = int(text(driver, "[data-testid=replay-step]").split("/")[1])
    driver.find_element(*by("[data-testid=replay-last]")).click()
    wait(driver, lambda: text(driver, "[data-testid=replay-step]") == f"{steps} / {steps}", "the last step")
    assert "resigned" in text(driver, "[data-testid=replay-info]")


def test_a_bot_the_page_cannot_play_is_refused_by_name(driver: Any, site: StaticSite) -> None:
    driver.get(site.url)
    wait(driver, lambda: present(driver, "[data-testid=seat-0]"), "the lobby")
    answer = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        import("./static/transport.js").then(({ call }) => call("create", {game: "yucata", options: {players: "2"},
          seats: [{kind: "person"}, {kind: "bot", spec: "expert"}]})).then(done, (error) => done(error.message));"""
    )
    assert "expert needs the Python package" in answer
    answer = driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        import("./static/transport.js").then(({ call }) => call("create", {game: "yucata", options: {players: "2"},
          seats: [{kind: "person", name: "x".repeat(30)}, {kind: "bot", spec: "greedy"}]})).then(done, (error) => done(error.message));"""
    )
    assert "seat 0: a name is up to 24 printable characters" in answer
    assert not present(driver, "[data-testid=seat-1] option[value=invite]")  # no invite links without a server


def test_seeds_are_derived_as_python_derives_them() -> None:
    """worker/seeds.js: blake2b's derive_seed and Python's random.Random, value for value."""
    node = subprocess.run(["which", "node"], capture_output=True, text=True, check=False).stdout.strip()
    need("node", bool(node))
    cases = [(0, ["deal"]), (11, ["bot", 3]), (2**63 - 1, ["chance", 1000]), (123456789, ["undo", 2]), (5, ["x" * 300])]
    script = f"""
    import {{ deriveSeed, PyRandom }} from {json.dumps((STATIC / "worker" / "seeds.js").as_uri())};
    const cases = {json.dumps([(str(seed), path) for seed, path in cases])};
    const derived = cases.map(([seed, path]) => deriveSeed(BigInt(seed), ...path).toString());
    const draws = [0n, 7n, 2n ** 63n - 1n, 2n ** 40n].map((seed) => {{
      const rng = new PyRandom(seed);
      return [rng.getrandbits(63).toString(), rng.getrandbits(63).toString(), rng.choice([...Array(7).keys()]), rng.choice([...Array(40).keys()])];
    }});
    console.log(JSON.stringify({{ derived, draws }}));
    """
    run = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["derived"] == [str(kibitz.match.derive_seed(seed, *path)) for seed, path in cases]
    expected = []
    for seed in (0, 7, 2**63 - 1, 2**40):
        rng = random.Random(seed)
        expected.append([str(rng.getrandbits(63)), str(rng.getrandbits(63)), rng.choice(range(7)), rng.choice(range(40))])
    assert answer["draws"] == expected


def test_the_static_lobby_resolves_the_menu_to_what_the_engine_in_the_page_plays() -> None:
    lobby = web_export.static_lobby(Limits())
    games = {info["name"]: info for info in lobby["games"]}
    assert {"yucata", "just4fun_colours", "canasta_tiles", "yak"} <= set(games)
    for name in ("yucata", "just4fun_colours", "canasta_tiles", "yak"):
        kinds = {entry["bot"]["kind"] for entry in games[name]["bots"]}
        assert kinds == {"search", "greedy", "random"}, name
        assert all(entry["spec"] != "expert" for entry in games[name]["bots"])
        assert all(entry["bot"]["params"]["threads"] == 1 for entry in games[name]["bots"] if entry["bot"]["kind"] == "search")
    level = next(entry for entry in games["yucata"]["bots"] if entry["spec"] == "level=1")
    assert level["bot"] == {"kind": "search", "params": level["bot"]["params"], "seesEverything": True} and level["bot"]["params"]["iterations"] == 50
    assert "yucata/strong-4p" not in {entry["spec"].partition("preset=")[2] for entry in games["yucata"]["bots"]}  # the adaptive opponent model is Python's
    assert lobby["limits"]["hintSearch"]["iterations"] == 3000 and lobby["limits"]["movePauseMs"] == Limits().move_pause_ms


def test_export_builds_kibitz_wasm_in_a_checkout(wasm_dist: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --wasm, in a checkout (here: a package installed from it, run in it), the export
    builds the WebAssembly target there (up to date: nothing to do) and copies it."""
    monkeypatch.setattr(web_export, "SOURCE", tmp_path)  # as if installed with pip install .
    monkeypatch.chdir(ROOT)
    assert main(["web", "export", str(tmp_path / "site")]) == 0
    assert (tmp_path / "site" / "static" / "wasm" / "kibitz.wasm").read_bytes() == (wasm_dist / "kibitz.wasm").read_bytes()
    page = (tmp_path / "site" / "index.html").read_text()
    assert 'data-kibitz="static"' in page and 'src="static/app.js"' in page and "content-security-policy" in page
    assert main(["web", "export", str(tmp_path / "site"), "--wasm", str(wasm_dist)]) == 0  # over an earlier export


def test_export_says_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "not-built"
    empty.mkdir()
    assert main(["web", "export", str(tmp_path / "out"), "--wasm", str(empty)]) == 2
    assert "not a built kibitz.mjs folder (no kibitz.mjs, kibitz.wasm, presets/index.json)" in capsys.readouterr().err
    monkeypatch.setattr(web_export, "SOURCE", ROOT)
    monkeypatch.setattr(web_export, "missing_tools", lambda: ["emcc", "emcmake"])
    assert main(["web", "export", str(tmp_path / "out")]) == 2
    assert "building kibitz.wasm needs emcc, emcmake on PATH" in capsys.readouterr().err and not (tmp_path / "out").exists()
    monkeypatch.setattr(web_export, "SOURCE", tmp_path)  # an installed package, run outside a checkout
    monkeypatch.chdir(tmp_path)
    with pytest.raises(web_export.ExportError, match="pass --wasm build/wasm/kibitz"):
        web_export.find_wasm()
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(web_export.ExportError, match="is not empty and holds no earlier export"):
        web_export.export(tmp_path, wasm=empty)
