"""Noticing that the NATS server has gone away mid-run, so that the run ends in one line, not a hang
or a traceback.

nats-py reconnects for ever, and the run's waits (the drain, the tracker job) would wait for ever
with it. The server counts as gone once the connection has been down for a while without a break:
5 s for the embedded server (nobody restarts it at its address: a new one gets a new port and a
new token), 60 s for a server at `NATS_URL`, which may be restarting or failing over. An error out
of the run's machinery while the connection is down (a request reset by the dying server) is
the same news, and is confirmed the same way.

The connection state is looked at twice a second: nats-py tells its disconnects only to the
callbacks given at connect time, which the platform's connection already owns.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio
from nats.aio.client import Client as NATS

if TYPE_CHECKING:
    from jobsearch.run.children import StageServices

SERVER_LOST = 3  # the exit status of a run whose server went away
EMBEDDED_LOST_AFTER = 5.0
URL_LOST_AFTER = 60.0
_LOOK = 0.5  # how often the connection's state is read (a look at a flag, not a network call)


class ServerWatch:
    """Whether the run's server is gone: `lost` is set once it is."""

    def __init__(self, nc: NATS, *, embedded: bool) -> None:
        self.nc = nc
        self.embedded = embedded
        self.lost_after = EMBEDDED_LOST_AFTER if embedded else URL_LOST_AFTER
        self.lost = anyio.Event()
        url = nc.connected_url
        self.server = f"{url.hostname}:{url.port}" if url is not None else "?"  # never the token

    async def watch(self) -> None:
        """Return (with `lost` set) once the connection has been down for `lost_after` seconds."""
        down_since: float | None = None
        while True:
            await anyio.sleep(_LOOK)
            if self.nc.is_connected:
                down_since = None
                continue
            now = time.monotonic()
            down_since = down_since or now
            if now - down_since >= self.lost_after:
                self.lost.set()
                return

    async def confirm(self) -> bool:
        """After an error: whether the server is gone (no answer within `lost_after` seconds)."""
        if self.lost.is_set():
            return True
        with anyio.move_on_after(self.lost_after):
            while True:
                try:
                    await self.nc.flush(timeout=1)
                except Exception:  # down, reconnecting, closed: ask again until the deadline
                    await anyio.sleep(_LOOK)
                    continue
                return False
        self.lost.set()
        return True

    def message(self, run_id: str) -> str:
        """The one line a run stopped by a lost server prints."""
        which = f"the {'embedded ' if self.embedded else ''}NATS server ({self.server})"
        return (
            f"jobsearch: run {run_id} interrupted: {which} went away (no answer for "
            f"{self.lost_after:g} s); what was recorded is kept, and the jobs still queued run with "
            "the next `jobsearch run`"
        )

    async def close(self) -> None:
        """Close the connection without a word: nothing can be flushed to a server that is gone."""
        with contextlib.suppress(Exception), anyio.move_on_after(2, shield=True):
            await self.nc.close()


async def stop_when_lost(
    watch: ServerWatch, scope: anyio.CancelScope, services: Callable[[], StageServices | None]
) -> None:
    """Cancel `scope` once the server is gone, the stage services (as they are then) told not to
    wait long: nothing can be handed back to a server that is gone."""
    await watch.watch()
    running = services()
    if running is not None:
        running.stop_timeout = min(running.stop_timeout, 5.0)
    scope.cancel()
