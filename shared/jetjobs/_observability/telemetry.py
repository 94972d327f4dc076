"""Tracing: one OpenTelemetry trace per job, across every process that touches it.

The publisher opens a PRODUCER span and injects W3C trace context (`traceparent`, `tracestate`)
into the NATS message headers; the worker extracts it and runs the handler in a CONSUMER span that
is the producer's child. Follow-up jobs submitted from a handler (`ctx.enqueue`) are published
inside the consumer span, so a pipeline item is one trace. Every attempt (retries, redeliveries)
is a consumer span of the same trace.

Export is configured by the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the
specification's default, or `grpc`), `OTEL_SERVICE_NAME`. With no endpoint set, no SDK is
installed, no span is created, and incoming trace headers are passed on unchanged: tracing then
costs a dictionary lookup per job.

Spans leave in the background; at exit the last ones are flushed for at most `FLUSH_TIMEOUT`
seconds, so an exporter that cannot reach its collector never holds a command up for longer.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import structlog
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from jetjobs._observability.redact import mask_url

_TRACE_HEADERS = ("traceparent", "tracestate")
# The OpenTelemetry specification's default protocol for OTLP exporters.
DEFAULT_PROTOCOL = "http/protobuf"
# The longest a process waits at exit for its last spans to be exported.
FLUSH_TIMEOUT = 2.0
_provider: Any = None
# (provider, whether its sampler drops every span whose remote parent was not sampled: a
# parent-based sampler with its default for that case, so that `_dropped` need not ask it).
_parent_decides_of: tuple[Any, bool] | None = None


def tracing_configured(env: Mapping[str, str] | None = None) -> bool:
    """Whether an OTLP endpoint is configured in the environment."""
    env = os.environ if env is None else env
    return bool(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def setup_tracing(service_name: str, env: Mapping[str, str] | None = None) -> bool:
    """Install a TracerProvider with an OTLP exporter if an endpoint is configured.

    Returns:
        True if tracing is now on.
    """
    global _provider  # noqa: PLW0603 - one provider per process, like the OTel global it installs
    env = os.environ if env is None else env
    if _provider is not None:
        return True
    if not tracing_configured(env):
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    protocol = (
        env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or DEFAULT_PROTOCOL
    )
    exporter: Any
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter

        exporter = GrpcExporter()
    else:
        from jetjobs._observability.otlp import LeanSpanExporter

        exporter = LeanSpanExporter()
    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME") or service_name})
    # No atexit shutdown of its own: shutdown_tracing bounds the final flush, the SDK would not.
    provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=500))
    trace.set_tracer_provider(provider)
    _provider = provider
    return True


def shutdown_tracing(timeout: float = FLUSH_TIMEOUT) -> bool:
    """Flush and stop the exporter (at process exit), waiting at most `timeout` seconds.

    Returns:
        False when the exporter did not finish in time: the spans not sent yet are dropped, and
        one warning line says so.
    """
    global _provider
    provider, _provider = _provider, None
    if provider is None:
        return True
    # The SDK's own shutdown waits as long as the exporter retries (10 s and more): a daemon
    # thread runs it, and the process does not wait for that thread past `timeout`.
    flush = threading.Thread(target=provider.shutdown, name="jetjobs-tracing-flush", daemon=True)
    flush.start()
    flush.join(timeout)
    if flush.is_alive():
        structlog.get_logger("jetjobs.telemetry").warning(
            "tracing.flush_abandoned",
            waited=timeout,
            detail="the OTLP exporter did not finish; the spans it still held are dropped",
        )
        return False
    return True


def enabled() -> bool:
    """Whether spans are being recorded in this process."""
    return _provider is not None


def _tracer() -> trace.Tracer:
    # One tracer per provider: `get_tracer` builds a new one (and its scope) on every call.
    global _tracer_of  # noqa: PLW0603 - a cache of the process-wide provider's tracer
    if _tracer_of is None or _tracer_of[0] is not _provider:
        _tracer_of = (_provider, trace.get_tracer("jetjobs"))
    return _tracer_of[1]


_tracer_of: tuple[Any, trace.Tracer] | None = None


_NO_SPAN: contextlib.nullcontext[None] = contextlib.nullcontext()


def producer_span(subject: str, job: Any, headers: dict[str, str]) -> contextlib.AbstractContextManager[None]:
    """Around a publish: a PRODUCER span whose context is injected into `headers`."""
    if _provider is None and not _passthrough.get(None):
        return _NO_SPAN  # tracing off, and no trace to pass on: nothing to do
    return _producer_span(subject, job, headers)


@contextlib.contextmanager
def _producer_span(subject: str, job: Any, headers: dict[str, str]) -> Iterator[None]:
    if not enabled():
        # Pass on the trace of the job we are running (if any) without recording anything.
        headers.update(_current_trace_headers())
        yield
        return
    with _tracer().start_as_current_span(f"publish {job.type}", kind=SpanKind.PRODUCER) as span:
        if span.is_recording():  # attributes only for a sampled trace
            span.set_attributes(
                {
                    "messaging.system": "nats",
                    "messaging.operation.type": "send",
                    "messaging.operation.name": "publish",
                    "messaging.destination.name": subject,
                    "messaging.message.id": job.msg_id,
                    "jetjobs.job.id": job.id,
                    "jetjobs.job.type": job.type,
                    "jetjobs.job.priority": job.priority,
                }
            )
        propagate.inject(headers)
        yield


# With tracing off, the trace headers of the job being run, passed on to its follow-up jobs.
_passthrough: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("jetjobs_trace_headers")


def _current_trace_headers() -> dict[str, str]:
    return _passthrough.get({})


def consumer_span(
    msg_subject: str, headers: Mapping[str, str], job_type: str, attributes: Callable[[], dict[str, Any]]
) -> contextlib.AbstractContextManager[Span | None]:
    """Around a handler: a CONSUMER span, child of the producer span carried in `headers`.

    `attributes()` is called only for a sampled trace (OTEL_TRACES_SAMPLER, e.g.
    `parentbased_traceidratio`): a job whose trace is not sampled costs a non-recording span.
    Tracing off and no trace headers (most jobs of an untraced system): nothing at all.
    """
    if _provider is None and "traceparent" not in headers and not _passthrough.get(None):
        return _NO_SPAN
    carried = {k: v for k in _TRACE_HEADERS if (v := headers.get(k))}
    if _provider is None or _dropped(carried.get("traceparent", ""), job_type):
        # No span: the trace headers pass on unchanged to follow-up jobs (with an unsampled
        # parent, so that the whole trace stays unsampled, as a non-recording span would).
        return _PassOn(carried)
    return _consumer_span(msg_subject, carried, job_type, attributes)


class _PassOn:
    """For the handler's duration: the trace headers its follow-up jobs carry (no span)."""

    __slots__ = ("carried", "token")

    def __init__(self, carried: dict[str, str]) -> None:
        self.carried = carried
        self.token: contextvars.Token[dict[str, str]] | None = None

    def __enter__(self) -> None:
        self.token = _passthrough.set(self.carried)

    def __exit__(self, *_: object) -> None:
        assert self.token is not None
        _passthrough.reset(self.token)


