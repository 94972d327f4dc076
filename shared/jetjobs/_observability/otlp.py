"""Span batches for OTLP/HTTP, encoded straight to protobuf bytes.

The SDK's exporter builds a protobuf object per span, per attribute and per attribute value, then
serializes them: with every job traced, that was more than a third of a worker's CPU, in the
exporter's thread. `encode_request` writes the same `ExportTraceServiceRequest` directly (varints,
length-prefixed fields) for the spans a worker makes: string, bool, int and float attributes, no
events, no links. A batch holding anything else (a handler's span with an event, a list-valued
attribute) is encoded by the SDK, as before. `LeanSpanExporter` is the SDK's OTLP/HTTP exporter
with this encoder in front; `tests/unit/test_otlp.py` checks that what it writes decodes to what
the SDK's encoder makes.

Field numbers: opentelemetry-proto, `trace/v1/trace.proto`, `common/v1/common.proto`,
`resource/v1/resource.proto`, `collector/trace/v1/trace_service.proto`.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.trace import SpanKind

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_KIND = {
    SpanKind.INTERNAL: 1,
    SpanKind.SERVER: 2,
    SpanKind.CLIENT: 3,
    SpanKind.PRODUCER: 4,
    SpanKind.CONSUMER: 5,
}
# Span.flags: "has is_remote" always, "is remote" when the parent is (SpanFlags in trace.proto).
_HAS_IS_REMOTE, _IS_REMOTE = 0x100, 0x200


class Unsupported(Exception):
    """A span this encoder does not write (the SDK's encoder takes the batch)."""


_ONE_BYTE = [bytes((n,)) for n in range(128)]


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _ONE_BYTE[n]
    if n < 0x4000:
        return bytes((n & 0x7F | 0x80, n >> 7))
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a string, bytes or a message)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _string(number: int, text: str | None) -> bytes:
    """A string field; nothing for an empty one (proto3)."""
    return _field(number, text.encode()) if text else b""


def _uint(number: int, value: int) -> bytes:
    """A varint field; nothing for 0 (proto3)."""
    return _varint(number << 3) + _varint(value) if value else b""


def _any_value(value: Any) -> bytes:
    """An `AnyValue` (its one-of set even to a default: one-of fields have presence)."""
    if isinstance(value, bool):
        return b"\x10" + (b"\x01" if value else b"\x00")
    if isinstance(value, str):
        return _field(1, value.encode())
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise Unsupported("integer attribute outside int64")
        return b"\x18" + _varint(value & 0xFFFFFFFFFFFFFFFF)
    if isinstance(value, float):
        return b"\x21" + struct.pack("<d", value)
    raise Unsupported(f"{type(value).__name__} attribute")


# Encoded `KeyValue` fields by (field, key, value type, value): most attributes of a worker's spans
# repeat (the messaging system, the consumer group, the job type, the outcome).
_KEY_VALUES: dict[tuple[int, str, type, Any], bytes] = {}
_KEY_VALUES_KEPT = 4096


def _attributes(number: int, attributes: Mapping[str, Any] | None) -> bytes:
    """Repeated `KeyValue` fields."""
    if not attributes:
        return b""
    parts = []
    for key, value in attributes.items():
        cache_key = (number, key, type(value), value)
        encoded = _KEY_VALUES.get(cache_key)
        if encoded is None:
            encoded = _field(number, _string(1, key) + _field(2, _any_value(value)))
            if len(_KEY_VALUES) >= _KEY_VALUES_KEPT:
                _KEY_VALUES.clear()
            _KEY_VALUES[cache_key] = encoded
        parts.append(encoded)
    return b"".join(parts)


def _span(span: ReadableSpan) -> bytes:
    if span.events or span.links:
        raise Unsupported("span events or links")
    context = span.get_span_context()
    assert context is not None
    parent = span.parent
    flags = _HAS_IS_REMOTE | (_IS_REMOTE if parent is not None and parent.is_remote else 0)
    status = span.status
    trace_state = context.trace_state
    return b"".join(
        (
            _field(1, context.trace_id.to_bytes(16, "big")),
            _field(2, context.span_id.to_bytes(8, "big")),
            _string(3, ",".join(f"{k}={v}" for k, v in trace_state.items()) if trace_state else None),
            _field(4, parent.span_id.to_bytes(8, "big")) if parent else b"",
            _string(5, span.name),
            _uint(6, _KIND[span.kind]),
            b"\x39" + struct.pack("<Q", span.start_time) if span.start_time else b"",
            b"\x41" + struct.pack("<Q", span.end_time) if span.end_time else b"",
            _attributes(9, span.attributes),
            _uint(10, span.dropped_attributes),
            _uint(12, span.dropped_events),
            _uint(14, span.dropped_links),
            _field(15, _string(2, status.description) + _uint(3, status.status_code.value)),
            b"\x85\x01" + struct.pack("<I", flags),
        )
    )


def encode_request(spans: Sequence[ReadableSpan]) -> bytes:
    """An `ExportTraceServiceRequest`: the spans grouped by resource, then by scope.

    Raises:
        Unsupported: a span has events, links, or an attribute that is not a string, bool,
            64-bit int or float (encode the batch with the SDK).
    """
    # By identity: a Resource hashes by serializing its attributes to JSON, each time.
    resources: dict[int, Any] = {}
    grouped: dict[int, dict[Any, list[bytes]]] = {}
    for span in spans:
        resource = span.resource
        by_scope = grouped.get(id(resource))
        if by_scope is None:
            resources[id(resource)] = resource
            by_scope = grouped[id(resource)] = {}
        by_scope.setdefault(span.instrumentation_scope or None, []).append(_span(span))
    out = []
    for resource_id, by_scope in grouped.items():
        resource = resources[resource_id]
        scopes = []
        for scope, encoded in by_scope.items():
            scope_message = (
                _string(1, scope.name) + _string(2, scope.version) + _attributes(3, scope.attributes)
                if scope is not None
                else b""
            )
            scopes.append(
                _field(
                    2,
                    _field(1, scope_message)
                    + b"".join(_field(2, span) for span in encoded)
                    + _string(3, scope.schema_url if scope is not None else None),
                )
            )
        resource_message = _attributes(1, resource.attributes)
        out.append(
            _field(1, _field(1, resource_message) + b"".join(scopes) + _string(3, resource.schema_url))
        )
    return b"".join(out)


class LeanSpanExporter(OTLPSpanExporter):
    """The SDK's OTLP/HTTP span exporter, encoding with `encode_request` where it can.

    Whatever it cannot encode, or a request over the size limit, goes through the SDK's own
    `export` (its warnings, its limit). So does everything when the SDK's own exporter metrics
    are on (OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED), which only its `export` records.
    """

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Encode and send one batch (the batch processor's thread calls this)."""
        client = getattr(self, "_client", None)
        limit = getattr(self, "_max_request_size", None)
        if client is None or limit is None or getattr(self, "_shutdown", True) or _sdk_metrics():
            return super().export(spans)
        try:
            data = encode_request(spans)
        except Unsupported:
            return super().export(spans)
        if 0 < limit < len(data):
            return super().export(spans)
        return SpanExportResult.SUCCESS if client.export(data).success else SpanExportResult.FAILURE


def _sdk_metrics() -> bool:
    return os.environ.get("OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED", "").strip().lower() == "true"
