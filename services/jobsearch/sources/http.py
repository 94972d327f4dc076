"""`BoardHttp`: the one HTTP client a fetch service uses for every board.

What it promises the boards: a User-Agent naming the tool, at most `per_host` requests at once and
one request every `min_interval` seconds to any one host, retries only on 429 and 5xx (and
timeouts and dropped connections), honouring `Retry-After`. What it promises the pipeline: every
failure is a `SourceError` naming the board, the URL and what went wrong, and no response body
larger than `max_bytes` is ever held in memory. What it promises the machine it runs on: no request
to an internal address unless `allow_hosts` names it (jobsearch.sources.hosts). What it promises
whoever reads the trace: every request sent is a span (jobsearch.sources.spans).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Annotated, Any, Self

import anyio
import httpx
import msgspec
import structlog
from opentelemetry import trace
from opentelemetry.trace import Span

from jetjobs import HostDenied, __version__, backoff_delay
from jobsearch.retry_after import retry_after
from jobsearch.sources import spans
from jobsearch.sources.errors import FailureKind, SourceError
from jobsearch.sources.hosts import CheckedTransport, board_host_policy

log = structlog.get_logger("jobsearch.sources")

PROJECT_URL = "https://github.com/jetjobs/jetjobs/blob/main/docs/boards.md"
USER_AGENT = f"jobsearch/{__version__} (+{PROJECT_URL})"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

Seconds = Annotated[float, msgspec.Meta(ge=0)]


class HttpPolicy(msgspec.Struct, kw_only=True, frozen=True):
    """How BoardHttp treats the boards: timeouts, retries, politeness and size limits."""

    timeout: Annotated[float, msgspec.Meta(gt=0)] = 20.0  # connect, read, write and pool, each
    deadline: Annotated[float, msgspec.Meta(gt=0)] = 60.0  # one whole response, body included
    retries: Annotated[int, msgspec.Meta(ge=0, le=10)] = 3  # after the first attempt
    backoff: Seconds = 1.0  # the first retry's delay when the board gives no Retry-After; doubles
    max_retry_after: Seconds = 60.0  # a longer Retry-After fails now, as `rate_limited`
    min_interval: Seconds = 1.0  # between the starts of two requests to one host
    per_host: Annotated[int, msgspec.Meta(ge=1, le=32)] = 2  # requests in flight to one host
    max_bytes: Annotated[int, msgspec.Meta(ge=1024)] = 20 * 1024 * 1024
    user_agent: str = USER_AGENT
    # Internal hosts the boards may be read from (JOBSEARCH_ALLOW_HOSTS); none by default.
    allow_hosts: tuple[str, ...] = ()


@dataclass
class _HostGate:
    """One host's share of politeness: a concurrency limit and the next allowed start time."""

    slots: anyio.Semaphore
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    next_start: float = 0.0


@dataclass(frozen=True, slots=True)
class Body:
    """A successful response's body and what the server said it is."""

    url: str  # where the answer came from, after any redirects
    content: bytes
    content_type: str


