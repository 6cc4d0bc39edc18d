"""The web table's server (kibitz.web) through Starlette's test client, over HTTP and WebSocket:
every route and every refusal, complete games of the four games with a scripted person and fast
bots in which every frame is checked for what the seat may not see (tests/web_hidden.py), undo,
resignation, hints, records and their replay, rematches, the operator's limits, and that searches
stop when nobody is left at the table."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import kibitz
from kibitz.cli import main
from kibitz.errors import OptionError
from kibitz.match import replay
from kibitz.records import GameRecord
from kibitz.web import create_app
from kibitz.web.limits import LimitError, Limits, check_bot_spec
from kibitz.web.server import FLOOD_CLOSE, STATIC
from web_hidden import check_frames, expected_views, model_seen

FAST = Limits(move_pause_ms=0, hint_bot="ismcts:iterations=300", messages_per_second=1000)  # a script clicks fast


@contextmanager
def serving(limits: Limits = FAST, **app: Any) -> Iterator[TestClient]:
    """A test client of a fresh app; the browsers opened on it are closed at the end, even after
    a failure (an open WebSocket would keep the client from shutting down)."""
    with TestClient(create_app(limits, **app)) as test_client:
        test_client.browsers = []  # type: ignore[attr-defined]
        try:
            yield test_client
        finally:
            for browser in test_client.browsers:  # type: ignore[attr-defined]
                browser.close()


@pytest.fixture
def client() -> Iterator[TestClient]:
    with serving() as test_client:
        yield test_client


def person(name: str = "") -> dict[str, str]:
    return {"kind": "person", "name": name}


def bot(spec: str) -> dict[str, str]:
    return {"kind": "bot", "spec": spec}


def open_table(client: TestClient, game: str, seats: list[dict[str, str]], **options: Any) -> dict[str, Any]:
    seed = options.pop("seed", 1)
    response = client.post("/api/tables", json={"game": game, "options": {k: str(v) for k, v in options.items()}, "seats": seats, "seed": seed})
    assert response.status_code == 200, response.text
    return response.json()


class Browser:
    """One browser's WebSocket at a table: every frame it receives is kept."""

    def __init__(self, client: TestClient, table: str, ticket: str) -> None:
        self._context = client.websocket_connect("/ws")
        self.ws = self._context.__enter__()
        self.closed = False
        getattr(client, "browsers", []).append(self)
        self.frames: list[str] = []
        self.send(kind="join", table=table, ticket=ticket)
        self.table = self.until("table")

    def send(self, **message: Any) -> None:
        self.ws.send_text(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.frames.append(text)
        return json.loads(text)

    def until(self, kind: str, check: Callable[[dict[str, Any]], bool] = lambda m: True, errors: bool = False) -> dict[str, Any]:
        """The next message of ``kind`` that passes ``check``; an error on the way fails the
        test unless ``errors``."""
        while True:
            message = self.receive()
            assert message["kind"] != "error" or kind == "error" or errors, message
            if message["kind"] == kind and check(message):
                if kind == "table":
                    self.table = message
                return message

    def error(self, **message: Any) -> str:
        """Sends ``message``, expecting an error; returns its text."""
        self.send(**message)
        return str(self.until("error")["message"])

    def view(self, seat: int | None = None) -> dict[str, Any]:
        views = self.table["views"]
        return views[0] if seat is None else next(v for v in views if v["seat"] == seat)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):  # closed by the server already
                self._context.__exit__(None, None, None)


def deciding(message: dict[str, Any]) -> dict[str, Any] | None:
    return next((v for v in message["views"] if v["legal"]), None)


