"""Connecting to NATS: an existing server (`NATS_URL`) or the embedded one.

With `NATS_URL` unset, the first jetjobs process starts a private nats-server with its store in
the user's data directory, writes its address to `server.url` there, and stops it on exit; other
jetjobs processes started meanwhile connect to that same server.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import nats
import platformdirs
from nats.aio.client import Client as NATS

from jetjobs.connection_events import ConnectionEvents
from jetjobs.embedded import EmbeddedServer
from jetjobs.errors import ConfigError
from jetjobs.settings import NatsSettings


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


async def connect(url: str, settings: NatsSettings, *, name: str = "jetjobs") -> NATS:
    """Open a NATS connection with the auth and TLS options from settings.

    Raises:
        ConfigError: the server cannot be reached or refuses the credentials.
    """
    options = connection_options(settings)
    servers = url.split(",")
    deadline = settings.connect_timeout * (len(servers) + 1)
    try:
        # With unlimited reconnects nats-py retries a failed *first* connect forever, too: bound it.
        with anyio.fail_after(deadline):
            events = ConnectionEvents()  # one log line per disconnect, reconnect and error
            nc = await nats.connect(servers, name=name, **options, **events.callbacks())
            events.bind(nc)
            return nc
    except TimeoutError:
        raise ConfigError(f"NATS_URL={url}: cannot connect (no answer within {deadline:g}s)") from None
    except Exception as exc:
        raise ConfigError(f"NATS_URL={url}: cannot connect ({type(exc).__name__}: {exc})") from None


async def _connectable(url: str, settings: NatsSettings) -> bool:
    try:
        nc = await nats.connect(url, connect_timeout=1, allow_reconnect=False, max_reconnect_attempts=0)
    except Exception:
        return False
    await nc.close()
    return True


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
    store.mkdir(parents=True, exist_ok=True)
    url_file = store / "server.url"
    server: EmbeddedServer | None = None
    with (store / "server.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        url = url_file.read_text().strip() if url_file.exists() else ""
        if not url or not await _connectable(url, settings):
            server = EmbeddedServer(store / "jetstream")
            url = await anyio.to_thread.run_sync(server.start)
            url_file.write_text(url)
        fcntl.flock(lock, fcntl.LOCK_UN)
    try:
        nc = await connect(url, settings, name=name)
        try:
            yield nc
        finally:
            await nc.close()
    finally:
        if server is not None:
            with contextlib.suppress(OSError):
                if url_file.read_text().strip() == url:
                    os.unlink(url_file)
            server.stop()