class BoardHttp:
    """An `httpx.AsyncClient` with the boards' manners. Use `async with BoardHttp() as http:`.

    One per service process: the politeness limits are per host across every source it reads.
    Requests go through `CheckedTransport` (the host policy) unless a `transport` is given (tests'
    `httpx.MockTransport`, which reaches no host). Each request sent is a CLIENT span on `tracer`
    (the process's tracer by default: a no-op one while tracing is off).
    """

    def __init__(
        self,
        policy: HttpPolicy | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        tracer: trace.Tracer | None = None,
    ):
        self.policy = policy or HttpPolicy()
        self.tracer = tracer or spans.board_tracer()  # a test's own provider's, else the process's
        if transport is None:
            transport = CheckedTransport(board_host_policy(self.policy.allow_hosts))
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(self.policy.timeout),
            headers={"User-Agent": self.policy.user_agent, "Accept-Encoding": "gzip, deflate"},
            follow_redirects=True,
            max_redirects=5,
            transport=transport,
        )
        self._gates: dict[str, _HostGate] = {}
        self.requests = 0  # sent, retries included (for tests and the run's summary)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self.client.aclose()

    async def get_json(self, board: str, url: str, *, params: Mapping[str, Any] | None = None) -> Any:
        """GET a JSON document; any failure is a SourceError (HTML pages and bad JSON included)."""
        return _json(board, await self.get(board, url, params=params, accept="application/json"))

    async def post_json(self, board: str, url: str, payload: Any) -> Any:
        """POST `payload` as JSON and decode the JSON answer (a search endpoint, such as Workday's).

        The same manners, retries and failures as `get_json`: a board's search is a read.
        """
        request = self.client.build_request(
            "POST",
            url,
            content=msgspec.json.encode(payload),
            headers={"Accept": "application/json", "Content-Type": "application/json"},
        )
        return _json(board, await self._send_politely(board, request))

    async def get(
        self,
        board: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        accept: str = "*/*",
    ) -> Body:
        """GET `url` politely, retrying 429/5xx/timeouts; raise SourceError on any failure.

        Every request sent, each retry too, is a CLIENT span (`jobsearch.sources.spans`).
        """
        request = self.client.build_request("GET", url, params=params, headers={"Accept": accept})
        return await self._send_politely(board, request)

    async def _send_politely(self, board: str, request: httpx.Request) -> Body:
        for attempt in range(self.policy.retries + 1):
            async with self._polite(request.url.host):
                self.requests += 1
                with spans.request_span(self.tracer, board, request, attempt) as span:
                    outcome = await self._attempt(board, request, attempt, span)
            if isinstance(outcome, Body):
                return outcome
            await anyio.sleep(outcome)  # the host's slot is free meanwhile
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    async def _attempt(self, board: str, request: httpx.Request, attempt: int, span: Span) -> Body | float:
        """Send `request` once: the Body, or the seconds to wait before the next attempt.

        Raises:
            SourceError: a failure not worth retrying, or any failure of the last attempt.
        """
        shown = str(request.url)
        try:
            status, headers, content, reached = await self._send(board, request, span)
        except SourceError as exc:
            spans.failed(span, exc, status=None)
            if attempt == self.policy.retries or not exc.retryable:
                raise
            delay = self._backoff(attempt)
            spans.retrying(span, delay, None)
            log.info("board.retry", board=board, url=shown, reason=exc.detail, delay=round(delay, 2))
            return delay
        if 200 <= status < 300:
            return Body(reached, content, headers.get("content-type", "").lower())
        wait = retry_after(headers.get("retry-after")) if status in RETRY_STATUSES else None
        error = self._given_up(board, status, wait, shown, attempt)
        if error is not None:
            spans.failed(span, error, status=status)
            raise error
        delay = wait if wait is not None else self._backoff(attempt)
        spans.retrying(span, delay, wait)
        log.info("board.retry", board=board, url=shown, status=status, delay=round(delay, 2))
        return delay

    def _given_up(
        self, board: str, status: int, wait: float | None, url: str, attempt: int
    ) -> SourceError | None:
        """Why a request answered `status` fails now, or None when another attempt is worth it."""
        if status not in RETRY_STATUSES:
            return _refused(board, status, url)
        if wait is not None and wait > self.policy.max_retry_after:
            return SourceError(
                board, "rate_limited", f"HTTP {status}, asked to wait {wait:.0f} s", url=url, retry_after=wait
            )
        if attempt == self.policy.retries:
            kind: FailureKind = "rate_limited" if status == 429 else "server_error"
            return SourceError(
                board, kind, f"HTTP {status} after {attempt + 1} attempts", url=url, retry_after=wait
            )
        return None

    def _backoff(self, attempt: int) -> float:
        """`backoff` doubling from the first retry (attempt 0), spread by a quarter either way."""
        policy = self.policy
        return backoff_delay(attempt + 1, base=policy.backoff, cap=policy.max_retry_after, jitter=0.25)

    async def _send(
        self, board: str, request: httpx.Request, span: Span
    ) -> tuple[int, httpx.Headers, bytes, str]:
        """Send once: status, headers, a size-capped body within the deadline (told to `span`) and
        the URL the answer came from (after any redirects)."""
        shown = str(request.url)
        cap = self.policy.max_bytes
        try:
            with anyio.fail_after(self.policy.deadline):
                response = await self.client.send(request, stream=True)
                try:
                    declared = response.headers.get("content-length")
                    if declared and declared.isdigit() and int(declared) > cap:
                        raise _too_large(board, shown, cap)
                    chunks: list[bytes] = []
                    size = 0
                    async for chunk in response.aiter_bytes():
                        size += len(chunk)
                        if size > cap:
                            raise _too_large(board, shown, cap)
                        chunks.append(chunk)
                finally:
                    await response.aclose()
                    spans.answered(span, response.status_code, response.num_bytes_downloaded)
        except HostDenied as exc:
            raise SourceError(board, "host_denied", exc.reason, url=shown) from None
        except (TimeoutError, httpx.TimeoutException):
            raise SourceError(board, "timeout", "timed out", url=shown) from None
        except httpx.TooManyRedirects:
            raise SourceError(board, "refused", "redirected too many times", url=shown) from None
        except httpx.DecodingError as exc:
            raise SourceError(board, "malformed", f"sent an undecodable body ({exc})", url=shown) from None
        except httpx.TransportError as exc:
            raise SourceError(
                board, "network", f"could not connect ({type(exc).__name__}: {exc})", url=shown
            ) from None
        return response.status_code, response.headers, b"".join(chunks), str(response.url)

    def _polite(self, host: str) -> _Polite:
        gate = self._gates.get(host)
        if gate is None:
            gate = self._gates[host] = _HostGate(anyio.Semaphore(self.policy.per_host))
        return _Polite(gate, self.policy.min_interval)


