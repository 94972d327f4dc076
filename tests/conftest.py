"""Fixtures shared by every test: a real nats-server per session, a fresh namespace per test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from nats.aio.client import Client as NATS

from jetjobs import EmbeddedServer, Settings
from jetjobs._transport.connection import connect
from tests.otlp_receiver import OtlpReceiver
from tests.support import fast_settings


@pytest.fixture(scope="session")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """A real `nats-server -js` on a random loopback port, its store in a temp dir."""
    server = EmbeddedServer(tmp_path_factory.mktemp("nats"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def namespace() -> str:
    """A namespace no other test uses, so streams and buckets never collide."""
    return "t" + uuid.uuid4().hex[:12]


@pytest.fixture
def settings(nats_server: EmbeddedServer, namespace: str) -> Settings:
    """Settings for the session server: memory storage, short leases, fast backoff."""
    return fast_settings(namespace, nats_server.url)


@pytest.fixture
async def nc(settings: Settings) -> AsyncIterator[NATS]:
    """A connection to the session server."""
    conn = await connect(settings.nats.url or "", settings.nats, name="jetjobs-test")
    yield conn
    await conn.close()


@pytest.fixture
def repo_root() -> Path:
    """The repository root (for subprocess workers that import test apps)."""
    return Path(__file__).resolve().parent.parent


@pytest.fixture
def otlp() -> Iterator[OtlpReceiver]:
    """An OTLP/HTTP receiver on a loopback port."""
    receiver = OtlpReceiver()
    receiver.start()
    yield receiver
    receiver.stop()
