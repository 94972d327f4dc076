"""Prometheus metrics of one worker process, served on `/metrics` (`jetjobs worker --metrics-port`).

Why prometheus-client and not the OTel Prometheus exporter: it is the reference implementation of
the exposition format, has no SDK pipeline between an increment and a scrape (a counter increment
is a lock and an add, which matters on the per-job path), and needs no collector to be useful. Each
Worker has its own registry, so several workers in one process (tests) do not collide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import anyio
import nats.errors
import nats.js.errors
import structlog
from nats.js import JetStreamContext
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from jetjobs._errors import describe_error
from jetjobs._liveness.coverage import coverage
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import PRIORITIES

log = structlog.get_logger("jetjobs.metrics")

_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800)


class WorkerState(Protocol):
    """What a worker counts for itself: read by the metrics collector at scrape time."""

    @property
    def in_flight(self) -> int:
        """Handlers running now."""
        ...

    def liveness_counts(self) -> dict[str, int]:
        """lease_extensions, heartbeats, dead_workers_detected."""
        ...


class _StateCollector(Collector):
    def __init__(self, state: WorkerState) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("jetjobs_jobs_in_flight", "Handlers running now", value=self.state.in_flight)
        counts = self.state.liveness_counts()
        help_texts: dict[str, str] = {
            "lease_extensions": "in_progress acks sent to extend leases",
            "heartbeats": "heartbeats written",
            "dead_workers_detected": "workers found dead by this process's supervisor",
        }
        for name, text in help_texts.items():
            yield CounterMetricFamily(f"jetjobs_{name}", text, value=counts.get(name, 0))


class _DefaultRegistry(Collector):
    """prometheus_client's process-wide default registry, collected into a worker's page."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


class WorkerMetrics:
    """The counters, histograms and gauges of one worker."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._serves_default = False
        r = self.registry
        self.started = Counter("jetjobs_jobs_started", "Handler runs started", ["type"], registry=r)
        self.finished = Counter(
            "jetjobs_jobs_finished",
            "Deliveries settled, by outcome (succeeded, retried, dead, invalid, skipped, fenced, ...)",
            ["type", "outcome"],
            registry=r,
        )
        self.duration = Histogram(
            "jetjobs_job_duration_seconds",
            "Handler run time",
            ["type", "outcome"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.redeliveries = Counter(
            "jetjobs_redeliveries", "Handler runs that were not the first delivery", ["type"], registry=r
        )
        self.dlq_depth = Gauge("jetjobs_dlq_depth", "Dead letters stored", registry=r)
        self.pending = Gauge("jetjobs_consumer_pending", "Jobs not yet delivered", ["consumer"], registry=r)
        self.ack_pending = Gauge(
            "jetjobs_consumer_ack_pending", "Jobs delivered, not yet acked", ["consumer"], registry=r
        )
        self.uncovered = Gauge(
            "jetjobs_uncovered_messages",
            "Messages stored on job subjects no queue consumer filters (never delivered)",
            ["subject"],
            registry=r,
        )
        self.unserved = Gauge(
            "jetjobs_unserved_jobs",
            "Jobs waiting on a queue that no live worker serves",
            ["queue"],
            registry=r,
        )
        self.bad_headers = Counter(
            "jetjobs_bad_headers",
            "Deliveries whose header of ours held something malformed (ignored)",
            ["header"],
            registry=r,
        )
        self._server: Any = None
        self._children: dict[tuple[object, ...], Any] = {}

    def job_started(self, job_type: str, *, redelivered: bool) -> None:
        """Count a handler run starting."""
        self._child(self.started, job_type).inc()
        if redelivered:
            self._child(self.redeliveries, job_type).inc()

    def job_finished(self, job_type: str, outcome: str) -> None:
        """Count a settled delivery."""
        self._child(self.finished, job_type, outcome).inc()

    def bad_header(self, name: str) -> None:
        """Count a delivery whose header `name` was malformed and ignored."""
        self.bad_headers.labels(name).inc()

    def job_duration(self, job_type: str, outcome: str, seconds: float) -> None:
        """Record a handler's run time."""
        self._child(self.duration, job_type, outcome).observe(seconds)

    def _child(self, metric: Counter | Histogram, *labels: str) -> Any:
        # `labels()` validates and locks on every call; the per-job path looks children up once.
        key = (metric, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def track(self, state: WorkerState) -> None:
        """Expose counts the worker keeps anyway (read at scrape time, nothing on the job path)."""
        self.registry.register(_StateCollector(state))

    def serve(self, port: int, addr: str = "127.0.0.1") -> int:
        """Serve `/metrics` on `addr:port` (0: any free port) in a thread; return the port.

        The page also carries the process's default registry: the handlers' own prometheus_client
        metrics (and the process and GC collectors) appear beside the worker's.
        """
        if not self._serves_default:
            self.registry.register(_DefaultRegistry())
            self._serves_default = True
        self._server, _ = start_http_server(port, addr=addr, registry=self.registry)
        return int(self._server.server_port)

    def close(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    async def refresh_lag(
        self,
        js: JetStreamContext,
        topology: Topology,
        queues: list[str],
        live_queues: Callable[[], Iterable[str] | None] = lambda: None,
        interval: float = 5.0,
    ) -> None:
        """`refresh` every `interval` seconds; `live_queues()` names the queues live workers serve."""
        while True:
            try:
                await self.refresh(js, topology, queues, live_queues())
            except (nats.js.errors.Error, nats.errors.Error, TimeoutError) as exc:
                log.warning("metrics.refresh_failed", error=describe_error(exc))
            await anyio.sleep(interval)

    async def refresh(
        self, js: JetStreamContext, topology: Topology, queues: list[str], live_queues: Iterable[str] | None
    ) -> None:
        """Update consumer lag, DLQ depth and coverage (jetjobs._liveness.coverage) from the server.

        `live_queues`: the queues live workers serve; None when unknown (unserved not reported).
        """
        # One listing (a page of up to 256) instead of a request per consumer; one past the page
        # is asked for by name.
        consumers = await js.consumers_info(topology.jobs_stream)
        by_name = {info.name: info for info in consumers}
        for queue in queues:
            for priority in PRIORITIES:
                name = topology.consumer_name(queue, priority)
                info = by_name.get(name) or await js.consumer_info(topology.jobs_stream, name)
                self.pending.labels(name).set(info.num_pending or 0)
                self.ack_pending.labels(name).set(info.num_ack_pending or 0)
        self.dlq_depth.set((await js.stream_info(topology.dlq_stream)).state.messages)
        found = await coverage(js, topology, live_queues, consumers)
        _set_all(self.uncovered, found.uncovered)
        _set_all(self.unserved, found.unserved)


def _set_all(gauge: Gauge, values: dict[str, int]) -> None:
    """Make a labelled gauge show exactly `values` (labels no longer present are removed)."""
    gauge.clear()
    for label, value in values.items():
        gauge.labels(label).set(value)
