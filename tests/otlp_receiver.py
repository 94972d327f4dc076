"""A real OTLP/HTTP trace receiver on loopback, for tests: decodes ExportTraceServiceRequest."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass
class ReceivedSpan:
    """One span as the collector would see it."""

    service: str
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    status_code: int


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


@dataclass
class OtlpReceiver:
    """Collects spans posted to `http://127.0.0.1:<port>/v1/traces`."""

    spans: list[ReceivedSpan] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)  # each request as posted
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        """The base URL for OTEL_EXPORTER_OTLP_ENDPOINT."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> None:
        """Listen on a free loopback port."""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.bodies.append(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver._add(request)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll: `stop()` waits for the serving loop to see the shutdown flag.
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _add(self, request: ExportTraceServiceRequest) -> None:
        with self._cond:
            for resource_spans in request.resource_spans:
                resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        self.spans.append(
                            ReceivedSpan(
                                service=str(resource.get("service.name", "")),
                                name=span.name,
                                kind=span.kind,
                                trace_id=span.trace_id.hex(),
                                span_id=span.span_id.hex(),
                                parent_span_id=span.parent_span_id.hex(),
                                attributes={a.key: _value(a.value) for a in span.attributes},
                                status_code=span.status.code,
                            )
                        )
            self._cond.notify_all()

    def wait(self, predicate: Callable[[list[ReceivedSpan]], bool], timeout: float = 30.0) -> None:
        """Block until `predicate(spans)` holds (call from a worker thread in async tests)."""
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self.spans), timeout):
                raise TimeoutError(f"spans received: {[s.name for s in self.spans]}")


class GrpcOtlpReceiver(OtlpReceiver):
    """The same collection over OTLP/gRPC (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`)."""

    _grpc: Any = None
    _port: int = 0

    @property
    def endpoint(self) -> str:
        """The base URL for OTEL_EXPORTER_OTLP_ENDPOINT."""
        return f"http://127.0.0.1:{self._port}"

    def start(self) -> None:
        """Serve TraceService on a free loopback port."""
        receiver = self

        class Service(trace_service_pb2_grpc.TraceServiceServicer):
            def Export(self, request: ExportTraceServiceRequest, context: Any) -> ExportTraceServiceResponse:
                receiver._add(request)
                return ExportTraceServiceResponse()

        self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Service(), self._grpc)
        self._port = self._grpc.add_insecure_port("127.0.0.1:0")
        self._grpc.start()

    def stop(self) -> None:
        """Stop serving."""
        if self._grpc is not None:
            self._grpc.stop(grace=None)
