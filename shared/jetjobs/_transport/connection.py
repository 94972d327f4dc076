"""Connecting to NATS: an existing server (`NATS_URL`) or the embedded one.

With `NATS_URL` unset, the first jetjobs process starts a private nats-server with its store in
the user's data directory and writes its address to `server.url` there; other jetjobs processes
connect to that same server. It stays up while any of them is connected and stops when the last
one ends, however that one ends (`jetjobs._transport.shared_server`). The server takes only
clients that present a token generated at its start and kept beside the address
(`server.token`, mode 0600, in the 0700 store directory): the other processes of the same user
read it there, other users of the machine cannot.

The first connect fails fast and says why in one line: at once when the server refuses the
credentials, once every server of the list refused the connection or did not answer within
`connect_timeout` otherwise. Only a connection that was up reconnects without limit.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import msgspec
import nats
import nats.errors
import platformdirs
import structlog
from nats.aio.client import Client as NATS

from jetjobs._errors import ConfigError
from jetjobs._observability.redact import mask_url
from jetjobs._settings import NatsSettings
from jetjobs._transport import reader
from jetjobs._transport.connection_events import ConnectionEvents
from jetjobs._transport.shared_server import shared_embedded

log = structlog.get_logger("jetjobs.connection")


def default_store_dir() -> Path:
    """Where the embedded server keeps its JetStream store."""
    return Path(platformdirs.user_data_dir("jetjobs")) / "nats"


def _tls_context(settings: NatsSettings) -> ssl.SSLContext | None:
    if not (settings.tls_ca or settings.tls_cert):
        return None
    try:
        context = ssl.create_default_context(cafile=settings.tls_ca)
        if settings.tls_cert:
            context.load_cert_chain(settings.tls_cert, settings.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"NATS_TLS_CA/NATS_TLS_CERT/NATS_TLS_KEY: cannot load TLS files ({exc})") from None
    return context


def connection_options(settings: NatsSettings) -> dict[str, object]:
    """nats-py `connect()` options for the auth and TLS settings.

    Raises:
        ConfigError: a credentials or TLS file is missing or unreadable.
    """
    if settings.creds and not os.path.isfile(settings.creds):
        raise ConfigError(f"NATS_CREDS={settings.creds}: file not found")
    options: dict[str, object] = {
        "connect_timeout": settings.connect_timeout,
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": 0.5,
    }
    if settings.user:
        options["user"] = settings.user
        options["password"] = settings.password or ""
    if settings.token:
        options["token"] = settings.token
    if settings.creds:
        options["user_credentials"] = settings.creds
    tls = _tls_context(settings)
    if tls:
        options["tls"] = tls
    return options


class _GaveUp(Exception):
    """Raised from the error callback to stop nats-py's first-connect retry loop."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _why(exc: BaseException) -> tuple[str, bool]:
    """What a first-connect error means, and whether no retry can help (wrong credentials)."""
    text = str(exc)
    if isinstance(exc, nats.errors.AuthorizationError) or "authorization" in text.lower():
        return "authorization refused: wrong user, password, token or credentials", True
    if "authentication" in text.lower():  # 'User Authentication Expired', 'Authentication Timeout'
        return f"authentication failed ({text.removeprefix('nats: ').strip(chr(39))})", True
    if isinstance(exc, ConnectionRefusedError) or f"[Errno {errno.ECONNREFUSED}]" in text:
        return "connection refused (no server listening there)", False
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host name ({exc.strerror or text})", False
    if isinstance(exc, TimeoutError):  # asyncio's and nats-py's TimeoutError both are one
        return "no answer (host unreachable or not a NATS server)", False
    return f"{type(exc).__name__}: {text}", False


