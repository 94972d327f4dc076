"""The receivers a digest goes to, for tests: a real SMTP server (aiosmtpd) and real HTTP
servers (uvicorn) shaped like ntfy (JSON publishing on POST /) and a webhook, all in the test's
event loop so that their handlers wake the test (`Changes`): nothing waits by sleeping.

The fixtures `smtp` and `receivers` are registered in tests/jobsearch/conftest.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
import uvicorn
from aiosmtpd.smtp import SMTP, Envelope, Session
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support import Changes


@dataclass
class Inbox:
    """An aiosmtpd handler: every message it accepted, and a wake-up for each."""

    delivered: list[tuple[list[str], EmailMessage]] = field(default_factory=list)
    changes: Changes = field(default_factory=Changes)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.delivered.append((list(envelope.rcpt_tos), message))
        self.changes.notify()
        return "250 Message accepted for delivery"


@dataclass(frozen=True)
class Received:
    """One request as a receiver saw it."""

    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Receivers:
    """An ntfy-shaped server (JSON publishing on POST /) and a webhook at /hooks/jobsearch; each
    path answers from its script (the last status repeats)."""

    requests: list[Received] = field(default_factory=list)
    scripts: dict[str, list[int]] = field(default_factory=dict)
    changes: Changes = field(default_factory=Changes)

    def to(self, path: str) -> list[Received]:
        return [r for r in self.requests if r.path == path]

    async def _record(self, request: Request) -> tuple[int, Any]:
        body = json.loads(await request.body())
        self.requests.append(Received(request.url.path, dict(request.headers), body))
        self.changes.notify()
        script = self.scripts.get(request.url.path) or [200]
        return (script.pop(0) if len(script) > 1 else script[0]), body

    async def ntfy(self, request: Request) -> Response:
        """ntfy's answer to a JSON publish: the message as stored (docs.ntfy.sh/subscribe/api)."""
        status, body = await self._record(request)
        if request.headers.get("content-type") != "application/json" or not body.get("topic"):
            return JSONResponse({"code": 40009, "http": 400, "error": "invalid request"}, status_code=400)
        if status != 200:
            return JSONResponse({"code": 50001, "http": status, "error": "unavailable"}, status_code=status)
        stored = {"id": "sPs71M8A2T", "time": 1764658800, "expires": 1764702000, "event": "message"}
        return JSONResponse(
            stored | {k: body[k] for k in ("topic", "title", "message", "click") if k in body}
        )

    async def hook(self, request: Request) -> Response:
        status, _ = await self._record(request)
        return JSONResponse({"received": status == 200}, status_code=status)


class _Server(uvicorn.Server):
    """uvicorn in the test's loop, leaving the signals to pytest."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@pytest.fixture
async def receivers() -> AsyncIterator[tuple[Receivers, str]]:
    """The receivers served on 127.0.0.1 (the socket listens before the test goes on), and their base URL."""
    state = Receivers()
    app = Starlette(
        routes=[
            Route("/", state.ntfy, methods=["POST"]),
            Route("/hooks/jobsearch", state.hook, methods=["POST"]),
        ]
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", ws="none")
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield state, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


@pytest.fixture
async def smtp() -> AsyncIterator[tuple[Inbox, int]]:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 in this loop, and its port."""
    inbox = Inbox()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(inbox, hostname="mail.test"), "127.0.0.1", 0)
    try:
        yield inbox, server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()
