"""The web server of ``kibitz serve``: a Starlette app with the page, the lobby's API, the replay
API and the WebSocket through which a browser plays at a table (docs/web.md).

A :class:`Room` is a :class:`~kibitz.web.table.Table` with the browsers at it and its searches.
Bots and hints search in worker threads (``State.search`` releases the GIL), never on the event
loop, so that every other table keeps playing; a search reports its progress through a
``SearchProgress`` read every quarter second and stops through a ``StopFlag``: when its answer is
no longer wanted (undo, resignation), at the operator's time limit, and when no browser is left
at the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from kibitz.errors import OptionError, shown
from kibitz.game import Game, SearchProgress, StopFlag, games
from kibitz.match import derive_seed
from kibitz.web.limits import LimitError, Limits, check_bot_spec, flag
from kibitz.web.lobby import game_list, read_options, read_seats, read_seed
from kibitz.web.table import Job, Table, TableError, build_model, read_record, replay_steps

STATIC = Path(__file__).parent / "static"
logger = logging.getLogger(__name__)
PROGRESS_SECONDS = 0.25  # how often a running search's progress is sent
TOP_MOVES = 5  # moves of a search shown in the analysis panel (the protocol's multipv)
FLOOD_CLOSE = 100  # messages refused for the rate in a row before the connection is closed
CLOSE_POLICY = 1008  # WebSocket close code: policy violation
SECURITY_HEADERS = [
    # nothing from other hosts: scripts, styles, images and connections from this origin only
    (
        b"content-security-policy",
        (
            b"default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
            b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
KINDS = ("join", "move", "hint", "analyse", "stop", "undo", "resign", "rematch", "new")


class Refused(ValueError):
    """A browser's message the server refuses; its text goes back as an ``error`` message."""


@dataclass
class Running:
    """A search in a worker thread."""

    job: Job
    stop: StopFlag
    progress: SearchProgress
    started: float


class Bucket:
    """A token bucket: ``rate`` messages a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.time = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.time) * self.rate)
        self.time = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Connection:
    """One browser's WebSocket, at one table at a time, holding the seats of its ticket."""

    def __init__(self, websocket: WebSocket, limits: Limits) -> None:
        self.websocket = websocket
        self.room: Room | None = None
        self.ticket = ""
        self.seats: frozenset[int] = frozenset()
        self.bucket = Bucket(limits.messages_per_second, limits.burst)
        self.refused_in_a_row = 0
        self._lock = asyncio.Lock()
        self.open = True

    async def send(self, message: dict[str, Any]) -> None:
        if not self.open:
            return
        async with self._lock:
            try:
                await self.websocket.send_text(json.dumps(message, separators=(",", ":")))
            except Exception:  # noqa: BLE001  (whatever the closed socket raises) the browser went away; the receive loop ends it
                self.open = False


