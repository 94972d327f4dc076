"""Provider calls in the trace: a span for every request sent to a model, as the GenAI conventions name it.

Spans follow OpenTelemetry's GenAI semantic conventions for inference (status: development): the
name is `{gen_ai.operation.name} {gen_ai.request.model}` ("chat gpt-4o-mini", "generate_content
gemini-2.5-flash": Gemini's API is the conventions' example of `generate_content`), the kind
CLIENT (INTERNAL for the offline template, which runs in the process), and the attributes
`gen_ai.operation.name`, `gen_ai.provider.name` (the conventions' well-known values: `openai`,
`anthropic`, `gcp.gemini`, `deepseek`; ours where they have none: `opencode`, `ollama`,
`offline`), `gen_ai.request.model`, `gen_ai.request.max_tokens`, `server.address`, `server.port`,
and from the answer `gen_ai.response.model`, `gen_ai.usage.input_tokens`,
`gen_ai.usage.output_tokens`, `gen_ai.response.finish_reasons` (one of `stop`, `length`,
`content_filter`, `tool_call`, else the provider's own word, lower-cased) and
`http.response.status_code`; ours: `jobsearch.step`, `jobsearch.cost_usd` (from the price table).

One span per request sent, retries included, as for board requests (`jobsearch.sources.spans`)
and as the HTTP conventions ask: a 500 then a 200 is two spans, the second with
`http.request.resend_count = 1`, each with its own status and timing; the first carries
`jobsearch.retry_delay_s`, the wait that followed it (the provider's pause when it named one, also
as `jobsearch.retry_after_s`). A call that meets a paused provider it cannot wait for sends no
request, so it has no span here; its `llm.fell_over` log line says so.

A failed request has status ERROR, described by the scrubbed reason, and `error.type`: the HTTP
status of an error answer (`429`, `503`), `timeout`, the httpx error of a request without an
answer (`ConnectError`...), or the provider error a readable answer was not (`BadResponse`,
`ProviderRejected`); `jobsearch.failure_kind` says what it meant (`retry`, `quota`, `reject`,
`bad_response`).

No prompt or draft text is recorded unless `LLM_TRACE_CONTENT=1`: then the conventions' opt-in
`gen_ai.system_instructions`, `gen_ai.input.messages` and `gen_ai.output.messages` carry them, as
JSON strings in the conventions' message shapes (the SDK takes no structured attribute values).

With tracing off the tracer is OpenTelemetry's no-op one, and nothing is computed: every
attribute is set only on a recording span.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from jetjobs import __version__
from jobsearch.llm.messages import LlmRequest, Reply

CHAT = "chat"
GENERATE_CONTENT = "generate_content"
# gen_ai.provider.name: the conventions' well-known value where there is one.
PROVIDER_NAMES = {"gemini": "gcp.gemini"}
# Each provider's finish reasons, as the conventions' output messages spell them.
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "safety": "content_filter",
    "recitation": "content_filter",
    "tool_calls": "tool_call",
    "tool_use": "tool_call",
}
_JSON = msgspec.json.Encoder()


def llm_tracer() -> trace.Tracer:
    """The tracer of provider calls: the global provider's, a no-op one while tracing is off."""
    return trace.get_tracer("jobsearch.llm", __version__)


