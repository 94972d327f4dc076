"""The lean OTLP encoder against the SDK's: what it writes decodes to the very request the SDK's
encoder builds; what it cannot write (events, links, lists) is left to the SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.trace.span import TraceState

from jetjobs._observability.otlp import LeanSpanExporter, Unsupported, encode_request
from tests.otlp_receiver import OtlpReceiver


class Kept(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Any) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, Kept]]:
    kept = Kept()
    provider = TracerProvider(resource=Resource.create({"service.name": "w", "replicas": 3, "ok": True}))
    provider.add_span_processor(SimpleSpanProcessor(kept))
    yield provider, kept
    provider.shutdown()


def _same_as_the_sdk(batch: list[ReadableSpan]) -> None:
    ours = ExportTraceServiceRequest.FromString(encode_request(batch))
    assert ours == encode_spans(batch)


def test_worker_spans_decode_to_the_sdk_request(spans: tuple[TracerProvider, Kept]) -> None:
    """Consumer spans under remote parents (sampled, with a trace state), local children, every
    kind, every status, attributes of each simple type (defaults, negatives, unicode, int64 ends),
    two instrumentation scopes and a span with no attributes."""
    provider, kept = spans
    tracer = provider.get_tracer("jetjobs", "1.2.3")
    other = provider.get_tracer("handler-lib", schema_url="https://opentelemetry.io/schemas/1.21.0")
    remote = SpanContext(
        0x0AF7651916CD43DD8448EB211C80319C,
        0xB7AD6B7169203331,
        is_remote=True,
        trace_flags=TraceFlags(1),
        trace_state=TraceState([("vendor", "abc"), ("other", "x-1")]),
    )
    parent = trace.set_span_in_context(NonRecordingSpan(remote))
    for kind in SpanKind:
        with tracer.start_as_current_span(f"process job.{kind.name}", context=parent, kind=kind) as span:
            span.set_attributes(
                {
                    "messaging.system": "nats",
                    "messaging.nats.stream_sequence": 1042,
                    "jetjobs.job.attempt": 0,
                    "neg": -5,
                    "int64.min": -(2**63),
                    "int64.max": 2**63 - 1,
                    "ratio": 0.25,
                    "zero": 0.0,
                    "flag": False,
                    "empty": "",
                    "text": "café ✓",
                }
            )
            with other.start_as_current_span("inner"):
                pass
            span.set_status(
                Status(StatusCode.ERROR, "boom: nats://***@host") if kind.value % 2 else Status(StatusCode.OK)
            )
    with tracer.start_as_current_span("root, no attributes"):
        pass
    assert len(kept.spans) == 2 * len(SpanKind) + 1
    _same_as_the_sdk(kept.spans)
    _same_as_the_sdk(kept.spans[:1])


@pytest.mark.parametrize(
    "make",
    [
        lambda span: span.add_event("retry", {"n": 1}),
        lambda span: span.set_attribute("list", ["a", "b"]),
        lambda span: span.set_attribute("huge", 2**63),
    ],
    ids=["event", "list", "beyond int64"],
)
def test_what_it_cannot_write_is_left_to_the_sdk(spans: tuple[TracerProvider, Kept], make: Any) -> None:
    provider, kept = spans
    with provider.get_tracer("t").start_as_current_span("s") as span:
        make(span)
    with pytest.raises(Unsupported):
        encode_request(kept.spans)


def test_the_exporter_sends_the_lean_bytes_and_falls_back(
    spans: tuple[TracerProvider, Kept], otlp: OtlpReceiver
) -> None:
    """To a real OTLP/HTTP receiver: a plain batch is posted as the lean encoding; a batch with an
    event goes through the SDK's export (the SDK internals it relies on are there)."""
    provider, kept = spans
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("plain") as span:
        span.set_attribute("a", 1)
    with tracer.start_as_current_span("with event") as span:
        span.add_event("e")
    receiver = otlp
    exporter = LeanSpanExporter(endpoint=f"{receiver.endpoint}/v1/traces")
    try:
        assert exporter.export(kept.spans[:1]) is SpanExportResult.SUCCESS
        assert exporter.export(kept.spans[1:]) is SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()
    assert receiver.bodies[0] == encode_request(kept.spans[:1])
    assert ExportTraceServiceRequest.FromString(receiver.bodies[1]) == encode_spans(kept.spans[1:])
    assert [span.name for span in receiver.spans] == ["plain", "with event"]