@contextlib.contextmanager
def _consumer_span(
    msg_subject: str, carried: dict[str, str], job_type: str, attributes: Callable[[], dict[str, Any]]
) -> Iterator[Span | None]:
    parent = propagate.extract(carried)
    with _tracer().start_as_current_span(
        f"process {job_type}",
        context=parent,
        kind=SpanKind.CONSUMER,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        if span.is_recording():
            span.set_attributes(
                {
                    "messaging.system": "nats",
                    "messaging.operation.type": "process",
                    "messaging.operation.name": "process",
                    "messaging.destination.name": msg_subject,
                    **attributes(),
                }
            )
        yield span


def _dropped(traceparent: str, job_type: str) -> bool:
    """Whether the sampler drops the consumer span of a job whose producer did not sample it.

    Asked directly, without the cost of a non-recording span and its context: a parent-based
    sampler (the usual kind) drops every job whose parent says "not sampled".
    """
    parts = traceparent.split("-")
    if len(parts) != 4 or len(parts[1]) != 32 or len(parts[2]) != 16 or parts[3] != "00":
        return False  # no parent, a sampled one, or an unreadable header: the SDK decides
    try:
        trace_id, span_id = int(parts[1], 16), int(parts[2], 16)
    except ValueError:
        return False
    if _parent_decides():
        return True  # what the question below answers for a parent-based sampler's default
    parent = trace.set_span_in_context(
        trace.NonRecordingSpan(
            trace.SpanContext(trace_id, span_id, is_remote=True, trace_flags=trace.TraceFlags(0))
        )
    )
    result = _provider.sampler.should_sample(parent, trace_id, f"process {job_type}", SpanKind.CONSUMER)
    return not result.decision.is_sampled()


def _parent_decides() -> bool:
    """Whether the provider's sampler drops every child of an unsampled remote parent."""
    global _parent_decides_of  # noqa: PLW0603 - a cache, like _tracer_of
    if _parent_decides_of is None or _parent_decides_of[0] is not _provider:
        from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased

        sampler = _provider.sampler
        drops = isinstance(sampler, ParentBased) and sampler._remote_parent_not_sampled is ALWAYS_OFF
        _parent_decides_of = (_provider, drops)
    return _parent_decides_of[1]


def mark_attempt(attempt: int) -> None:
    """Record the attempt (executions so far, this one included) on the current (consumer) span."""
    if enabled():
        trace.get_current_span().set_attribute("jetjobs.job.attempt", attempt)


def mark_outcome(outcome: str, error: str | None) -> None:
    """Record the job's outcome on the current (consumer) span."""
    if not enabled():
        return
    span = trace.get_current_span()
    span.set_attribute("jetjobs.job.outcome", outcome)
    if error:
        span.set_status(Status(StatusCode.ERROR, mask_url(error)[:256]))


def log_ids() -> dict[str, str]:
    """trace_id and span_id of the current span, for log lines (empty when not tracing)."""
    if _provider is None and not _passthrough.get(None):
        return {}
    span = trace.get_current_span()
    ctx = span.get_span_context()
    if not ctx.is_valid:
        carried = _passthrough.get({})
        parent = carried.get("traceparent", "")
        parts = parent.split("-")
        return {"trace_id": parts[1], "span_id": parts[2]} if len(parts) == 4 else {}
    return {"trace_id": format(ctx.trace_id, "032x"), "span_id": format(ctx.span_id, "016x")}