class Room:
    """A table, the browsers at it, and its searches."""

    def __init__(self, hall: Hall, table: Table, client: str, tickets: dict[str, frozenset[int]], creator: str) -> None:
        self.hall = hall
        self.id = secrets.token_urlsafe(12)
        self.table = table
        self.client = client
        self.tickets = tickets
        self.creator = creator  # the ticket of the browser that set the table up: it sees the invite links
        self.connections: set[Connection] = set()
        self.searches: dict[tuple[str, int], Running] = {}
        self.idle_since = time.monotonic()
        self.next: tuple[Room, dict[str, str]] | None = None  # the rematch or new game, and the tickets there
        self.wake = asyncio.Event()
        self.runner: asyncio.Task[None] | None = None
        self.hints = 0

    # -- browsers ----------------------------------------------------------------------------
    def held(self) -> set[int]:
        return {seat for c in self.connections for seat in c.seats}

    async def enter(self, connection: Connection) -> None:
        self.connections.add(connection)
        if self.runner is None:
            self.runner = asyncio.get_running_loop().create_task(self._run())
        self.wake.set()
        await self.broadcast()

    async def leave(self, connection: Connection) -> None:
        self.connections.discard(connection)
        held = self.held()
        for (kind, seat), running in list(self.searches.items()):
            if not self.connections or (kind != "bot" and seat not in held):
                running.stop.set()  # nobody left to see it: stopped within a quarter second
        if not self.connections:
            self.idle_since = time.monotonic()
        else:
            await self.broadcast()

    def close(self) -> None:
        for running in self.searches.values():
            running.stop.set()
        if self.runner is not None:
            self.runner.cancel()

    # -- what a browser receives ---------------------------------------------------------------
    def message(self, connection: Connection) -> dict[str, Any]:
        table = self.table
        held = set(connection.seats)
        connected = self.held()
        seats = [
            {"seat": i, "name": s.name, "kind": s.kind, "spec": s.spec, "connected": i in connected or not s.person}
            for i, s in enumerate(table.seats)
        ]
        message: dict[str, Any] = {
            "kind": "table",
            "table": self.id,
            "game": table.game.name,
            "options": dict(table.game.options),
            "players": table.players,
            "seats": seats,
            "held": sorted(held),
            "views": [self.model(seat, held) for seat in sorted(held)],
            "over": table.over,
            "undo": table.can_undo(held),
            "thinking": [{"seat": seat, "kind": kind} for kind, seat in self.searches if kind == "bot" or seat in held],
            "next": None,
        }
        if table.over:
            message["open"] = self.model(None, held)
            message["record"] = table.record().to_json()
        if connection.ticket == self.creator:
            message["invites"] = [
                {"seat": min(seats_), "name": table.seats[min(seats_)].name, "ticket": ticket}
                for ticket, seats_ in self.tickets.items()
                if ticket != self.creator
            ]
        return message

    def model(self, seat: int | None, held: set[int]) -> dict[str, Any]:
        return self.table.model(seat, held)

    async def broadcast(self) -> None:
        await asyncio.gather(*(c.send(self.message(c)) for c in list(self.connections)))

    async def tell(self, seats: set[int] | None, message: dict[str, Any]) -> None:
        """``message`` to the browsers holding one of ``seats`` (None: every browser)."""
        await asyncio.gather(*(c.send(message) for c in list(self.connections) if seats is None or c.seats & seats))

    # -- requests -------------------------------------------------------------------------------
    async def handle(self, connection: Connection, kind: str, data: dict[str, Any]) -> None:
        table = self.table
        held = set(connection.seats)
        if kind in ("move", "hint", "analyse", "stop", "resign"):
            seat = _seat(data, table.players)
            if seat not in held:
                raise Refused(f"this browser does not play seat {seat}")
        if kind == "move":
            if "move" not in data:
                raise Refused("a move message needs 'move': the move's text")
            table.play(seat, data["move"])
            self._stop_help()
            self.wake.set()
            await self.broadcast()
        elif kind in ("hint", "analyse"):
            await self._help(seat, "hint" if kind == "hint" else "analysis")
        elif kind == "stop":
            for (what, searched), running in self.searches.items():
                if what != "bot" and searched == seat:
                    running.stop.set()
        elif kind == "undo":
            table.undo(held)
            self._stop_all()
            self.wake.set()
            await self.broadcast()
        elif kind == "resign":
            table.resign(seat)
            self._stop_all()
            await self.broadcast()
        elif kind in ("rematch", "new"):
            if not table.over:
                raise Refused(f"{'a rematch' if kind == 'rematch' else 'a new game'} starts once this game is over")
            await self._next(kind == "rematch")

    def _stop_all(self) -> None:
        for running in self.searches.values():
            running.stop.set()

    def _stop_help(self) -> None:
        """Stops the hints and analyses: a move made them stale."""
        for (what, _), running in self.searches.items():
            if what != "bot":
                running.stop.set()

    async def _help(self, seat: int, kind: str) -> None:
        if (kind, seat) in self.searches or ("hint" if kind == "analysis" else "analysis", seat) in self.searches:
            raise Refused(f"a search for seat {seat} is running already")
        self.hints += 1
        limits = self.hall.limits
        spec = limits.hint_bot if kind == "hint" else analysis_spec(limits)
        job = self.table.search_job(seat, kind, spec, derive_seed(self.table.seed, "hint", self.hints))  # type: ignore[arg-type]
        asyncio.get_running_loop().create_task(self._help_task(job))

    async def _help_task(self, job: Job) -> None:
        move = await self.search(job, {job.seat})
        if isinstance(move, Exception):
            await self.tell({job.seat}, {"kind": "error", "message": f"no {job.kind}: {move}"})
        elif self.table.hinted(job, move):
            await self.broadcast()

    # -- searches -------------------------------------------------------------------------------
    async def search(self, job: Job, audience: set[int] | None) -> str | Exception:
        """Runs ``job`` in a worker thread, telling its progress to the browsers of ``audience``
        (None: every browser); its move, or the exception it raised."""
        loop = asyncio.get_running_loop()
        running = Running(job, StopFlag(), SearchProgress(), time.monotonic())
        key = (job.kind, job.seat)
        self.searches[key] = running
        limit = loop.call_later(self.hall.limits.max_time_ms / 1000, running.stop.set)
        future = loop.run_in_executor(self.hall.executor, job.run, running.stop, running.progress)
        if not self.connections:
            running.stop.set()
        try:
            while True:
                done, _ = await asyncio.wait({future}, timeout=PROGRESS_SECONDS)
                if done:
                    break
                if job.searching:
                    await self.tell(audience, self._progress(running, audience, None))
            try:
                move = future.result()
            except Exception as err:  # noqa: BLE001  a bot's or the search's error, whatever it is: the caller decides
                return err
            if job.searching:
                await self.tell(audience, self._progress(running, audience, move))
            return move
        finally:
            limit.cancel()
            if self.searches.get(key) is running:
                del self.searches[key]

    def _progress(self, running: Running, audience: set[int] | None, move: str | None) -> dict[str, Any]:
        """A search's progress: iterations and time for everyone; its top moves with their
        values and visits only to the searching seat's own browser, or to every browser in a
        game of perfect information (in a hidden-hand game a bot's candidates reveal its hand)."""
        job = running.job
        message: dict[str, Any] = {
            "kind": "progress",
            "seat": job.seat,
            "search": job.kind,
            "iterations": running.progress.iterations,
            "seconds": round(time.monotonic() - running.started, 2),
            "done": move is not None,
        }
        if audience is not None or self.table.game.perfect_information:
            result = job.final() if move is not None else None
            if result is not None:  # the finished search's own statistics
                message["iterations"] = result.iterations
                top = [(s.move, s.visits, s.mean_reward) for s in result.stats[:TOP_MOVES]]
            else:
                top = [(job.move_name(s.action), s.visits, s.mean_reward) for s in running.progress.root_stats()[:TOP_MOVES]]
            message["top"] = [{"move": m, "visits": visits, "value": round(value, 4)} for m, visits, value in top]
            if move is not None:
                message["best"] = move
        return message

    async def _run(self) -> None:
        """Plays the bots' decisions in turn while a browser is at the table. A failure of the
        server's own (not a bot's: that is the bot's forfeit) stops this table, says so to its
        browsers, and leaves the other tables alone."""
        try:
            await self._play_bots()
        except asyncio.CancelledError:
            raise
        except Exception as err:  # whatever it is, the other tables play on
            logger.exception("table %s stopped", self.id)
            await self.tell(None, {"kind": "error", "message": f"this table stopped on a server error: {err}"})

    async def _play_bots(self) -> None:
        pause = self.hall.limits.move_pause_ms / 1000
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.connections:
                seats = self.table.bots_to_act()
                if not seats:
                    break
                job = self.table.bot_job(seats[0])
                move = await self.search(job, None)
                if isinstance(move, Exception):
                    changed = self.table.bot_failed(job, move)
                else:
                    changed = self.table.bot_played(job, move)
                if changed:
                    await self.broadcast()
                    if pause and not self.table.over:
                        await asyncio.sleep(pause)

    async def _next(self, rotate: bool) -> None:
        """The rematch (seats rotated by one) or a new game with the same seats: a new table,
        to which every browser here moves with its ticket there."""
        if self.next is None:
            table = self.table
            n = table.players
            order = [(i - 1) % n for i in range(n)] if rotate else list(range(n))  # who sits at new seat i
            seats = [table.seats[order[i]] for i in range(n)]
            new = Table(table.game, seats, secrets.randbits(63), table.hint_bot)
            moved = {old: secrets.token_urlsafe(16) for old in self.tickets}
            tickets = {moved[old]: frozenset((s + 1) % n if rotate else s for s in seats_) for old, seats_ in self.tickets.items()}
            room = self.hall.add(new, self.client, tickets, moved[self.creator])
            self.next = (room, moved)
        room, moved = self.next
        await asyncio.gather(*(c.send({"kind": "moved", "table": room.id, "ticket": moved[c.ticket]}) for c in list(self.connections)))


