"""Fixtures shared by the integration tests (the server and connection fixtures are in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.http_target import HttpTarget, serving


@pytest.fixture
def target() -> Iterator[HttpTarget]:
    """A real HTTP server on 127.0.0.1."""
    with serving() as server:
        yield server