class _Polite:
    """Holds one of a host's slots, starting no sooner than `min_interval` after the last start."""

    def __init__(self, gate: _HostGate, interval: float) -> None:
        self.gate = gate
        self.interval = interval

    async def __aenter__(self) -> None:
        await self.gate.slots.acquire()
        try:
            async with self.gate.lock:
                now = anyio.current_time()
                start = max(now, self.gate.next_start)
                self.gate.next_start = start + self.interval
            if start > now:
                await anyio.sleep(start - now)
        except BaseException:
            self.gate.slots.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self.gate.slots.release()


def _json(board: str, body: Body) -> Any:
    """A body decoded as JSON; an HTML page or malformed JSON is a SourceError."""
    # JSON never starts with "<"; the content type alone is not trusted (some boards send JSON as
    # text/html).
    if body.content[:512].lstrip().startswith(b"<"):
        raise SourceError(
            board, "html_page", "answered with an HTML page where JSON was expected", url=body.url
        )
    try:
        return msgspec.json.decode(body.content)
    except msgspec.DecodeError as exc:
        raise SourceError(board, "malformed", f"answered with malformed JSON ({exc})", url=body.url) from None


def _too_large(board: str, url: str, cap: int) -> SourceError:
    return SourceError(board, "too_large", f"sent a body larger than the {cap}-byte cap", url=url)


def _refused(board: str, status: int, url: str) -> SourceError:
    if status in (404, 410):
        return SourceError(
            board, "not_found", f"HTTP {status}: no such board (check the source's name or token)", url=url
        )
    if status in (401, 403):
        return SourceError(board, "refused", f"HTTP {status}: the board refused access", url=url)
    return SourceError(board, "refused", f"HTTP {status}", url=url)