def play_out(browser: Browser, rng: random.Random, before_move: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Plays the browser's seats with random legal moves until the game is over; returns the last frame."""
    message = browser.table
    answered: tuple[int, int] | None = None
    while not message["over"]:
        view = deciding(message)
        if view is not None and answered != (view["seat"], len(view["log"])):
            if before_move is not None:
                before_move(view)
            answered = (view["seat"], len(view["log"]))
            browser.send(kind="move", seat=view["seat"], move=rng.choice(view["legal"]))
        message = browser.until("table")
    return message


# -- HTTP ----------------------------------------------------------------------------------------


def test_the_page_its_modules_and_the_security_headers(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<script type="module" src="static/app.js">' in page.text
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    for path in ("app.js", "play.js", "lobby.js", "replay.js", "svg.js", "notation.js", "style.css", "games/yucata.js", "games/generic.js"):
        response = client.get(f"/static/{path}")
        assert response.status_code == 200, path
    assert "javascript" in client.get("/static/app.js").headers["content-type"]
    assert client.get("/static/missing.js").status_code == 404
    assert client.get("/api/nothing").status_code == 404


def raw_get(app: Any, raw_path: bytes) -> tuple[int, bytes]:
    """A GET with exactly this path on the wire (a client would clean up '..')."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    from urllib.parse import unquote_to_bytes

    path = unquote_to_bytes(raw_path.split(b"?")[0]).decode("latin-1")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": raw_path, "query_string": b"", "root_path": "", "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 1), "server": ("testserver", 80),
    }
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


@pytest.mark.parametrize(
    "path",
    [
        b"/static/../server.py",
        b"/static/../../web/server.py",
        b"/static/%2e%2e/server.py",
        b"/static/%2E%2E/%2e%2e/game.py",
        b"/static/..%2fserver.py",
        b"/static/..%2Fserver.py",
        b"/static/....//server.py",
        b"/static//etc/passwd",
        b"/static/%2fetc%2fpasswd",
        b"/static/..\\server.py",
        b"/static/..%5cserver.py",
        b"/static/games/../../server.py",
        b"/static/%252e%252e/server.py",
        b"/../pyproject.toml",
        b"/%2e%2e/%2e%2e/etc/passwd",
    ],
)
def test_no_file_outside_the_static_folder_can_be_read(path: bytes) -> None:
    app = create_app(FAST)
    status, body = raw_get(app, path)
    assert status in (400, 404), (path, status)
    for secret in (b"class Hall", b"root:x:0", b"def ", b"[project]"):
        assert secret not in body


def test_the_games_with_their_options_and_seat_menus(client: TestClient) -> None:
    info = client.get("/api/games").json()
    games = {g["name"]: g for g in info["games"]}
    assert {"just4fun_colours", "yucata", "canasta_tiles", "yak"} <= set(games)
    assert games["yucata"]["view"] and games["yucata"]["style"]
    assert {"layout", "start", "q", "tiebreak"} <= {o["name"] for o in games["yucata"]["options"]}
    specs = [b["spec"] for b in games["yak"]["bots"]]
    assert {"random", "greedy", "expert", "ismcts:preset=yak/strong"} <= set(specs)
    assert info["limits"]["maxIterations"] == FAST.max_iterations and "kibitz.plugins.yak" in info["limits"]["plugins"] and "os" not in info["limits"]["plugins"]


def test_the_seat_menu_offers_the_difficulty_levels_for_their_player_counts(client: TestClient) -> None:
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    # every ladder in the game's levels file (two and four players), by the first player count it serves
    ladder = [lv for found in sorted(kibitz.levels.ladders()["yucata"], key=lambda found: found[0].players) for lv in found]
    assert {lv.players[0] for lv in ladder} >= {2, 4}
    offered = [b for b in games["yucata"]["bots"] if b["group"] == "Difficulty levels"]
    assert [(b["label"], b["spec"], b["players"]) for b in offered] == [(lv.name, lv.spec, list(lv.players)) for lv in ladder]
    assert all(str(lv.rating) in b["summary"] for lv, b in zip(ladder, offered))
    yak = [b for b in games["yak"]["bots"] if "players" in b]  # Yak's ladders: two players, and four
    assert sorted({tuple(b["players"]) for b in yak}) == [(2,), (4,)]  # the lobby shows each at its player count only


def test_a_level_sits_at_a_table_and_plays(client: TestClient) -> None:
    table = open_table(client, "yucata", [person("Ana"), bot("level=2")], start=0)
    browser = Browser(client, table["table"], table["ticket"])
    last = play_out(browser, random.Random(2))
    assert GameRecord.from_json(last["record"]).specs[1] == "level=2"
    response = client.post("/api/tables", json={"game": "yak", "options": {"players": "3"}, "seats": [person(), bot("level=1"), bot("greedy")], "seed": 1})
    assert response.status_code == 400 and "no difficulty levels" in response.text  # Yak's ladders are for two and four players


def test_the_seat_menu_leaves_out_bots_beyond_the_limits() -> None:
    with TestClient(create_app(Limits(max_iterations=5000, hint_bot="ismcts:iterations=100"))) as small:
        menus = {g["name"]: {b["spec"] for b in g["bots"]} for g in small.get("/api/games").json()["games"]}
    assert "ismcts:preset=yak/fast" in menus["yak"] and "ismcts:preset=yak/strong" not in menus["yak"]
    # the top level of two-player Yucata' is the strong preset, 20,000 iterations; the levels below it fit
    top = kibitz.levels.levels("yucata", 2)[-1]
    assert top.spec not in menus["yucata"] and "level=1" in menus["yucata"]


@pytest.mark.parametrize(
    "body, named",
    [
        ("not json", "not JSON"),
        ("[" * 3000 + "]" * 3000, "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"game": "chess", "seats": []}', "unknown game"),
        ('{"game": 7}', "unknown game"),
        ('{"game": "yucata", "seats": [{"kind": "person"}], "colour": 1}', "unknown field"),
        ('{"game": "yucata", "options": {"players": "9"}, "seats": []}', "players"),
        ('{"game": "yucata", "options": {"layout": "zz"}, "seats": []}', "layout"),
        ('{"game": "yucata", "options": {"players": true}, "seats": []}', "option"),
        ('{"game": "yucata", "options": [], "seats": []}', "options"),
        ('{"game": "yucata", "seats": [{"kind": "person"}]}', "seats"),
        ('{"game": "yucata", "seats": "two"}', "seats"),
        ('{"game": "yucata", "seats": [{"kind": "alien"}, {"kind": "person"}]}', "seat 0"),
        ('{"game": "yucata", "seats": [{"kind": "bot", "spec": "greedy"}, {"kind": "bot", "spec": "random"}]}', "at least one person"),
        ('{"game": "yucata", "seats": [{"kind": "person", "name": "' + "x" * 40 + '"}, {"kind": "bot", "spec": "random"}]}', "name"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "nonsense"}]}', "unknown bot"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": 12}]}', "text"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:iterations=900000"}]}', "--max-iterations"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:time_ms=60000"}]}', "--max-time-ms"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:threads=64"}]}', "--max-threads"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:memory_mb=50000"}]}', "--max-memory-mb"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:iterations=0"}]}', "time_ms"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:plugin=os"}]}', "plug-in 'os' is not allowed"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "ismcts:c=\\u00e9"}]}', "non-ASCII"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "random"}], "seed": 1e400}', "seed"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "random"}], "seed": 99999999999999999999999999}', "seed"),
        ('{"game": "yucata", "seats": [{"kind": "person"}, {"kind": "bot", "spec": "random"}], "seed": -1}', "seed"),
    ],
)
def test_a_bad_table_request_is_a_clear_error(client: TestClient, body: str, named: str) -> None:
    response = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert named in response.json()["error"], response.json()
    assert client.get("/api/games").status_code == 200  # the server keeps running


def test_a_request_from_another_site_or_too_large_is_refused(client: TestClient) -> None:
    request = {"game": "yucata", "seats": [person(), bot("random")]}
    assert client.post("/api/tables", json=request, headers={"origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/tables", json=request, headers={"origin": "http://testserver"}).status_code == 200
    huge = {**request, "options": {"layout": "P" * 100_000}}
    response = client.post("/api/tables", json=huge)
    assert response.status_code == 413 and "too large" in response.json()["error"]


def test_only_the_bound_host_names_are_answered() -> None:
    with TestClient(create_app(FAST, allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://127.0.0.1:8000") as local:
        assert local.get("/").status_code == 200
        assert local.get("/", headers={"host": "attacker.example"}).status_code == 400  # DNS rebinding


def test_too_many_tables_per_client() -> None:
    limits = replace(FAST, max_tables_per_client=2)
    with serving(limits) as test_client:
        first = open_table(test_client, "yucata", [person(), bot("random")])
        second = open_table(test_client, "yucata", [person(), bot("random")])
        a, b = Browser(test_client, first["table"], first["ticket"]), Browser(test_client, second["table"], second["ticket"])
        response = test_client.post("/api/tables", json={"game": "yucata", "seats": [person(), bot("random")]})
        assert response.status_code == 400 and "too many tables" in response.json()["error"]
        b.close()  # a table without a browser gives way to a new one
        open_table(test_client, "yucata", [person(), bot("random")])
        a.send(kind="hint", seat=0)  # the first table still plays
        assert a.until("progress", lambda m: m["done"])["best"] in a.view()["legal"]
        a.close()


# -- the WebSocket's refusals ------------------------------------------------------------------


def test_hostile_and_malformed_messages_are_refused_and_change_nothing(client: TestClient) -> None:
    table = open_table(client, "just4fun_colours", [person("Ana"), bot("greedy")], start=0)
    other = open_table(client, "just4fun_colours", [person("Ben"), bot("greedy")])
    browser = Browser(client, table["table"], table["ticket"])
    before = browser.view()["notation"]
    legal = browser.view()["legal"]
    game = client.app.state.hall.rooms[table["table"]].table  # type: ignore[attr-defined]
    truth = (game.state.notation(), list(game.actions), game.generation)
    refusals = [
        ("not json at all", "not JSON"),
        ("[1, 2, 3]", "JSON object"),
        ("[" * 2000 + "]" * 2000, "not JSON"),
        ('{"kind": "move", "seat": 0, "move": "a1"', "not JSON"),
        ('"move"', "JSON object"),
        ('{"kind": "dance"}', "unknown message kind"),
        ('{"kind": 12}', "unknown message kind"),
        ('{"no": "kind"}', "unknown message kind"),
        ('{"kind": "move", "seat": 1, "move": "a1"}', "does not play seat 1"),
        ('{"kind": "move", "seat": 7, "move": "a1"}', "does not exist"),
        ('{"kind": "move", "seat": 100000000000000000000000000000, "move": "a1"}', "does not exist"),
        ('{"kind": "move", "seat": 1e308, "move": "a1"}', "seat"),
        ('{"kind": "move", "seat": "0", "move": "a1"}', "seat"),
        ('{"kind": "move", "seat": true, "move": "a1"}', "seat"),
        ('{"kind": "move", "seat": null, "move": "a1"}', "seat"),
        ('{"kind": "move", "seat": 0}', "needs 'move'"),
        ('{"kind": "move", "seat": 0, "move": 17}', "a move is text"),
        ('{"kind": "move", "seat": 0, "move": ["a1"]}', "a move is text"),
        ('{"kind": "move", "seat": 0, "move": "\\u00e41"}', "non-ASCII"),
        ('{"kind": "move", "seat": 0, "move": "\\u6f22\\u5b57"}', "non-ASCII"),
        ('{"kind": "move", "seat": 0, "move": "zz9"}', "is not a just4fun_colours move"),
        ('{"kind": "move", "seat": 0, "move": "' + "a" * 300 + '"}', "at most"),
        ('{"kind": "undo"}', "nothing to undo"),
        ('{"kind": "rematch"}', "once this game is over"),
        ('{"kind": "join", "table": "' + table["table"] + '", "ticket": "' + other["ticket"] + '"}', "no such table"),
        ('{"kind": "join", "table": "' + other["table"] + '", "ticket": "' + table["ticket"] + '"}', "no such table"),
        ('{"kind": "join", "table": 5, "ticket": null}', "no such table"),
        ("{" + '"pad": "' + "x" * 5000 + '", "kind": "move"}', "too large"),
    ]
    for text, named in refusals:
        browser.ws.send_text(text)
        message = browser.until("error")
        assert named in message["message"], (text[:60], message)
    browser.ws.send_bytes(b"\x00\x01")
    assert "not binary" in browser.until("error")["message"]
    illegal = next(f"{c}{r}" for c in "abcdef" for r in "123456" if f"{c}{r}" not in legal)
    assert "illegal" in browser.error(kind="move", seat=0, move=illegal)  # the engine's reason
    assert (game.state.notation(), list(game.actions), game.generation) == truth  # nothing changed
    # and the table still plays
    browser.send(kind="move", seat=0, move=legal[0])
    after = browser.until("table", lambda m: len(m["views"][0]["log"]) > len(browser.table["views"][0]["log"]))
    assert after["views"][0]["notation"] != before
    browser.close()


def test_a_flood_of_messages_is_refused_then_cut_off() -> None:
    limits = replace(FAST, messages_per_second=5)
    with serving(limits) as test_client:
        table = open_table(test_client, "yucata", [person(), bot("random")], start=0)
        browser = Browser(test_client, table["table"], table["ticket"])
        for _ in range(int(limits.burst) + 5):
            browser.send(kind="stop", seat=0)
        assert "too many messages" in browser.until("error", lambda m: "too many" in m["message"])["message"]
        time.sleep(1.0)
        browser.send(kind="move", seat=0, move=browser.view()["legal"][0])  # after a pause it is heard again
        assert browser.until("table", errors=True)["views"][0]["log"]
        with pytest.raises(WebSocketDisconnect):
            for _ in range(FLOOD_CLOSE + int(limits.burst) + 10):
                browser.send(kind="stop", seat=0)
            while True:
                browser.receive()
        fresh = Browser(test_client, table["table"], table["ticket"])  # the server and the table live on
        assert fresh.table["views"][0]["log"]
        fresh.close()


# -- complete games, every frame checked -------------------------------------------------------

GAMES = [
    ("yucata", [person("Ana"), bot("ismcts:iterations=100")], {}),
    ("just4fun_colours", [bot("greedy"), person("Ana"), bot("ismcts:iterations=60")], {"players": 3}),
    ("canasta_tiles", [person("Ana"), bot("random"), bot("greedy"), bot("random")], {}),
    ("yak", [bot("greedy"), bot("random"), person("Ana")], {"players": 3}),
]


@pytest.mark.parametrize("game, seats, options", GAMES, ids=[g[0] for g in GAMES])
def test_a_complete_game_shows_the_person_only_its_seat(client: TestClient, game: str, seats: list[dict[str, str]], options: dict[str, Any], tmp_path: Path) -> None:
    table = open_table(client, game, seats, seed=3, **options)
    browser = Browser(client, table["table"], table["ticket"])
    seat = next(i for i, s in enumerate(seats) if s["kind"] == "person")
    assert browser.table["held"] == [seat]
    last = play_out(browser, random.Random(5))
    record = GameRecord.from_json(last["record"])
    assert replay(record).returns() == record.returns == last["open"]["returns"]
    assert record.specs[seat] == "person:Ana" and last["open"]["seat"] is None
    checked = check_frames(browser.frames, record, {seat})
    assert checked >= 5
    # the downloaded record is what `kibitz replay` reads
    path = tmp_path / "game.jsonl"
    path.write_text(last["record"] + "\n")
    assert main(["replay", str(path)]) == 0
    browser.close()


def test_a_bot_of_the_adaptive_opponent_model_learns_from_the_others_moves() -> None:
    """The bots see the other seats' moves through their own views, as in a match, so a preset of
    ``opponent_model=adaptive`` learns from the person's play and the other bot's."""
    with serving() as test_client:
        table = open_table(test_client, "just4fun_colours", [person(), bot("greedy"), bot("ismcts:iterations=40,opponent_model=adaptive")], players=3, seed=2)
        browser = Browser(test_client, table["table"], table["ticket"])
        play_out(browser, random.Random(1))
        adaptive = test_client.app.state.hall.rooms[table["table"]].table.bots[2]
        assert adaptive.opponents is not None and adaptive.opponents.decisions[0] > 3 and adaptive.opponents.decisions[1] > 3


def test_hidden_information_checks_catch_a_leak() -> None:
    """The frame checks fail on a frame that shows another seat's hand (they can fail)."""
    record = kibitz.play_game(kibitz.Game("just4fun_colours", players=2), ["random", "random"], seed=4)
    state = kibitz.match.initial_state(kibitz.Game("just4fun_colours", players=2), 4)
    honest = {"kind": "table", "views": [{"seat": 0, "notation": state.view(0).notation(), "legal": [], "moves": []}]}
    assert check_frames([json.dumps(honest)], record, {0}) == 1
    leaky = {"kind": "table", "views": [{"seat": 0, "notation": state.notation().replace("players", "seat=0 players"), "legal": [], "moves": []}]}
    with pytest.raises(AssertionError):
        check_frames([json.dumps(leaky)], record, {0})
    with pytest.raises(AssertionError):
        check_frames([json.dumps({"kind": "progress", "top": [{"move": kibitz.notation_fields(state.notation())["hands"].split(",")[1]}]})], record, {0})


def test_a_bot_that_fails_forfeits_and_the_record_says_why(client: TestClient, tmp_path: Path) -> None:
    """The policy bot plays sequential decisions only: at Yak's Sunrise it raises, and forfeits."""
    table = open_table(client, "yak", [person(), bot("policy")], players=2, seed=1)
    browser = Browser(client, table["table"], table["ticket"])
    over = browser.table if browser.table["over"] else browser.until("table", lambda m: m["over"])
    record = GameRecord.from_json(over["record"])
    assert record.adjudication is not None and record.adjudication["seat"] == 1 and "the bot failed" in record.adjudication["reason"]
    assert record.returns == [1.0, 0.0]
    path = tmp_path / "forfeit.jsonl"
    path.write_text(over["record"] + "\n")
    assert main(["replay", str(path)]) == 0


def test_bots_progress_and_top_moves_only_where_nothing_is_hidden(client: TestClient) -> None:
    for game, shown in (("yucata", True), ("just4fun_colours", False)):
        table = open_table(client, game, [person(), bot("ismcts:time_ms=700")], start=1)
        browser = Browser(client, table["table"], table["ticket"])
        progress = browser.until("progress", lambda m: m["search"] == "bot")
        assert progress["seat"] == 1 and progress["iterations"] >= 0 and "seconds" in progress
        assert ("top" in progress) == shown, progress
        notation = browser.view()["notation"]
        assert "it is not seat 0's turn; seat 1 (" in browser.error(kind="move", seat=0, move="1" if game == "yucata" else "a1")
        assert "may resign at its own turn" in browser.error(kind="resign", seat=0)
        assert "not seat 0's turn" in browser.error(kind="hint", seat=0)
        assert browser.until("table", lambda m: bool(m["views"][0]["legal"]))["views"][0]["notation"] != notation
        browser.close()


def test_the_hint_searches_the_persons_own_view_and_shows_its_top_moves(client: TestClient) -> None:
    table = open_table(client, "just4fun_colours", [person(), bot("greedy")], start=0)
    browser = Browser(client, table["table"], table["ticket"])
    browser.send(kind="hint", seat=0)
    done = browser.until("progress", lambda m: m["search"] == "hint" and m["done"])
    legal = browser.view()["legal"]
    assert done["best"] in legal and done["top"] and {t["move"] for t in done["top"]} <= set(legal)
    assert done["iterations"] > 0
    hinted = browser.until("table", lambda m: m["views"][0]["hint"] is not None)
    assert hinted["views"][0]["hint"] == done["best"]
    browser.send(kind="analyse", seat=0)
    assert "running already" in browser.error(kind="hint", seat=0)
    browser.send(kind="stop", seat=0)
    stopped = browser.until("progress", lambda m: m["search"] == "analysis" and m["done"])
    assert stopped["seconds"] < FAST.max_time_ms / 1000
    browser.send(kind="move", seat=0, move=legal[0])
    moved = browser.until("table", lambda m: not m["views"][0]["legal"] or m["views"][0]["hint"] is None)
    assert moved["views"][0]["hint"] is None
    browser.close()


def test_undo_takes_back_the_persons_move_and_draws_chance_afresh(client: TestClient) -> None:
    table = open_table(client, "just4fun_colours", [person(), bot("greedy")], start=0, seed=11)
    browser = Browser(client, table["table"], table["ticket"])
    assert not browser.table["undo"]
    first = browser.view()
    browser.send(kind="move", seat=0, move=first["legal"][0])
    mine_again = browser.until("table", lambda m: bool(m["views"][0]["legal"]))
    assert mine_again["undo"]
    browser.send(kind="undo")
    undone = browser.until("table", lambda m: m["views"][0]["notation"] == first["notation"])
    assert undone["views"][0]["log"] == first["log"] and not undone["undo"]
    since_undo = len(browser.frames) - 1
    rng = random.Random(2)
    last = play_out(browser, rng)
    record = GameRecord.from_json(last["record"])
    replay(record)
    check_frames(browser.frames[since_undo:], record, {0})  # the game taken back is not in the record
    browser.close()


def test_resign_ends_the_game_with_a_recorded_adjudication(client: TestClient, tmp_path: Path) -> None:
    table = open_table(client, "canasta_tiles", [person("Ana"), bot("random"), bot("random"), bot("random")], starter=1)
    browser = Browser(client, table["table"], table["ticket"])
    if not browser.view()["legal"]:
        assert "at its own turn" in browser.error(kind="resign", seat=0)
        browser.until("table", lambda m: bool(m["views"][0]["legal"]))
    browser.send(kind="resign", seat=0)
    over = browser.until("table", lambda m: m["over"])
    record = GameRecord.from_json(over["record"])
    assert record.adjudication == {"seat": 0, "label": "person:Ana", "reason": "resigned", "phase": "decision"}
    assert record.returns[0] == 0 and record.returns[2] == 0 and record.returns[1] == 1.0  # partners share
    path = tmp_path / "resigned.jsonl"
    path.write_text(over["record"] + "\n")
    assert main(["replay", str(path)]) == 0
    assert "game is over" in browser.error(kind="resign", seat=0)
    browser.close()


def test_two_browsers_at_one_table_each_see_their_own_seat(client: TestClient) -> None:
    table = open_table(client, "just4fun_colours", [person("Ana"), {"kind": "invite", "name": "Ben"}, bot("greedy")], players=3, seed=8)
    assert [i["seat"] for i in table["invites"]] == [1]
    host = Browser(client, table["table"], table["ticket"])
    assert host.table["invites"][0]["ticket"] == table["invites"][0]["ticket"]
    guest = Browser(client, table["table"], table["invites"][0]["ticket"])
    assert guest.table["held"] == [1] and "invites" not in guest.table
    assert [v["seat"] for v in guest.table["views"]] == [1]
    assert "does not play seat 0" in guest.error(kind="move", seat=0, move="a1")
    assert not host.table["undo"]
    assert "another browser plays here" in host.error(kind="undo")
    rng = random.Random(3)
    answered: dict[int, int] = {}
    while not host.table["over"]:
        for k, browser in enumerate((host, guest)):
            view = deciding(browser.table)
            if view and answered.get(k) != len(view["log"]):
                answered[k] = len(view["log"])
                browser.send(kind="move", seat=view["seat"], move=rng.choice(view["legal"]))
        host.until("table")  # every change reaches both browsers
        sync(guest, host)
    record = GameRecord.from_json(host.table["record"])
    check_frames(host.frames, record, {0})
    check_frames(guest.frames, record, {1})
    host.close()
    guest.close()


def sync(browser: Browser, leader: Browser) -> None:
    """Reads the browser's frames until it is where ``leader`` is."""
    while len(browser.view()["log"]) < len(leader.view()["log"]) or browser.table["over"] != leader.table["over"]:
        browser.until("table")


def test_hot_seat_one_browser_holds_every_person_seat_and_may_undo(client: TestClient) -> None:
    table = open_table(client, "yak", [person("Ana"), person("Ben"), bot("greedy")], players=3, seed=5)
    browser = Browser(client, table["table"], table["ticket"])
    assert browser.table["held"] == [0, 1] and [v["seat"] for v in browser.table["views"]] == [0, 1]
    first = browser.table
    assert all(v["legal"] for v in first["views"])  # Sunrise: both choose in secret
    browser.send(kind="move", seat=0, move=first["views"][0]["legal"][0])
    chosen = browser.until("table", lambda m: m["views"][0]["chosen"] is not None)
    assert not chosen["views"][0]["legal"] and chosen["views"][1]["legal"] and 1 in chosen["views"][1]["waiting"]
    assert chosen["undo"]
    browser.send(kind="undo")
    back = browser.until("table", lambda m: m["views"][0]["chosen"] is None)
    assert back["views"][0]["legal"]
    last = play_out(browser, random.Random(9))
    record = GameRecord.from_json(last["record"])
    check_frames(browser.frames, record, {0, 1})
    browser.close()


def test_rematch_rotates_the_seats_and_new_game_keeps_them(client: TestClient) -> None:
    table = open_table(client, "yucata", [person("Ana"), bot("random")], start=0)
    browser = Browser(client, table["table"], table["ticket"])
    play_out(browser, random.Random(1))
    browser.send(kind="rematch")
    moved = browser.until("moved")
    assert moved["table"] != table["table"]
    again = Browser(client, moved["table"], moved["ticket"])
    assert again.table["held"] == [1] and [s["name"] for s in again.table["seats"]] == ["random", "Ana"]
    browser.send(kind="rematch")
    assert browser.until("moved")["table"] == moved["table"]  # one rematch, however often it is asked for
    play_out(again, random.Random(2))
    again.send(kind="new")
    same = again.until("moved")
    third = Browser(client, same["table"], same["ticket"])
    assert third.table["held"] == [1]
    for b in (browser, again, third):
        b.close()


def test_closing_the_tab_stops_the_search_within_a_second() -> None:
    limits = replace(FAST, max_time_ms=20_000)
    with serving(limits) as test_client:
        app = test_client.app
        table = open_table(test_client, "just4fun_colours", [person(), bot("ismcts:time_ms=15000")], start=1)
        browser = Browser(test_client, table["table"], table["ticket"])
        browser.until("progress")
        room = app.state.hall.rooms[table["table"]]
        assert room.searches
        browser.close()
        started = time.monotonic()
        while room.searches and time.monotonic() - started < 3:
            time.sleep(0.05)
        assert not room.searches and time.monotonic() - started < 1.0


def test_other_tables_keep_playing_while_a_bot_thinks(client: TestClient) -> None:
    slow = open_table(client, "just4fun_colours", [person(), bot("ismcts:time_ms=4000")], start=1)
    thinking = Browser(client, slow["table"], slow["ticket"])
    thinking.until("progress")
    quick = open_table(client, "yucata", [person(), bot("greedy")], start=0)
    browser = Browser(client, quick["table"], quick["ticket"])
    started = time.monotonic()
    for _ in range(3):
        view = browser.view()
        moves = len(view["log"])
        browser.send(kind="move", seat=0, move=view["legal"][0])
        browser.until("table", lambda m, moves=moves: len(m["views"][0]["log"]) >= moves + 2)
    assert time.monotonic() - started < 2.0
    assert thinking.view()["legal"] == []  # still thinking
    thinking.close()
    browser.close()


# -- replay ------------------------------------------------------------------------------------


def finished(game: str, players: int, seed: int = 6) -> GameRecord:
    return kibitz.play_game(kibitz.Game(game, players=players), ["random"] * players, seed=seed)


def test_replay_steps_through_a_record_from_each_seat_or_open(client: TestClient) -> None:
    record = finished("just4fun_colours", 2)
    text = record.to_json() + "\n" + finished("yucata", 2).to_json() + "\n"
    first = client.post("/api/replay", json={"record": text, "step": 0, "seat": 0}).json()
    assert first["records"] == 2 and first["step"] == 0 and first["model"]["replay"] and first["model"]["seat"] == 0
    steps = first["steps"]
    seen = {v.notation for v in expected_views(record, 1)}
    for step in range(steps):
        model = client.post("/api/replay", json={"record": text, "step": step, "seat": 1}).json()["model"]
        assert model["notation"] in seen and model["legal"] == []
        assert model_seen({**model, "legal": []}) in expected_views(record, 1)
    end = client.post("/api/replay", json={"record": text, "step": 10**9, "seat": None}).json()
    assert end["step"] == steps - 1 and end["model"]["seat"] is None and end["model"]["terminal"]
    assert end["model"]["returns"] == record.returns and "?" not in end["model"]["fields"]["hands"]
    other = client.post("/api/replay", json={"record": text, "index": 1}).json()
    assert other["model"]["game"] == "yucata"


@pytest.mark.parametrize(
    "body, named",
    [
        ({"record": "not a record"}, "not a game record"),
        ({"record": ""}, "holds no record"),
        ({"record": "{}"}, "missing field"),
        ({"record": "[" * 100_000 + "]" * 100_000}, "not a game record"),
        ({"record": 5}, "'record'"),
        ({"step": 1}, "'record'"),
        ({"record": "RECORD", "index": 3}, "does not exist"),
        ({"record": "RECORD", "step": -1}, "'step'"),
        ({"record": "RECORD", "step": "2"}, "'step'"),
        ({"record": "RECORD", "seat": 5}, "does not exist"),
        ({"record": "TAMPERED"}, "does not replay"),
    ],
)
def test_a_bad_record_is_a_clear_error(client: TestClient, body: dict[str, Any], named: str) -> None:
    record = finished("yucata", 2)
    good = record.to_json()
    tampered = GameRecord(**{**record.__dict__, "returns": [0.5, 0.5]}).to_json()
    body = {k: (good if v == "RECORD" else tampered if v == "TAMPERED" else v) for k, v in body.items()}
    response = client.post("/api/replay", json=body)
    assert response.status_code == 400 and named in response.json()["error"], response.json()


def test_an_upload_beyond_the_limit_is_refused() -> None:
    limits = replace(FAST, max_upload_bytes=200)
    with serving(limits) as test_client:
        response = test_client.post("/api/replay", json={"record": finished("yucata", 2).to_json()})
        assert response.status_code == 413 and "--max-upload-bytes" in response.json()["error"]


# -- the operator's limits and kibitz serve ------------------------------------------------------


def test_bot_specs_within_the_limits() -> None:
    limits = Limits(max_iterations=1000, max_threads=1, hint_bot="ismcts:iterations=100")
    assert check_bot_spec(" greedy ", limits) == "greedy"
    assert check_bot_spec("ismcts:iterations=1000", limits) == "ismcts:iterations=1000"
    for spec, named in [("ismcts", "iterations=10000"), ("ismcts:iterations=500,threads=2", "threads=2")]:
        with pytest.raises(LimitError, match=named):
            check_bot_spec(spec, limits)
    # plug-ins: the shipped examples load, any module not allowed is refused before it is imported
    assert check_bot_spec("ismcts:iterations=100,plugin=kibitz.plugins.yak", limits) == "ismcts:iterations=100,plugin=kibitz.plugins.yak"
    with pytest.raises(OptionError, match="plug-in 'os' is not allowed.*--allow-plugin"):
        check_bot_spec("ismcts:iterations=100,plugin=os", limits)
    with pytest.raises(LimitError, match="iterations=20000"):  # the top level, the strong preset
        check_bot_spec(kibitz.levels.levels("yucata", 2)[-1].spec, limits, game=kibitz.Game("yucata", players=2))
    with pytest.raises(LimitError, match="a difficulty level is a search of one game"):
        check_bot_spec("level=1", limits)
    assert check_bot_spec("level=1", limits, game=kibitz.Game("yucata", players=2)) == "level=1"
    with pytest.raises(LimitError, match="--max-time-ms: -1 is negative"):
        Limits(max_time_ms=-1)
    with pytest.raises(LimitError, match="hint bot"):
        Limits(hint_bot="ismcts:iterations=10000000")
    for spec in ("uct:iterations=100", "greedy"):
        with pytest.raises(LimitError, match="searches the person's view"):
            Limits(hint_bot=spec)


def test_serve_help_documents_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    text = capsys.readouterr().out
    for flag in ("--host", "--port", "--open", "--max-iterations", "--max-time-ms", "--max-threads", "--max-memory-mb", "--hint-bot",
                 "--max-tables", "--max-tables-per-client", "--idle-seconds", "--max-message-bytes", "--messages-per-second",
                 "--max-upload-bytes", "--move-pause-ms"):
        assert flag in text, flag


def test_serve_binds_locally_and_warns_when_exposed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: served.append((self.config, sockets)))
    assert main(["serve", "--port", "0"]) == 0
    out = capsys.readouterr()
    assert "http://127.0.0.1:" in out.out and "warning" not in out.err
    _, sockets = served[-1]
    assert sockets[0].getsockname()[0] == "127.0.0.1"
    sockets[0].close()
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 0
    assert "warning: serving on 0.0.0.0" in capsys.readouterr().err
    served[-1][1][0].close()
    assert main(["serve", "--max-iterations", "-5"]) == 2
    assert "negative" in capsys.readouterr().err


def test_static_files_ship_inside_the_package() -> None:
    assert STATIC == Path(kibitz.__file__).parent / "web" / "static"
    assert (STATIC / "index.html").is_file() and (STATIC / "games" / "yucata.js").is_file()