@contextlib.contextmanager
def call_span(
    tracer: trace.Tracer,
    provider: str,
    model: str,
    request: LlmRequest,
    *,
    operation: str = CHAT,
    url: str | None = None,
    resend: int = 0,
    content: bool = False,
) -> Iterator[Span]:
    """Around one request to a model: its span, current while it is sent and read.

    Args:
        tracer: where the span goes (`llm_tracer()`, or a test's own provider's).
        provider: our name of the provider (`openai`, `offline`...).
        model: the model asked for.
        request: the call's request (its step, output budget and, if `content`, its text).
        operation: `chat`, or `generate_content` for Gemini.
        url: where the request goes; None for a provider in the process (an INTERNAL span).
        resend: how many times this request was sent before (0 for the first).
        content: whether to record the instructions and the prompt (`LLM_TRACE_CONTENT`).
    """
    with tracer.start_as_current_span(
        f"{operation} {model}",
        kind=SpanKind.CLIENT if url is not None else SpanKind.INTERNAL,
        record_exception=False,  # failures are described by `refused` and `failed`
        set_status_on_exception=False,
    ) as span:
        if span.is_recording():  # attributes only for a sampled trace
            attributes: dict[str, Any] = {
                "gen_ai.operation.name": operation,
                "gen_ai.provider.name": PROVIDER_NAMES.get(provider, provider),
                "gen_ai.request.model": model,
                "gen_ai.request.max_tokens": request.max_tokens,
                "jobsearch.step": request.step,
            }
            if url is not None:
                parsed = httpx.URL(url)
                attributes["server.address"] = parsed.host
                attributes["server.port"] = parsed.port or (443 if parsed.scheme == "https" else 80)
            if resend:  # the HTTP conventions: set on resends only
                attributes["http.request.resend_count"] = resend
            if content:
                attributes["gen_ai.system_instructions"] = _json([_text(request.system)])
                attributes["gen_ai.input.messages"] = _json(
                    [{"role": "user", "parts": [_text(request.prompt)]}]
                )
            span.set_attributes(attributes)
        yield span


def answered(span: Span, reply: Reply, cost_usd: float, *, status: int | None, content: bool) -> None:
    """The model's answer: the model that wrote it, its usage and cost (and text, if `content`)."""
    if not span.is_recording():
        return
    attributes: dict[str, Any] = {
        "gen_ai.response.model": reply.model,
        "gen_ai.usage.input_tokens": reply.tokens_in,
        "gen_ai.usage.output_tokens": reply.tokens_out,
        "jobsearch.cost_usd": cost_usd,
    }
    if status is not None:
        attributes["http.response.status_code"] = status
    finish = finish_reason(reply)
    if finish is not None:
        attributes["gen_ai.response.finish_reasons"] = (finish,)
    if content:
        message = {"role": "assistant", "parts": [_text(reply.text)], "finish_reason": finish or "stop"}
        attributes["gen_ai.output.messages"] = _json([message])
    span.set_attributes(attributes)


def refused(span: Span, status: int, kind: str, reason: str, retry_after: float | None) -> None:
    """An error answer (HTTP `status`), meaning `kind` (`retry`, `quota`, `reject`)."""
    if not span.is_recording():
        return
    span.set_attributes(
        {"http.response.status_code": status, "error.type": str(status), "jobsearch.failure_kind": kind}
    )
    if retry_after is not None:
        span.set_attribute("jobsearch.retry_after_s", retry_after)
    span.set_status(Status(StatusCode.ERROR, reason[:256]))


def failed(span: Span, error_type: str, kind: str, reason: str, *, status: int | None = None) -> None:
    """No usable answer: none at all (`timeout`, `ConnectError`) or an unreadable one."""
    if not span.is_recording():
        return
    span.set_attributes({"error.type": error_type, "jobsearch.failure_kind": kind})
    if status is not None:
        span.set_attribute("http.response.status_code", status)
    span.set_status(Status(StatusCode.ERROR, reason[:256]))


def retrying(span: Span, delay: float) -> None:
    """This request is followed by another after about `delay` seconds."""
    if span.is_recording():
        span.set_attribute("jobsearch.retry_delay_s", round(delay, 3))


def finish_reason(reply: Reply) -> str | None:
    """Why the model stopped, in the conventions' words where they have one."""
    if reply.finish_reason is None:
        return None
    raw = reply.finish_reason.lower()
    return _FINISH_REASONS.get(raw, raw)


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "content": text}


def _json(value: Any) -> str:
    return _JSON.encode(value).decode()
