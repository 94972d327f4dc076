"""What a running connection says about itself: one log line per disconnect, reconnect and error.

nats-py's default error callback logs every error with its traceback through the standard
library's logger, several lines each, into a process whose log is JSON lines, and nothing at all
says when the connection drops or comes back. These callbacks replace it:

- `nats.disconnected` (warning) when the connection drops, with the server it was on;
- `nats.reconnected` (warning) when it is back, with the server, how long it was away and how many
  connection attempts failed meanwhile;
- `nats.error`: a network error (refused, reset, timed out, stale connection) is one warning line
  with the error, the first of each kind per outage (the rest are counted into `nats.reconnected`);
  anything else is an error line, its traceback inside the JSON line.

Errors before the first connection are not logged here: `jetjobs._transport.connection.connect` reports a
failed first connect itself, once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import nats.errors
import structlog
from nats.aio.client import Client as NATS

from jetjobs._errors import describe_error

log = structlog.get_logger("jetjobs.connection")

# Errors a client meets whenever a server restarts, fails over or is unreachable for a while.
NETWORK_ERRORS: tuple[type[BaseException], ...] = (
    OSError,  # refused, reset, unreachable, broken pipe
    asyncio.TimeoutError,
    TimeoutError,
    asyncio.IncompleteReadError,
    nats.errors.StaleConnectionError,
    nats.errors.UnexpectedEOF,
    nats.errors.ConnectionClosedError,
    nats.errors.NoServersError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.OutboundBufferLimitError,
    nats.errors.FlushTimeoutError,
    nats.errors.TimeoutError,
)


class ConnectionEvents:
    """The disconnected, reconnected and error callbacks of one connection."""

    def __init__(self) -> None:
        self.nc: NATS | None = None
        self.server: str | None = None  # the server it is (or was last) connected to
        self.disconnected_at: float | None = None
        self.failed_attempts = 0
        self._seen: set[str] = set()  # kinds of network error already logged in this outage

    def callbacks(self) -> dict[str, Callable[..., Awaitable[None]]]:
        """Keyword arguments for `nats.connect`."""
        return {
            "error_cb": self.on_error,
            "disconnected_cb": self.on_disconnected,
            "reconnected_cb": self.on_reconnected,
        }

    def bind(self, nc: NATS) -> None:
        """The connection is up: from now on, its events are logged."""
        self.nc = nc
        self.server = self._connected_server()

    def _connected_server(self) -> str | None:
        return server_address(self.nc) if self.nc is not None else None

    async def on_disconnected(self) -> None:
        """Log the drop once (nats-py also calls this when the connection closes for good)."""
        if self.nc is None or self.disconnected_at is not None or self.nc.is_closed:
            return
        self.disconnected_at = time.monotonic()
        self.failed_attempts = 0
        self._seen.clear()
        log.warning("nats.disconnected", server=self.server)

    async def on_reconnected(self) -> None:
        """Log the return, with how long the connection was away."""
        if self.nc is None:
            return
        away = time.monotonic() - self.disconnected_at if self.disconnected_at is not None else None
        self.server = self._connected_server()
        log.warning(
            "nats.reconnected",
            server=self.server,
            away_s=round(away, 2) if away is not None else None,
            failed_attempts=self.failed_attempts,
            reconnects=self.nc.stats["reconnects"],
        )
        self.disconnected_at = None

    async def on_error(self, exc: Exception) -> None:
        """One line per error; a network error once per kind while the connection is away."""
        if self.nc is None:
            return
        if isinstance(exc, NETWORK_ERRORS):
            self.failed_attempts += self.disconnected_at is not None
            kind = type(exc).__name__
            if kind in self._seen:
                return
            if self.disconnected_at is not None:
                self._seen.add(kind)
            log.warning("nats.error", error=describe_error(exc), connected=self.nc.is_connected)
            return
        log.error("nats.error", error=describe_error(exc), exc_info=exc)


def server_address(nc: NATS) -> str | None:
    """`host:port` of the server `nc` is connected to, never the URL's user info (it may hold a
    password or a token); None when not connected."""
    url = nc.connected_url
    return f"{url.hostname}:{url.port}" if url is not None else None
