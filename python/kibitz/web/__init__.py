"""``kibitz serve``: a game table in the browser (docs/web.md).

:func:`create_app` is the Starlette app (kibitz.web.server); :func:`serve` runs it with uvicorn.
The page is plain ES modules and SVG in ``static/``, shipped inside the package; each game's view
module follows docs/web-views.md.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from kibitz.web.limits import Limits

if TYPE_CHECKING:  # the app's modules load with the server, not with `import kibitz.web`
    from starlette.applications import Starlette

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_FRAME_BYTES = 1 << 20  # uvicorn closes a connection whose frame is larger; the app refuses above Limits.max_message_bytes

__all__ = ["Limits", "create_app", "serve"]


def create_app(limits: Limits | None = None, allowed_hosts: list[str] | None = None) -> Starlette:
    """The Starlette app (see kibitz.web.server.create_app)."""
    from kibitz.web.server import create_app as create

    return create(limits, allowed_hosts)


def serve(host: str = "127.0.0.1", port: int = 8000, limits: Limits | None = None, open_browser: bool = False) -> None:
    """Runs the server until interrupted. Bound to a local address, it answers only requests
    naming that address (against DNS rebinding); ``--host`` with another address exposes the
    tables to the network and prints a warning. Port 0 takes a free port (the URL printed says
    which). Raises OSError when the address cannot be bound."""
    import socket

    import uvicorn

    local = host in LOCAL_HOSTS
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise OSError(err.errno, f"cannot listen on {host} port {port}: {err.strerror}") from None
    port = sock.getsockname()[1]
    app = create_app(limits, [*LOCAL_HOSTS, "[::1]"] if local else None)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"
    if not local:
        print(
            f"warning: serving on {host}: anyone who can reach this address may open tables and make this machine's bots "
            "think (within the limits); there is no login and no encryption",
            file=sys.stderr,
        )
    print(f"kibitz table: {url}  (Ctrl-C stops)", flush=True)
    if open_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", ws_max_size=MAX_FRAME_BYTES, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
