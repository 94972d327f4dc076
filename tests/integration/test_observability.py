"""Observability against real components: OTLP traces across processes, /metrics, log correlation."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec
import pytest
from nats.aio.client import Client as NATS
from prometheus_client.parser import text_string_to_metric_families

from jetjobs import App, JobContext, Publisher, Reject, Settings
from jetjobs._transport.topology import Topology
from jetjobs.testing import WorkerPool, WorkerProcess, worker_env
from tests.otlp_receiver import GrpcOtlpReceiver, OtlpReceiver, ReceivedSpan
from tests.support import running_worker

pytestmark = [pytest.mark.integration]

PRODUCER, CONSUMER = 4, 5  # opentelemetry.proto SpanKind values


def cli_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment of a jetjobs CLI subprocess on the test's server and namespace."""
    return worker_env(fast_retries(settings), settings.nats.url or "") | extra


def fast_retries(settings: Settings) -> Settings:
    return msgspec.structs.replace(settings, backoff_base=0.05, backoff_max=0.1)


@contextlib.asynccontextmanager
async def stage_worker(
    settings: Settings, repo_root: Path, queue: str, **env: str
) -> AsyncIterator[WorkerProcess]:
    """A `jetjobs worker tests.tracing_app:app -Q queue` process; SIGTERM (flushing spans) at exit."""
    pool = WorkerPool(
        "tests.tracing_app:app",
        fast_retries(settings),
        settings.nats.url or "",
        queues=[queue],
        env=env,
        keep_log=True,
        cwd=repo_root,
    )
    async with pool:
        [worker] = await pool.start(1)
        yield worker
    assert worker.returncode == 0, "\n".join(worker.tail)


def trace_complete(spans: list[ReceivedSpan]) -> bool:
    names = [s.name for s in spans]
    return (
        names.count("publish trace.first") == 1
        and names.count("process trace.first") == 1
        and names.count("publish trace.second") == 1
        and names.count("process trace.second") == 2
    )