def analysis_spec(limits: Limits) -> str:
    """The analysis button's search: the hint's bot with the operator's largest budget."""
    name, _, rest = limits.hint_bot.partition(":")
    keep = [item for item in rest.split(",") if item and item.split("=")[0] not in ("iterations", "time_ms", "time", "movetime")]
    return f"{name}:{','.join([*keep, f'iterations={limits.max_iterations}', f'time_ms={limits.max_time_ms}'])}"


def _seat(data: dict[str, Any], players: int) -> int:
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise Refused(f"'seat' must be a seat number 0..{players - 1}, got {shown(seat)}")
    if not 0 <= seat < players:
        raise Refused(f"seat {shown(seat)} does not exist; seats are 0..{players - 1}")
    return seat


class Hall:
    """Every table of the server."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.rooms: dict[str, Room] = {}
        self.executor = ThreadPoolExecutor(max_workers=2 * limits.max_tables + 2, thread_name_prefix="kibitz-search")

    def add(self, table: Table, client: str, tickets: dict[str, frozenset[int]], creator: str) -> Room:
        self._make_room_for(client)
        room = Room(self, table, client, tickets, creator)
        self.rooms[room.id] = room
        return room

    def _make_room_for(self, client: str) -> None:
        """Closes tables idle too long; then, if the client (or the server) is at its limit, the
        client's oldest table without a browser, or refuses."""
        now = time.monotonic()
        for room in [r for r in self.rooms.values() if not r.connections and now - r.idle_since > self.limits.idle_seconds]:
            self.remove(room)
        mine = sorted((r for r in self.rooms.values() if r.client == client), key=lambda r: r.idle_since)
        if len(mine) >= self.limits.max_tables_per_client:
            idle = [r for r in mine if not r.connections]
            if not idle:
                raise LimitError(
                    f"too many tables: this server allows {self.limits.max_tables_per_client} open tables per browser address "
                    f"({flag('max_tables_per_client')}); close one first"
                )
            self.remove(idle[0])
        if len(self.rooms) >= self.limits.max_tables:
            idle = sorted((r for r in self.rooms.values() if not r.connections), key=lambda r: r.idle_since)
            if not idle:
                raise LimitError(f"the server is full: {self.limits.max_tables} tables are open ({flag('max_tables')})")
            self.remove(idle[0])

    def remove(self, room: Room) -> None:
        room.close()
        self.rooms.pop(room.id, None)

    def create(self, data: Any, client: str) -> dict[str, Any]:
        """A new table from the lobby's request; raises OptionError (LimitError) naming what is wrong."""
        if not isinstance(data, dict):
            raise OptionError("expected a JSON object with game, options, seats and seed")
        unknown = sorted(set(data) - {"game", "options", "seats", "seed"})
        if unknown:
            raise OptionError(f"unknown field {shown(unknown[0])}; a table takes game, options, seats and seed")
        name = data.get("game")
        known = {info.name for info in games()}
        if not isinstance(name, str) or name not in known:
            raise OptionError(f"unknown game {shown(name)}; games: {', '.join(sorted(known))}")
        game = Game(name, **read_options(data.get("options", {})))
        seats = read_seats(data.get("seats"), game.num_players, lambda spec: check_bot_spec(spec, self.limits, game=game))
        seed = read_seed(data.get("seed"))
        table = Table(game, seats, secrets.randbits(63) if seed is None else seed, self.limits.hint_bot)
        mine = frozenset(i for i, s in enumerate(seats) if s.kind == "person")
        creator = secrets.token_urlsafe(16)
        tickets = {creator: mine}
        invites = []
        for i, seat in enumerate(seats):
            if seat.kind == "invite":
                ticket = secrets.token_urlsafe(16)
                tickets[ticket] = frozenset([i])
                invites.append({"seat": i, "name": seat.name, "ticket": ticket})
        room = self.add(table, client, tickets, creator)
        return {"table": room.id, "ticket": creator, "invites": invites}

    def find(self, table: Any, ticket: Any) -> tuple[Room, frozenset[int]]:
        room = self.rooms.get(table) if isinstance(table, str) else None
        seats = room.tickets.get(ticket) if room is not None and isinstance(ticket, str) else None
        if room is None or seats is None:
            raise Refused("no such table, or the link's ticket is not one of this table's (ask for a new link)")
        return room, seats

    def shutdown(self) -> None:
        for room in list(self.rooms.values()):
            self.remove(room)
        self.executor.shutdown(wait=False, cancel_futures=True)


