"""Board requests in the trace: BoardHttp against a real local HTTP server, spans kept in memory
by a tracer provider of the test's own (the process's global provider is left alone); and, with
a real nats-server, the fetch worker's requests under their source job's span."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Iterator

import httpx
import msgspec
import pytest
from nats.aio.client import Client as NATS
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode, Tracer

from jetjobs import App, Publisher, Settings
from jobsearch.fetch import FetchHandlers
from jobsearch.jobs import QUEUES, SOURCE, SourceJob
from jobsearch.profile import Greenhouse, Person, Profile
from jobsearch.sources import BoardHttp, HttpPolicy, SourceError
from jobsearch.sources.spans import trace_url
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import FAST, board, ok_file, ok_json
from tests.support import running_worker

__all__ = ["board"]  # the fixture, imported for the tests below


class Traced:
    """A tracer whose spans are kept, each as it ends, in `exporter`."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer: Tracer = self.provider.get_tracer("tests")

    def requests(self) -> list[ReadableSpan]:
        """The board request spans, in the order they ended."""
        return [s for s in self.exporter.get_finished_spans() if s.kind == SpanKind.CLIENT]

    def only(self, name: str) -> ReadableSpan:
        """The one finished span named `name`."""
        [span] = [s for s in self.exporter.get_finished_spans() if s.name == name]
        return span


@pytest.fixture
def traced() -> Iterator[Traced]:
    """Spans recorded in memory for this test only."""
    kept = Traced()
    yield kept
    kept.provider.shutdown()


@contextlib.asynccontextmanager
async def client(traced: Traced, policy: HttpPolicy = FAST) -> AsyncIterator[BoardHttp]:
    """A BoardHttp with test manners, tracing to `traced`."""
    async with BoardHttp(policy, tracer=traced.tracer) as http:
        yield http


async def test_a_read_is_one_client_span_child_of_the_current_span(board: HttpTarget, traced: Traced) -> None:
    """A 200 read inside a job's span is one CLIENT span under it, named by method and host, with
    the semantic conventions' attributes: method, the URL without its secrets, host and port,
    status, the bytes read; the board; no error status and no resend count."""
    body = b'{"jobs": [1, 2, 3]}'
    board.script(
        "/v1/boards/acme/jobs?api_key=s3cret-value&content=true",
        Answer(200, body, {"Content-Type": "application/json"}),
    )
    url = f"http://alice:pa55@127.0.0.1:{board.port}/v1/boards/acme/jobs"
    async with client(traced) as http:
        with traced.tracer.start_as_current_span("process jobsearch.source"):
            await http.get_json("greenhouse", url, params={"api_key": "s3cret-value", "content": "true"})

    parent = traced.only("process jobsearch.source")
    [span] = traced.requests()
    assert span.name == "GET 127.0.0.1"
    assert span.parent is not None
    assert (span.parent.span_id, span.context.trace_id) == (parent.context.span_id, parent.context.trace_id)
    assert dict(span.attributes or {}) == {
        "http.request.method": "GET",
        "url.full": f"http://REDACTED:REDACTED@127.0.0.1:{board.port}/v1/boards/acme/jobs"
        "?api_key=REDACTED&content=true",
        "server.address": "127.0.0.1",
        "server.port": board.port,
        "jobsearch.board": "greenhouse",
        "http.response.status_code": 200,
        "http.response.body.size": len(body),
    }
    assert span.status.status_code == StatusCode.UNSET


async def test_a_429_then_200_shows_the_retry_and_its_wait(board: HttpTarget, traced: Traced) -> None:
    """A 429 with `Retry-After: 1` then a 200 is two spans: the first an error carrying the wait
    the board asked for and the one taken, the second a resend, started after that wait."""
    board.script("/x", Answer(429, b"slow down", {"Retry-After": "1"}), ok_json([1]))
    async with client(traced) as http:
        await http.get_json("remotive", board.url("/x"))

    first, second = traced.requests()
    assert first.attributes is not None
    assert second.attributes is not None
    assert first.attributes["http.response.status_code"] == 429
    assert first.attributes["error.type"] == "429"
    assert first.attributes["jobsearch.retry_after_s"] == 1
    assert first.attributes["jobsearch.retry_delay_s"] == 1
    assert "http.request.resend_count" not in first.attributes
    assert first.status.status_code == StatusCode.ERROR
    assert second.attributes["http.request.resend_count"] == 1
    assert second.attributes["http.response.status_code"] == 200
    assert second.status.status_code == StatusCode.UNSET
    assert first.end_time is not None
    assert second.start_time is not None
    assert second.start_time - first.end_time >= 0.9e9  # nanoseconds


