"""The operations page served in the test's own process, so a test can look at what it computed.

`serving()` (tests/ui/server.py) runs `jetjobs ui` as the user does, a separate process; this runs
the same app (`build_ops_app`) with uvicorn on a loopback socket of the test's event loop, so the
test can read `app.state.ops` (how many times a section was rendered, how many dead letters were
read) and give the page a throughput meter with a short window.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import uvicorn
from nats.aio.client import Client as NATS
from starlette.applications import Starlette

from jetjobs import Settings
from jetjobs.ui import bind
from jetjobs.ui._context import Ops
from jetjobs.ui._ops import build_ops_app


class _Server(uvicorn.Server):
    """uvicorn's server that says when it listens, and leaves signals alone."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = anyio.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        self.listening.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def ops_in_process(
    nc: NATS, settings: Settings, **options: Any
) -> AsyncIterator[tuple[str, Starlette]]:
    """Serve `build_ops_app(nc, settings, **options)` on 127.0.0.1; yield its URL and the app."""
    app = build_ops_app(nc, settings, **options)
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = _Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: server.serve(sockets=[sock]))
        with anyio.fail_after(30):
            await server.listening.wait()
        try:
            yield f"http://127.0.0.1:{port}/", app
        finally:
            server.should_exit = True
    sock.close()


def ops_of(app: Starlette) -> Ops:
    """The app's `Ops` (its caches and counters)."""
    ops: Ops = app.state.ops
    return ops