async def test_one_trace_across_three_processes(
    settings: Settings, repo_root: Path, otlp: OtlpReceiver
) -> None:
    """A job published by one process and handled in two others is one connected trace.

    The CLI publishes `trace.first`; worker A runs it and submits `trace.second`; worker B fails
    that once and succeeds on the retry. The receiver gets five spans of one trace id: producer →
    consumer (A) → producer → two consumer attempts (B), with messaging and job attributes; A's
    log lines inside the job carry the same trace id.
    """
    otel = {"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
    async with (
        stage_worker(settings, repo_root, "first", OTEL_SERVICE_NAME="stage-a", **otel) as worker_a,
        stage_worker(settings, repo_root, "second", OTEL_SERVICE_NAME="stage-b", **otel),
    ):
        enqueue = await anyio.run_process(
            [sys.executable, "-m", "jetjobs", "enqueue", "trace.first", '{"item": 42}', "-Q", "first"],
            cwd=repo_root,
            env=cli_env(settings, OTEL_SERVICE_NAME="publisher", **otel),
        )
        job_id = json.loads(enqueue.stdout)["id"]
        await anyio.to_thread.run_sync(otlp.wait, trace_complete)
    logs_a = worker_a.events

    spans = {(s.name, s.attributes.get("jetjobs.job.attempt", 0)): s for s in otlp.spans}
    publish_first = spans["publish trace.first", 0]
    process_first = spans["process trace.first", 1]
    publish_second = spans["publish trace.second", 0]
    attempt_1 = spans["process trace.second", 1]
    attempt_2 = spans["process trace.second", 2]
    assert len({s.trace_id for s in otlp.spans}) == 1
    assert (publish_first.kind, process_first.kind, publish_second.kind) == (PRODUCER, CONSUMER, PRODUCER)
    assert process_first.parent_span_id == publish_first.span_id
    assert publish_second.parent_span_id == process_first.span_id
    assert attempt_1.parent_span_id == attempt_2.parent_span_id == publish_second.span_id
    assert (publish_first.service, process_first.service, attempt_1.service) == (
        "publisher",
        "stage-a",
        "stage-b",
    )

    assert process_first.attributes["messaging.system"] == "nats"
    assert process_first.attributes["messaging.destination.name"] == (
        f"{settings.namespace}.jobs.first.normal.trace.first"
    )
    assert process_first.attributes["messaging.message.id"] == job_id
    assert process_first.attributes["jetjobs.job.id"] == job_id
    assert process_first.attributes["jetjobs.job.outcome"] == "succeeded"
    assert publish_first.attributes["messaging.message.id"] == job_id
    assert isinstance(process_first.attributes["messaging.nats.stream_sequence"], int)
    assert process_first.attributes["messaging.consumer.group.name"] == (
        Topology(settings).consumer_name("first", "normal")
    )
    assert attempt_1.attributes["jetjobs.job.outcome"] == "retried"
    assert attempt_1.status_code == 2  # STATUS_CODE_ERROR
    assert attempt_2.attributes["jetjobs.job.outcome"] == "succeeded"
    assert attempt_2.attributes["messaging.nats.delivery_attempt"] == 2

    in_job = [line for line in logs_a if line.get("job_id") == job_id]
    assert {line["event"] for line in in_job} >= {"stage.first", "job.finished"}
    for line in in_job:
        assert line["trace_id"] == publish_first.trace_id
        assert line["span_id"] == process_first.span_id
        assert line["attempt"] == 1
        assert line["type"] == "trace.first"
    finished = next(line for line in in_job if line["event"] == "job.finished")
    assert finished["outcome"] == "succeeded"
    assert isinstance(finished["duration_ms"], float)


async def test_grpc_exporter_reaches_a_grpc_collector(settings: Settings, repo_root: Path) -> None:
    """With OTEL_EXPORTER_OTLP_PROTOCOL=grpc a worker's spans arrive over OTLP/gRPC."""
    receiver = GrpcOtlpReceiver()
    receiver.start()
    try:
        otel = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
        async with stage_worker(settings, repo_root, "second", OTEL_SERVICE_NAME="grpc-stage", **otel):
            await anyio.run_process(
                [sys.executable, "-m", "jetjobs", "enqueue", "trace.second", "{}", "-Q", "second"],
                cwd=repo_root,
                env=cli_env(settings, OTEL_SERVICE_NAME="grpc-publisher", **otel),
            )

            def done(spans: list[ReceivedSpan]) -> bool:
                return [s.name for s in spans].count("process trace.second") == 2

            await anyio.to_thread.run_sync(receiver.wait, done)
    finally:
        receiver.stop()
    services = {s.service for s in receiver.spans}
    assert services == {"grpc-stage", "grpc-publisher"}
    assert len({s.trace_id for s in receiver.spans}) == 1


async def test_metrics_endpoint_counts_what_happened(nc: NATS, settings: Settings) -> None:
    """After 5 successes, one retried-then-succeeded job and one rejected job, /metrics says so."""
    app = App()

    @app.job("m.ok")
    async def ok(ctx: JobContext, payload: dict[str, Any]) -> None:
        return None

    @app.job("m.flaky")
    async def flaky(ctx: JobContext, payload: dict[str, Any]) -> None:
        if ctx.attempt == 1:
            raise RuntimeError("once")

    @app.job("m.bad")
    async def bad(ctx: JobContext, payload: dict[str, Any]) -> None:
        raise Reject("no")

    publisher = Publisher(nc, settings)
    async with running_worker(app, nc, settings) as (worker, outcomes):
        worker_port = worker.metrics.serve(0)
        ids = [(await publisher.enqueue("m.ok", {})).id for _ in range(5)]
        flaky_id = (await publisher.enqueue("m.flaky", {})).id
        bad_id = (await publisher.enqueue("m.bad", {})).id
        await outcomes.wait(
            lambda: (
                all("succeeded" in outcomes.by_job[i] for i in [*ids, flaky_id])
                and "dead" in outcomes.by_job[bad_id]
            )
        )
        async with httpx.AsyncClient() as client:
            text = (await client.get(f"http://127.0.0.1:{worker_port}/metrics")).text

    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }

    def value(name: str, **labels: str) -> float:
        return samples.get((name, tuple(sorted(labels.items()))), 0.0)

    assert value("jetjobs_jobs_started_total", type="m.ok") == 5
    assert value("jetjobs_jobs_started_total", type="m.flaky") == 2
    assert value("jetjobs_jobs_finished_total", type="m.ok", outcome="succeeded") == 5
    assert value("jetjobs_jobs_finished_total", type="m.flaky", outcome="retried") == 1
    assert value("jetjobs_jobs_finished_total", type="m.flaky", outcome="succeeded") == 1
    assert value("jetjobs_jobs_finished_total", type="m.bad", outcome="dead") == 1
    assert value("jetjobs_redeliveries_total", type="m.flaky") == 1
    assert value("jetjobs_job_duration_seconds_count", type="m.ok", outcome="succeeded") == 5
    assert value("jetjobs_jobs_in_flight") == 0
    assert value("jetjobs_heartbeats_total") >= 1
