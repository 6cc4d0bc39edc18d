"""The web table with no server (``kibitz web export``; docs/web.md §10), as a player meets it:
the exported folder's size, how long the page takes to show the lobby with the engine loaded,
and how long each game's ``strong`` preset takes for a bot's first move, searched in the page's
worker (kibitz.wasm in headless Chromium, one thread), served by Python's static file server.

    python bench/web_static.py                     # builds kibitz.wasm first when needed
    python bench/web_static.py --wasm build/wasm/kibitz

Needs Chromium, chromedriver and Selenium (the test extra), and Emscripten without ``--wasm``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kibitz.web.export import export

GAMES = [("just4fun_colours", 2), ("yucata", 2), ("canasta_tiles", 4), ("yak", 4)]
FIRST_MOVE = """const [game, players, spec, done] = arguments;
const seats = Array.from({ length: players }, (_, i) => (i === players - 1 ? { kind: "person" } : { kind: "bot", spec }));
const worker = new Worker("static/worker/main.js", { type: "module" });
const started = performance.now();
worker.addEventListener("message", ({ data }) => {
  if (data.request === 1) worker.postMessage({ kind: "join", table: data.result.table, ticket: data.result.ticket });
  if (data.kind === "progress") { worker.terminate(); done({ iterations: data.iterations, seconds: data.seconds, total: (performance.now() - started) / 1000 }); }
  if (data.error || data.kind === "error") { worker.terminate(); done({ error: data.error ?? data.message }); }
});
worker.postMessage({ request: 1, kind: "create", data: { game, options: { players: String(players) }, seats, seed: 1 } });
"""


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def chromium() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver") or "chromedriver"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wasm", type=Path, help="a built kibitz.mjs folder (default: build it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        export(site, args.wasm)
        files = [p for p in site.rglob("*") if p.is_file()]
        wasm = (site / "static" / "wasm" / "kibitz.wasm").read_bytes()
        print(f"the folder: {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.2f} MB; "
              f"kibitz.wasm {len(wasm) / 1e6:.2f} MB, gzipped {len(gzip.compress(wasm, 9)) / 1e6:.2f} MB")
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        driver = chromium()
        try:
            started = time.monotonic()
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
            while not driver.execute_script("return document.querySelector('[data-testid=seat-0] option') !== null"):
                time.sleep(0.01)
            print(f"the lobby, with the engine loaded in the worker: {time.monotonic() - started:.2f} s")
            driver.set_script_timeout(600)
            print(f"\n{'game':18} {'players':>7} {'iterations':>10} {'search s':>9} {'first move s':>13} {'iterations/s':>13}")
            for game, players in GAMES:
                answer = driver.execute_async_script(FIRST_MOVE, game, players, f"ismcts:preset={game}/strong" if game != "yucata" else "uct:preset=yucata/strong")
                if "error" in answer:
                    raise SystemExit(f"{game}: {json.dumps(answer)}")
                rate = answer["iterations"] / max(answer["seconds"], 1e-3)
                print(f"{game:18} {players:>7} {answer['iterations']:>10} {answer['seconds']:>9.2f} {answer['total']:>13.2f} {rate:>13.0f}")
        finally:
            driver.quit()
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    main()
