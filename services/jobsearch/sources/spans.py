"""Board requests in the trace: an OpenTelemetry CLIENT span for every HTTP request to a board.

One span per request sent, retries included, as the OpenTelemetry HTTP semantic conventions ask
("a CLIENT span SHOULD be created for each one of these physical requests"): a board that answers
429 and then 200 is two spans, the second with `http.request.resend_count = 1`, each with its own
status and timing, and the wait between them is the gap between the spans (and the first span's
`jobsearch.retry_delay_s`). One span per logical request with an event per retry would hide each
attempt's own duration and status, and span events take the slower export path
(docs/observability.md). Redirects that httpx follows stay inside the span of the request that
met them.

Attributes follow the conventions: `http.request.method`, `url.full` (userinfo and secret-looking
query values replaced by `REDACTED`, as the conventions say), `server.address`, `server.port`,
`http.response.status_code`, `http.response.body.size` (bytes read off the wire), `error.type`;
and ours: `jobsearch.board`, `jobsearch.retry_after_s` (what a 429 or 503's `Retry-After` asked),
`jobsearch.retry_delay_s` (the wait before the next attempt) and `jobsearch.failure_kind` (the
`SourceError` kind of an attempt that ended in one: the last, or a retried timeout). The span's
status is ERROR for a 4xx or 5xx answer and for a request that got no answer; its description
never holds the URL.

The span is a child of the current span: the source job's consumer span when the fetch worker
runs it. With tracing off the tracer is OpenTelemetry's no-op one, and nothing is computed.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from urllib.parse import unquote_plus

import httpx
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from jetjobs import __version__
from jobsearch.sources.errors import SourceError

REDACTED = "REDACTED"  # the semantic conventions' own word for a removed secret
# Query keys whose values are secrets (the conventions name AWSAccessKeyId, Signature, sig and
# X-Goog-Signature; these words cover them and the usual api_key, token, password...).
_SECRET_KEY = re.compile(r"key|token|secret|pass|pwd|auth|sig|credential|session", re.IGNORECASE)
# A value that looks like a key whatever its name: long, one word, letters and digits mixed.
_KEY_LIKE = re.compile(r"(?=[^&]*\d)(?=[^&]*[A-Za-z])[A-Za-z0-9_~+/=.-]{24,}")
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/?#\s@]*@", re.IGNORECASE)


def board_tracer() -> trace.Tracer:
    """The tracer of board requests: the global provider's, a no-op one while tracing is off.

    A tracer taken before tracing is set up still follows it: OpenTelemetry's proxy tracer
    resolves to the provider once one is installed.
    """
    return trace.get_tracer("jobsearch.sources", __version__)


@contextlib.contextmanager
def request_span(tracer: trace.Tracer, board: str, request: httpx.Request, resend: int) -> Iterator[Span]:
    """Around one request sent to a board: its CLIENT span, current while it is sent and read.

    Args:
        tracer: where the span goes (`board_tracer()`, or a test's own provider's).
        board: the board read (`greenhouse`...), as the span's `jobsearch.board`.
        request: the request about to be sent.
        resend: how many times this request was sent before (0 for the first attempt).
    """
    url = request.url
    with tracer.start_as_current_span(
        f"{request.method} {url.host}",
        kind=SpanKind.CLIENT,
        record_exception=False,  # failures are described by `failed`, without the URL
        set_status_on_exception=False,
    ) as span:
        if span.is_recording():  # attributes only for a sampled trace
            span.set_attributes(
                {
                    "http.request.method": request.method,
                    "url.full": trace_url(url),
                    "server.address": url.host,
                    "server.port": url.port or (443 if url.scheme == "https" else 80),
                    "jobsearch.board": board,
                }
            )
            if resend:  # the conventions: set on resends only
                span.set_attribute("http.request.resend_count", resend)
        yield span


def answered(span: Span, status: int, body_size: int) -> None:
    """The board's answer: its status (ERROR for 4xx and 5xx, as the conventions say) and size."""
    if not span.is_recording():
        return
    span.set_attributes({"http.response.status_code": status, "http.response.body.size": body_size})
    if status >= 400:
        span.set_attribute("error.type", str(status))
        span.set_status(Status(StatusCode.ERROR, f"HTTP {status}"))


def retrying(span: Span, delay: float, retry_after: float | None) -> None:
    """This attempt is followed by another after `delay` seconds (`retry_after`: what the board asked)."""
    if not span.is_recording():
        return
    span.set_attribute("jobsearch.retry_delay_s", round(delay, 3))
    if retry_after is not None:
        span.set_attribute("jobsearch.retry_after_s", retry_after)


def failed(span: Span, error: SourceError, *, status: int | None) -> None:
    """The attempt ended in `error` (a retry may still follow): ERROR, described by the error.

    `status` is the board's HTTP status if it answered (then already the span's `error.type`).
    """
    if not span.is_recording():
        return
    span.set_attribute("jobsearch.failure_kind", error.kind)
    if error.retry_after is not None:
        span.set_attribute("jobsearch.retry_after_s", error.retry_after)
    if status is None:
        span.set_attribute("error.type", error.kind)  # no answer: a timeout, a refused host...
    detail = _USERINFO.sub(rf"\1{REDACTED}@", error.detail)
    span.set_status(Status(StatusCode.ERROR, f"{error.kind}: {detail}"[:256]))


def trace_url(url: httpx.URL) -> str:
    """`url` fit for a trace: no userinfo, secret-looking query values replaced by `REDACTED`."""
    userinfo = f"{REDACTED}:{REDACTED}@" if url.userinfo else ""
    path = url.raw_path.decode("ascii").partition("?")[0]
    shown = f"{url.scheme}://{userinfo}{url.netloc.decode('ascii')}{path}"
    query = url.query.decode("ascii")
    if query:
        shown += "?" + "&".join(_query_part(part) for part in query.split("&"))
    return shown


def _query_part(part: str) -> str:
    name, equals, value = part.partition("=")
    if equals and value and (_SECRET_KEY.search(unquote_plus(name)) or _KEY_LIKE.fullmatch(value)):
        return f"{name}={REDACTED}"
    return part