async def test_a_404_ends_in_an_error_status_naming_the_failure(board: HttpTarget, traced: Traced) -> None:
    """A 404 is one span whose status is ERROR, described by the failure's kind and detail (never
    the URL), with the status code as `error.type`."""
    async with client(traced) as http:
        with pytest.raises(SourceError):
            await http.get_json("greenhouse", board.url("/v1/boards/typo/jobs?token=t0ps3cret"))

    [span] = traced.requests()
    assert span.attributes is not None
    assert span.attributes["http.response.status_code"] == 404
    assert span.attributes["error.type"] == "404"
    assert span.attributes["jobsearch.failure_kind"] == "not_found"
    assert span.status.status_code == StatusCode.ERROR
    assert (span.status.description or "").startswith("not_found: HTTP 404: no such board")
    assert "t0ps3cret" not in str(span.attributes) + (span.status.description or "")


async def test_every_retry_is_a_span_and_the_last_names_the_failure(
    board: HttpTarget, traced: Traced
) -> None:
    """A board answering 503 every time is 1 + retries spans, counted by `resend_count`, each an
    error; the last one carries the `server_error` the caller gets."""
    board.script("/x", Answer(503, b"down"))
    async with client(traced) as http:
        with pytest.raises(SourceError):
            await http.get_json("lever", board.url("/x"))

    sent = traced.requests()
    assert len(sent) == 1 + FAST.retries
    assert [(s.attributes or {}).get("http.request.resend_count") for s in sent] == [None, 1, 2]
    assert all(s.status.status_code == StatusCode.ERROR for s in sent)
    assert all("jobsearch.retry_delay_s" in (s.attributes or {}) for s in sent[:-1])
    assert (sent[-1].attributes or {})["jobsearch.failure_kind"] == "server_error"
    assert sent[-1].status.description == "server_error: HTTP 503 after 3 attempts"


async def test_a_request_without_an_answer_is_an_error_of_its_kind(traced: Traced) -> None:
    """No server on the port: the span has no status code, and the failure's kind as `error.type`."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with client(traced, msgspec.structs.replace(FAST, retries=0)) as http:
        with pytest.raises(SourceError):
            await http.get_json("arbeitnow", f"http://127.0.0.1:{port}/x")

    [span] = traced.requests()
    assert span.attributes is not None
    assert "http.response.status_code" not in span.attributes
    assert span.attributes["error.type"] == "network"
    assert (span.status.description or "").startswith("network: could not connect")


def test_trace_urls_carry_no_secrets() -> None:
    """Userinfo and the values of secret-named or key-looking query parameters are `REDACTED`;
    the rest of the URL is kept as sent."""
    url = httpx.URL(
        "https://bob:hunter2@api.example/v1/jobs%20x?Signature=abc&page=2&q=senior%20python"
        "&id=3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c&access_token=x&company=a-very-long-company-name-indeed"
    )
    assert trace_url(url) == (
        "https://REDACTED:REDACTED@api.example/v1/jobs%20x?Signature=REDACTED&page=2&q=senior%20python"
        "&id=REDACTED&access_token=REDACTED&company=a-very-long-company-name-indeed"
    )
    assert trace_url(httpx.URL("https://boards-api.greenhouse.io/v1/boards/acme/jobs")) == (
        "https://boards-api.greenhouse.io/v1/boards/acme/jobs"
    )


@pytest.mark.integration
async def test_in_the_fetch_worker_a_request_is_a_child_of_the_source_jobs_span(
    nc: NATS, settings: Settings, board: HttpTarget, spans: InMemorySpanExporter
) -> None:
    """A source job run by the fetch worker (tracing on, the default tracer) puts its board
    request under the job's consumer span, in the job's trace."""
    board.script("/v1/boards/acme/jobs?content=true&pay_transparency=true", ok_file("greenhouse_jobs.json"))
    source = Greenhouse(token="acme", base_url=board.url(""))
    job = SourceJob(
        run_id="r-trace", source=source, profile=Profile(person=Person(name="S"), sources=[source])
    )
    app = App("fetch-trace-test", builtins=False)
    handlers = FetchHandlers(FAST)
    handlers.register(app)
    async with running_worker(app, nc, settings, queues=[QUEUES["fetch"]]) as (_, outcomes):
        submitted = await Publisher(nc, settings).enqueue(SOURCE, job, queue=QUEUES["fetch"])
        await outcomes.wait_for(submitted.id, "succeeded")
    await handlers.aclose()

    finished = spans.get_finished_spans()
    [consumer] = [s for s in finished if s.name == f"process {SOURCE}"]
    [request] = [s for s in finished if s.kind == SpanKind.CLIENT]
    assert request.parent is not None
    assert request.parent.span_id == consumer.context.span_id
    assert request.context.trace_id == consumer.context.trace_id
    assert (request.attributes or {})["jobsearch.board"] == "greenhouse"
