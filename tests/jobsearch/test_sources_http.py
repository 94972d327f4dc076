"""BoardHttp against a real local HTTP server: retries, Retry-After, politeness, failures."""

from __future__ import annotations

import itertools
import socket
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import msgspec
import pytest

from jobsearch.sources import BoardHttp, SourceError
from jobsearch.sources.http import retry_after
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import FAST, board, client, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below


async def test_user_agent_names_the_tool_and_its_url(board: HttpTarget) -> None:
    """Every request carries a User-Agent naming jobsearch, its version and a URL about it."""
    board.script("/x", ok_json({"ok": True}))
    async with client() as http:
        assert await http.get_json("test", board.url("/x")) == {"ok": True}
    agent = board.to("/x")[0].headers["user-agent"]
    assert agent.startswith("jobsearch/")
    assert "(+https://" in agent


async def test_429_with_retry_after_is_retried_after_the_wait(board: HttpTarget) -> None:
    """A 429 with `Retry-After: 1` is retried no sooner than a second later, then succeeds."""
    board.script("/x", Answer(429, b"slow down", {"Retry-After": "1"}), ok_json([1, 2]))
    async with client() as http:
        assert await http.get_json("test", board.url("/x")) == [1, 2]
    first, second = board.to("/x")
    assert second.at - first.at >= 0.9


async def test_retry_after_beyond_the_cap_fails_at_once(board: HttpTarget) -> None:
    """A Retry-After longer than `max_retry_after` is not waited out: a `rate_limited` error
    carrying the wait, after one request."""
    board.script("/x", Answer(429, b"", {"Retry-After": "3600"}))
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("test", board.url("/x"))
    assert caught.value.kind == "rate_limited"
    assert caught.value.retry_after == 3600
    assert caught.value.retryable
    assert len(board.to("/x")) == 1


def test_retry_after_reads_seconds_and_http_dates() -> None:
    """Retry-After is delta-seconds or an HTTP date; a date in the past means no wait; junk is None."""
    now = datetime(2015, 10, 21, 7, 27, 0, tzinfo=UTC)
    assert retry_after("120") == 120
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=now) == 60
    assert retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now=now) == 0
    assert retry_after("soon") is None
    assert retry_after(None) is None
    assert retry_after("nan") is None


async def test_server_errors_are_retried_then_reported(board: HttpTarget) -> None:
    """A board answering 503 every time is asked 1 + retries times, then a `server_error`."""
    board.script("/x", Answer(503, b"down"))
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("test", board.url("/x"))
    assert caught.value.kind == "server_error"
    assert "HTTP 503 after 3 attempts" in str(caught.value)
    assert len(board.to("/x")) == 1 + FAST.retries


async def test_a_5xx_then_success(board: HttpTarget) -> None:
    """A passing 502 is retried and the next answer is used."""
    board.script("/x", Answer(502, b"bad gateway"), ok_json({"jobs": []}))
    async with client() as http:
        assert await http.get_json("test", board.url("/x")) == {"jobs": []}


async def test_404_is_not_retried(board: HttpTarget) -> None:
    """A 404 (a wrong token) fails at once as `not_found`, not retryable."""
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("greenhouse", board.url("/v1/boards/typo/jobs"))
    assert caught.value.kind == "not_found"
    assert not caught.value.retryable
    assert "check the source's name or token" in str(caught.value)
    assert len(board.requests) == 1


async def test_malformed_json(board: HttpTarget) -> None:
    """A 200 whose body is not valid JSON is a `malformed` error naming the board and URL."""
    board.script("/x", Answer(200, b'{"jobs": [', {"Content-Type": "application/json"}))
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("lever", board.url("/x"))
    assert caught.value.kind == "malformed"
    assert str(caught.value).startswith("lever: answered with malformed JSON")
    assert board.url("/x") in str(caught.value)


async def test_html_error_page_where_json_was_expected(board: HttpTarget) -> None:
    """A 200 HTML page (a maintenance or login page) is an `html_page` error, not a parse crash."""
    page = b"<!DOCTYPE html><html><head><title>Maintenance</title></head><body>Back soon</body></html>"
    board.script("/x", Answer(200, page, {"Content-Type": "text/html; charset=utf-8"}))
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("ashby", board.url("/x"))
    assert caught.value.kind == "html_page"


async def test_body_over_the_cap_by_its_length(board: HttpTarget) -> None:
    """A body whose Content-Length exceeds `max_bytes` is refused as `too_large`."""
    board.script("/x", Answer(200, b"[" + b"1," * 5000 + b"1]", {"Content-Type": "application/json"}))
    policy = msgspec.structs.replace(FAST, max_bytes=4096)
    async with client(policy) as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("test", board.url("/x"))
    assert caught.value.kind == "too_large"


async def test_streamed_body_over_the_cap() -> None:
    """A body without a Content-Length is cut off as soon as it passes `max_bytes`, not read whole."""
    sent = 0

    class Endless(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            nonlocal sent
            for _ in range(10_000):
                sent += 1
                yield b"x" * 1024

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Endless())

    policy = msgspec.structs.replace(FAST, max_bytes=64 * 1024)
    async with BoardHttp(policy, transport=httpx.MockTransport(handler)) as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("test", "https://board.example/api")
    assert caught.value.kind == "too_large"
    assert sent < 100


async def test_timeout(board: HttpTarget) -> None:
    """A board that never answers is a `timeout` after the retries, retryable by the stage."""
    board.script("/x", Answer(200, b"{}", hold=threading.Event()))
    policy = msgspec.structs.replace(FAST, timeout=0.2, deadline=0.5, retries=1)
    async with client(policy) as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("test", board.url("/x"))
    assert caught.value.kind == "timeout"
    assert caught.value.retryable
    assert len(board.to("/x")) == 2


async def test_connection_refused() -> None:
    """Nothing listening on the port is a `network` error."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    policy = msgspec.structs.replace(FAST, retries=0)
    async with client(policy) as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("test", f"http://127.0.0.1:{port}/x")
    assert caught.value.kind == "network"


async def test_politeness_spaces_requests_to_one_host(board: HttpTarget) -> None:
    """With `min_interval`, consecutive requests to one host start at least that far apart."""
    board.script("/x", ok_json([]))
    policy = msgspec.structs.replace(FAST, min_interval=0.3)
    async with client(policy) as http:
        for _ in range(3):
            await http.get_json("test", board.url("/x"))
    times = [r.at for r in board.to("/x")]
    assert all(b - a >= 0.25 for a, b in itertools.pairwise(times)), times
