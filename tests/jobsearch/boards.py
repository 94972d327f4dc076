"""Test helpers for the boards: a real local HTTP server, fixture payloads, a quick client."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from jobsearch.sources import BoardHttp, HttpPolicy
from tests.http_target import Answer, HttpTarget, serving

FIXTURES = Path(__file__).parent / "fixtures"

# Fast manners for tests: no politeness pause, quick retries, small timeouts; the local test
# servers' address allowed, as JOBSEARCH_ALLOW_HOSTS=127.0.0.1 would.
FAST = HttpPolicy(
    timeout=2.0,
    deadline=5.0,
    retries=2,
    backoff=0.01,
    min_interval=0.0,
    per_host=4,
    allow_hosts=("127.0.0.1",),
)


def fixture_bytes(name: str) -> bytes:
    """A fixture payload's bytes (`tests/jobsearch/fixtures/NAME`)."""
    return (FIXTURES / name).read_bytes()


def fixture_json(name: str) -> Any:
    """A fixture payload, decoded."""
    return json.loads(fixture_bytes(name))


def ok_json(value: Any, **headers: str) -> Answer:
    """A 200 answer with `value` as JSON."""
    return Answer(200, json.dumps(value).encode(), {"Content-Type": "application/json", **headers})


def ok_file(name: str, content_type: str = "application/json") -> Answer:
    """A 200 answer with a fixture file's bytes."""
    return Answer(200, fixture_bytes(name), {"Content-Type": content_type})


@pytest.fixture
def board() -> Iterator[HttpTarget]:
    """A real HTTP server on 127.0.0.1 that answers each path (query included) as scripted."""
    with serving() as target:
        yield target


@contextlib.asynccontextmanager
async def client(policy: HttpPolicy = FAST) -> AsyncIterator[BoardHttp]:
    """A BoardHttp with test manners."""
    async with BoardHttp(policy) as http:
        yield http