# -- HTTP ---------------------------------------------------------------------------------------


class SecurityHeaders:
    """Adds the security headers (SECURITY_HEADERS) to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, with_headers)


def same_origin(headers: Any) -> bool:
    """A request from this server's own page, or from no page at all (a script, a test): its
    Origin, if any, names the host the request was sent to. Stops another site's page from
    opening tables or WebSockets here through the visitor's browser."""
    origin = headers.get("origin")
    return origin is None or urlsplit(origin).netloc == headers.get("host")


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (Refused) beyond ``limit`` bytes, read no further than that."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise Refused(f"too large: {int(declared)} bytes; this server takes at most {limit} ({flag('max_upload_bytes')})")
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise Refused(f"too large: more than {limit} bytes ({flag('max_upload_bytes')})")
    return bytes(body)


async def read_json(request: Request, limit: int) -> Any:
    body = await read_body(request, limit)
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise Refused(f"the request is not JSON: {err}") from None


def create_app(limits: Limits | None = None, allowed_hosts: list[str] | None = None) -> Starlette:
    """The app ``kibitz serve`` runs. ``allowed_hosts``: the Host header values accepted (the
    names of the address bound, against DNS rebinding); None accepts any."""
    limits = limits or Limits()
    hall = Hall(limits)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    @functools.cache
    def lobby() -> dict[str, Any]:  # read once: the parameter sets and view modules of this run
        folder = STATIC / "games"
        return game_list(limits, {p.stem for p in folder.glob("*.js")}, {p.stem for p in folder.glob("*.css")})

    async def game_info(request: Request) -> Response:
        return JSONResponse(await asyncio.to_thread(lobby))

    async def new_table(request: Request) -> Response:
        if not same_origin(request.headers):
            return error("a table is opened from this server's own page", 403)
        try:
            data = await read_json(request, limits.max_message_bytes * 4)
            created = hall.create(data, request.client.host if request.client else "")
        except (Refused, OptionError, ValueError) as err:
            return error(str(err), 413 if "too large" in str(err) else 400)
        return JSONResponse(created)

    async def replay_step(request: Request) -> Response:
        """One position of a record: ``{"record": text, "index": i, "step": n, "seat": s or null}``."""
        try:
            data = await read_json(request, limits.max_upload_bytes)
            return JSONResponse(await asyncio.to_thread(replay_model, data))  # a long record does not hold up the tables
        except (Refused, ValueError) as err:
            return error(str(err), 413 if "too large" in str(err) else 400)

    async def socket(websocket: WebSocket) -> None:
        if not same_origin(websocket.headers):
            await websocket.close(code=CLOSE_POLICY)
            return
        await websocket.accept()
        connection = Connection(websocket, limits)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not await _receive(hall, connection, message):
                    await websocket.close(code=CLOSE_POLICY)
                    break
        except WebSocketDisconnect:
            pass
        finally:
            connection.open = False
            if connection.room is not None:
                await connection.room.leave(connection)

    routes = [
        Route("/", index),
        Route("/api/games", game_info),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/replay", replay_step, methods=["POST"]),
        WebSocketRoute("/ws", socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        hall.shutdown()

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.hall = hall
    return app


async def _receive(hall: Hall, connection: Connection, message: Message) -> bool:
    """Handles one WebSocket message; an error goes back to the browser as an ``error``
    message and changes nothing. False when the connection should be closed (a flood)."""
    limits = hall.limits
    try:
        if not connection.bucket.take():
            connection.refused_in_a_row += 1
            if connection.refused_in_a_row >= FLOOD_CLOSE:
                return False
            raise Refused(f"too many messages: this server takes {limits.messages_per_second:g} a second; slow down")
        connection.refused_in_a_row = 0
        text = message.get("text")
        if text is None:
            raise Refused("messages are JSON text, not binary")
        if len(text.encode("utf-8", "replace")) > limits.max_message_bytes:
            raise Refused(f"message too large: more than {limits.max_message_bytes} bytes")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:  # RecursionError: arrays nested thousands deep
            raise Refused(f"a message is a JSON object; this is not JSON ({err})") from None
        if not isinstance(data, dict):
            raise Refused(f"a message is a JSON object with a 'kind', got {type(data).__name__}")
        kind = data.get("kind")
        if kind not in KINDS:
            raise Refused(f"unknown message kind {shown(kind)}; kinds: {', '.join(KINDS)}")
        if kind == "join":
            room, seats = hall.find(data.get("table"), data.get("ticket"))
            if connection.room is not None:
                await connection.room.leave(connection)
            connection.room, connection.ticket, connection.seats = room, data["ticket"], seats
            await room.enter(connection)
            return True
        if connection.room is None:
            raise Refused("join a table first")
        await connection.room.handle(connection, kind, data)
    except (Refused, TableError, OptionError, ValueError) as err:
        await connection.send({"kind": "error", "message": str(err), "about": message.get("text", "")[:80] if isinstance(message.get("text"), str) else ""})
    return True


def replay_model(data: Any) -> dict[str, Any]:
    """A replay position: the record's step ``step`` as ``seat`` saw it, or open (``seat`` null)."""
    if not isinstance(data, dict) or not isinstance(data.get("record"), str):
        raise Refused("expected a JSON object with 'record' (the record file's text), 'step' and 'seat'")
    index = data.get("index", 0)
    step = data.get("step", 0)
    for name, value in (("index", index), ("step", step)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise Refused(f"{name!r} must be a whole number from 0, got {shown(value)}")
    record, count = read_record(data["record"], index)
    steps = replay_steps(record)
    seat = data.get("seat")
    players = len(record.specs)
    if seat is not None:
        seat = _seat(data, players)
    step = min(step, len(steps) - 1)
    state, entries = steps[step]
    end = step == len(steps) - 1
    to_move = [] if state.is_terminal() or end and record.adjudication else (state.choosing_seats() or [state.current_player])
    model = build_model(
        state,
        seat,
        entries,
        names=list(record.specs),
        mine=[],
        legal=[],
        to_move=to_move,
        over=end,
        results=(record.returns, record.scores, record.ranks) if end else None,
        replaying=True,
    )
    model["options"] = dict(record.options)
    if end and record.adjudication is not None:
        model["adjudication"] = record.adjudication
    return {"records": count, "index": index, "steps": len(steps), "step": step, "seat": seat, "model": model}