class _FirstConnect:
    """nats-py's error callback: during the first connect, decide when to give up.

    nats-py retries a failed first connect like a reconnect, forever with unlimited reconnects,
    and its default callback logs a traceback for every attempt. This one raises `_GaveUp` out of
    nats-py's connect loop at the first refusal of the credentials (no other server will take
    them either) and once every server has failed otherwise. After the connect, errors of the
    running connection go to `ConnectionEvents`.
    """

    def __init__(self, servers: int) -> None:
        self.servers = servers
        self.failures: list[str] = []
        self.connecting = True
        self.closing = False  # a failed first connect being cleaned up: nothing more to say
        self.events = ConnectionEvents()  # the running connection's callbacks

    async def on_error(self, exc: Exception) -> None:
        """The error callback given to nats-py."""
        if self.closing:
            return
        if not self.connecting:
            await self.events.on_error(exc)
            return
        reason, final = _why(exc)
        self.failures.append(reason)
        if final or len(self.failures) >= self.servers:
            self.closing = True  # nats-py calls back while closing, too: no second raise
            raise _GaveUp(reason if final else "; ".join(dict.fromkeys(self.failures)))


async def connect(url: str, settings: NatsSettings, *, name: str = "jetjobs") -> NATS:
    """Open a NATS connection with the auth and TLS options from settings.

    Raises:
        ConfigError: the server cannot be reached or refuses the credentials (one line, the
            URL's password masked).
    """
    options: dict[str, Any] = connection_options(settings)
    servers = url.split(",")
    shown = mask_url(url)
    # A safety net only: each server gets connect_timeout, and _FirstConnect gives up after that.
    deadline = settings.connect_timeout * (len(servers) + 1)
    first = _FirstConnect(len(servers))
    nc = NATS()
    reader.install(nc)
    try:
        with anyio.fail_after(deadline):
            await nc.connect(
                servers,
                name=name,
                error_cb=first.on_error,
                disconnected_cb=first.events.on_disconnected,
                reconnected_cb=first.events.on_reconnected,
                **options,
            )
    except BaseException as exc:
        first.closing = True
        with contextlib.suppress(Exception), anyio.move_on_after(1, shield=True):
            await nc.close()  # the half-open transport of a refused handshake
        if isinstance(exc, _GaveUp):
            raise ConfigError(f"NATS_URL={shown}: cannot connect: {exc.reason}") from None
        if isinstance(exc, TimeoutError):
            raise ConfigError(f"NATS_URL={shown}: cannot connect (no answer within {deadline:g}s)") from None
        if isinstance(exc, Exception):
            raise ConfigError(
                f"NATS_URL={shown}: cannot connect ({mask_url(f'{type(exc).__name__}: {exc}')})"
            ) from None
        raise
    first.connecting = False
    first.events.bind(nc)  # from now on: one log line per disconnect, reconnect and error
    return nc


async def _connectable(url: str, settings: NatsSettings) -> bool:
    async def quiet(exc: Exception) -> None:
        """A stale `server.url` is expected: no traceback for it."""

    nc = NATS()
    try:
        await nc.connect(
            url,
            connect_timeout=1,
            allow_reconnect=False,
            max_reconnect_attempts=0,
            error_cb=quiet,
            token=settings.token,
        )
        # The embedded server always demands its token. One that lets anyone in is another
        # server that took the port of a dead one: joining it would run jobs on a stranger's queue.
        ours = bool(getattr(nc, "_server_info", {}).get("auth_required"))
    except Exception:
        return False
    finally:
        await nc.close()
    return ours


def _private_dir(path: Path) -> None:
    """Create `path` (and parents) and make it this user's only: it holds the server's token."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)


def _embedded_settings(settings: NatsSettings, token: str) -> NatsSettings:
    """The settings to join the embedded server with: its token, no other credentials."""
    return msgspec.structs.replace(settings, token=token, user=None, password=None, creds=None)


@contextlib.asynccontextmanager
async def open_connection(settings: NatsSettings, *, name: str = "jetjobs") -> AsyncIterator[NATS]:
    """Connect to `settings.url`, or to the shared embedded server (starting it if needed)."""
    if settings.url:
        nc = await connect(settings.url, settings, name=name)
        try:
            yield nc
        finally:
            await nc.close()
        return
    store = Path(settings.store_dir) if settings.store_dir else default_store_dir()
    _private_dir(store)

    async def ours(url: str, token: str) -> bool:
        return await _connectable(url, _embedded_settings(settings, token))

    async with shared_embedded(store, ours) as (url, token):
        nc = await connect(url, _embedded_settings(settings, token), name=name)
        try:
            yield nc
        finally:
            await nc.close()
