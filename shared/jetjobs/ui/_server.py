"""Serve a page with uvicorn on an address of the user's choosing: loopback unless asked.

The socket is bound before uvicorn starts, so `--port 0` prints the port the system chose, and a
port in use fails at once with a clear message. The address printed is one a browser can open
(`--host 0.0.0.0` prints the loopback address, and the machine's name for other machines).
SIGTERM and SIGINT stop the server and return normally: uvicorn's own handling re-raises the
signal after shutdown, which would kill the process before the command's cleanup (closing the
connection, stopping an embedded nats-server) runs.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
from collections.abc import Iterator

import anyio
import uvicorn
from starlette.applications import Starlette

from jetjobs._errors import ConfigError
from jetjobs.ui._access import is_loopback, new_secret


def access_token(host: str, token: str | None) -> str | None:
    """The token a server on `host` requires: none on loopback, the given or a new one elsewhere."""
    if is_loopback(host):
        return None
    return token or new_secret()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host:port` (port 0: any free port).

    Raises:
        ConfigError: the address is unusable or the port is taken.
    """
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(info[4])
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    sock.set_inheritable(True)
    return sock


_ANY_ADDRESS = ("0.0.0.0", "::", "")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def browser_url(host: str, port: int) -> str:
    """An address a browser can open for a socket bound to `host:port`.

    A socket bound to every address (`0.0.0.0`, `::`) is reached on this machine at the loopback
    address; `http://0.0.0.0:PORT/` is not an address a browser opens everywhere.
    """
    if host in _ANY_ADDRESS:
        host = "::1" if host == "::" else "127.0.0.1"
    return f"http://{_url_host(host)}:{port}/"


class _Server(uvicorn.Server):
    """uvicorn's server, leaving the signals to `serve`."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve(app: Starlette, sock: socket.socket, *, token: str | None, name: str) -> None:
    """Print the page's address (with the token, if any), then serve until SIGINT or SIGTERM."""
    host, port = sock.getsockname()[:2]
    query = f"?token={token}" if token else ""
    print(f"{name} on {browser_url(host, port)}{query}", flush=True)
    if host in _ANY_ADDRESS:
        others = f"http://{_url_host(socket.gethostname())}:{port}/{query}"
        print(f"  listening on every address: from other machines {others}", file=sys.stderr, flush=True)
    if token:
        print("  (anyone who can reach this address needs the token above)", file=sys.stderr, flush=True)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, server_header=False, proxy_headers=False, lifespan="on"
    )
    server = _Server(config)

    async def stop_on_signal() -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for _ in signals:
                server.should_exit = True
                return

    async with anyio.create_task_group() as tg:
        tg.start_soon(stop_on_signal)
        await server.serve(sockets=[sock])
        tg.cancel_scope.cancel()
