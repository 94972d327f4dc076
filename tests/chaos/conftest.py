"""Chaos fixtures: a namespace on the session server with fast liveness and a short lease."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from jetjobs import EmbeddedServer
from tests.chaos.harness import Chaos, chaos_namespace, chaos_settings


@pytest.fixture
async def chaos(nats_server: EmbeddedServer, namespace: str) -> AsyncIterator[Chaos]:
    """A fresh namespace on the session server, its audit streams, and a connection."""
    async with chaos_namespace(chaos_settings(namespace, nats_server.url)) as scenario:
        yield scenario
