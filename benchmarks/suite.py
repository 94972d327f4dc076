"""The benchmark scenarios. Every jetjobs figure has a raw nats-py baseline from the same run."""

from __future__ import annotations

import os
import random
import signal
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import nats
import nats.errors
from nats.aio.client import Client as NATS
from nats.js import api

from benchmarks.harness import ROOT, Counter, cpu_seconds, peak_rss_mb
from jetjobs import Job, Publisher, Settings
from jetjobs._settings import NatsSettings
from jetjobs.testing import WorkerPool

BODY = b"x" * 200
APP = "benchmarks.apps:app"


@dataclass
class Row:
    """One line of the report."""

    scenario: str
    jetjobs: float
    baseline: float
    unit: str
    target: str = ""
    higher_is_better: bool = True
    notes: str = ""

    @property
    def ratio(self) -> float:
        """jetjobs / baseline."""
        return self.jetjobs / self.baseline if self.baseline else float("nan")


@dataclass
class Bench:
    """A run: one server, one connection, the rows measured so far."""

    url: str
    jobs: int
    rows: list[Row] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    _n: int = 0

    def namespace(self) -> str:
        self._n += 1
        return f"bench{os.getpid()}x{self._n}"

    def settings(self, namespace: str, **overrides: Any) -> Settings:
        return Settings(namespace=namespace, nats=NatsSettings(url=self.url), **overrides)

    async def connect(self) -> NATS:
        return await nats.connect(self.url)


async def raw_stream(js: Any, name: str) -> None:
    await js.add_stream(api.StreamConfig(name=name, subjects=[f"{name.lower()}.>"]))


async def publish(b: Bench) -> None:
    """Sequential and pipelined submission vs raw js.publish / publish_async.

    Each on its own connection: a Publisher's connection is read by jetjobs' protocol reader
    (jetjobs._transport.reader), the raw one by nats-py's own.
    """
    raw_nc, nc = await b.connect(), await b.connect()
    js = raw_nc.jetstream()
    seq_n = min(b.jobs, 5000)

    await raw_stream(js, "RAWSEQ")
    t = time.perf_counter()
    for i in range(seq_n):
        await js.publish("rawseq.x", BODY, headers={"Nats-Msg-Id": f"m{i}"})
    raw_seq = seq_n / (time.perf_counter() - t)

    publisher = Publisher(nc, b.settings(b.namespace()))
    await publisher.enqueue("bench.noop", {})
    t = time.perf_counter()
    for _ in range(seq_n):
        await publisher.enqueue("bench.noop", {"pad": "p" * 40})
    jj_seq = seq_n / (time.perf_counter() - t)
    b.rows.append(
        Row(
            "publish, sequential (jobs/s)",
            jj_seq,
            raw_seq,
            "jobs/s",
            notes="enqueue = publish + ledger `queued` write",
        )
    )

    await raw_stream(js, "RAWASYNC")
    t = time.perf_counter()
    for start in range(0, b.jobs, 1024):
        futures = [
            await js.publish_async("rawasync.x", BODY, headers={"Nats-Msg-Id": f"a{i}"})
            for i in range(start, min(start + 1024, b.jobs))
        ]
        for future in futures:
            await future
    raw_async = b.jobs / (time.perf_counter() - t)

    publisher = Publisher(nc, b.settings(b.namespace()))
    await publisher.enqueue("bench.noop", {})
    batch = [publisher.build("bench.noop", {"pad": "p" * 40}) for _ in range(b.jobs)]
    t = time.perf_counter()
    await publisher.publish_many(batch, window=1024)
    jj_async = b.jobs / (time.perf_counter() - t)
    b.rows.append(
        Row("publish, pipelined window 1024 (jobs/s)", jj_async, raw_async, "jobs/s", target=">= 0.8x")
    )
    await nc.close()
    await raw_nc.close()


async def raw_consume(b: Bench, n: int) -> float:
    """Raw pull consumer: fetch(256) + ack, on a backlog of n messages. Returns msgs/s."""
    nc = await b.connect()
    js = nc.jetstream()
    name = f"RAWC{b.namespace().upper()}"
    await raw_stream(js, name)
    futures = [await js.publish_async(f"{name.lower()}.x", BODY) for _ in range(n)]
    for future in futures:
        await future
    sub = await js.pull_subscribe(f"{name.lower()}.>", durable="raw", stream=name)
    done = 0
    t, cpu = time.perf_counter(), time.process_time()
    while done < n:
        for msg in await sub.fetch(256, timeout=5):
            await msg.ack()
            done += 1
    rate = n / (time.perf_counter() - t)
    b.extra.setdefault("raw_cpu_us_per_msg", []).append(round((time.process_time() - cpu) / n * 1e6, 1))
    await nc.close()
    return rate


async def backlog(
    b: Bench, namespace: str, n: int, job_type: str = "bench.noop", *, sampled: float | None = None
) -> None:
    """`n` jobs waiting; with `sampled`, each carries a producer's `traceparent`, that fraction of
    them sampled (what a traced client with a parent-based ratio sampler sends)."""
    nc = await b.connect()
    publisher = Publisher(nc, b.settings(namespace))
    jobs = [publisher.build(job_type, {"pad": "p" * 40}) for _ in range(n)]
    if sampled is None:
        await publisher.publish_many(jobs)
    else:
        async with anyio.create_task_group() as tg:
            limiter = anyio.CapacityLimiter(256)

            async def one(job: Job) -> None:
                async with limiter:
                    flags = "01" if random.random() < sampled else "00"
                    parent = f"00-{random.getrandbits(128):032x}-{random.getrandbits(64):016x}-{flags}"
                    await publisher.publish(job, headers={"traceparent": parent})

            for job in jobs:
                tg.start_soon(one, job)
    await nc.close()


async def consume(
    b: Bench,
    *,
    tracing_endpoint: str | None,
    sampled: float | None = None,
    workers: int = 1,
    claim_after: float = 0.0,
) -> None:
    """A backlog drained by worker processes (all features on) vs raw fetch+ack.

    `sampled`: a parent-based trace-id ratio sampler; the jobs carry their producer's decision
    (that fraction sampled), as they do from a traced client. `claim_after`: the late claim
    (JETJOBS_CLAIM_AFTER; 0, the default, claims every job before it starts).
    """
    raw = await raw_consume(b, b.jobs)
    namespace = b.namespace()
    await backlog(b, namespace, b.jobs, sampled=sampled)
    nc = await b.connect()
    done = Counter()
    await done.subscribe(nc, f"{namespace}.events.job.succeeded")
    extra: dict[str, str] = {}
    label = f"consume, {workers} worker{'s' if workers > 1 else ''}, tracing off (jobs/s)"
    if claim_after:
        label = f"consume, 1 worker, late claim {claim_after:g}s (jobs/s)"
    if sampled is not None and not tracing_endpoint:
        label = f"consume, 1 worker, tracing off, jobs traced {sampled:.0%} (jobs/s)"
    if tracing_endpoint:
        extra = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": tracing_endpoint,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        }
        label = "consume, 1 worker, tracing on (jobs/s)"
        if sampled is not None:
            extra |= {
                "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
                "OTEL_TRACES_SAMPLER_ARG": str(sampled),
            }
            label = f"consume, 1 worker, tracing {sampled:.0%} sampled (jobs/s)"
    t = time.perf_counter()
    settings = b.settings(namespace, claim_after=claim_after)
    async with WorkerPool(APP, settings, b.url, concurrency=64, env=extra, cwd=ROOT) as pool:
        started_workers = await pool.start(workers)
        started = time.perf_counter()
        cpu_before = sum(cpu_seconds(worker.pid) for worker in started_workers)
        await done.wait(b.jobs)
        elapsed = done.last - started
        cpu = sum(cpu_seconds(worker.pid) for worker in started_workers) - cpu_before
        rss = max(peak_rss_mb(worker.pid) for worker in started_workers)
    rate = b.jobs / elapsed
    b.rows.append(
        Row(
            label,
            rate,
            raw,
            "jobs/s",
            target=">= 0.45x" if label.startswith("consume, 1 worker, tracing off (") else "",
            notes=f"process start {started - t:.2f}s excluded",
        )
    )
    kind = label.removeprefix("consume, ").removeprefix("1 worker, ").removesuffix(" (jobs/s)")
    b.extra.setdefault(f"worker_peak_rss_mb ({kind})", []).append(round(rss, 1))
    # CPU per job drifts far less than jobs/s on a shared machine.
    b.extra.setdefault(f"worker_cpu_us_per_job ({kind})", []).append(round(cpu / b.jobs * 1e6, 1))
    await nc.close()


async def end_to_end(b: Bench, workers: int) -> None:
    """Enqueue and drain at once, with 1 or 2 worker processes, vs raw publish_async + pull."""
    namespace = b.namespace()
    nc = await b.connect()
    done = Counter()
    await done.subscribe(nc, f"{namespace}.events.job.succeeded")
    publisher = Publisher(nc, b.settings(namespace))
    await publisher.enqueue("bench.noop", {})
    await done.wait(0)
    async with WorkerPool(APP, b.settings(namespace), b.url, concurrency=64, cwd=ROOT) as pool:
        await pool.start(workers)
        await done.wait(1, timeout=60)
        t = time.perf_counter()
        jobs = [publisher.build("bench.noop", {"pad": "p" * 40}) for _ in range(b.jobs)]
        for start in range(0, b.jobs, 1000):
            await publisher.publish_many(jobs[start : start + 1000])
        await done.wait(b.jobs + 1)
        rate = b.jobs / (done.last - t)
    raw = await raw_end_to_end(b)
    b.rows.append(Row(f"end to end, {workers} worker process(es) (jobs/s)", rate, raw, "jobs/s"))
    await nc.close()


async def raw_end_to_end(b: Bench) -> float:
    """Raw: one task publishes (publish_async windows), another fetches and acks."""
    nc = await b.connect()
    js = nc.jetstream()
    name = f"RAWE{b.namespace().upper()}"
    await raw_stream(js, name)
    sub = await js.pull_subscribe(f"{name.lower()}.>", durable="raw", stream=name)
    t = time.perf_counter()
    async with anyio.create_task_group() as tg:

        async def produce() -> None:
            for start in range(0, b.jobs, 1000):
                futures = [
                    await js.publish_async(f"{name.lower()}.x", BODY)
                    for _ in range(start, min(start + 1000, b.jobs))
                ]
                for future in futures:
                    await future

        tg.start_soon(produce)
        done = 0
        while done < b.jobs:
            try:
                msgs = await sub.fetch(256, timeout=1)
            except nats.errors.TimeoutError:
                continue
            for msg in msgs:
                await msg.ack()
                done += 1
    rate = b.jobs / (time.perf_counter() - t)
    await nc.close()
    return rate


async def latency(b: Bench, n: int = 1000) -> None:
    """publish→handler-start at low load: p50/p99, vs raw publish→pull-consumer receive."""
    namespace = b.namespace()
    nc = await b.connect()
    samples: list[tuple[float, ...]] = []
    got = anyio.Event()

    async def on_latency(msg: Any) -> None:
        samples.append(tuple(float(part) for part in msg.data.split()))
        if len(samples) >= n:
            got.set()

    await nc.subscribe("bench.latency", cb=on_latency)
    publisher = Publisher(nc, b.settings(namespace))
    await publisher.enqueue("bench.noop", {})
    async with WorkerPool(APP, b.settings(namespace), b.url, concurrency=8, cwd=ROOT) as pool:
        await pool.start(1)
        for _ in range(n):
            await publisher.enqueue("bench.latency", {"sent_at": time.time()})
            await anyio.sleep(0.003)
        with anyio.fail_after(60):
            await got.wait()
    raw = await raw_latency(b, n)
    started = [s[2] for s in samples]
    b.rows.append(
        Row(
            "latency publish→start p50 (ms)",
            percentile(started, 50) * 1000,
            percentile(raw[2], 50) * 1000,
            "ms",
            higher_is_better=False,
        )
    )
    # p99 of each step's cumulative time: stored (the publish's ack: for jetjobs the ledger's
    # `queued` write, then the job), arrived (in the worker), started (claimed, handler running).
    for step, index, target in (("stored", 0, ""), ("arrived", 1, ""), ("start", 2, "< 5 ms")):
        b.rows.append(
            Row(
                f"latency publish→{step} p99 (ms)",
                percentile([s[index] for s in samples], 99) * 1000,
                percentile(raw[min(index, 2)], 99) * 1000,
                "ms",
                target=target,
                higher_is_better=False,
                notes="raw: arrived = started" if step == "arrived" else "",
            )
        )
    await nc.close()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


async def raw_latency(b: Bench, n: int) -> tuple[list[float], list[float], list[float]]:
    """Raw: publish with a timestamp, a long-polling pull consumer receives it: (stored, arrived,
    arrived) latencies (arrived is where a raw consumer would start its work)."""
    nc = await b.connect()
    js = nc.jetstream()
    name = f"RAWL{b.namespace().upper()}"
    await raw_stream(js, name)
    sub = await js.pull_subscribe(f"{name.lower()}.>", durable="raw", stream=name)
    stored: list[float] = []
    arrived: list[float] = []
    async with anyio.create_task_group() as tg:

        async def consume() -> None:
            while len(arrived) < n:
                try:
                    msgs = await sub.fetch(1, timeout=5)
                except nats.errors.TimeoutError:
                    continue
                for msg in msgs:
                    sent = float(msg.data)
                    arrived.append(time.time() - sent)
                    stored.append(msg.metadata.timestamp.timestamp() - sent)
                    await msg.ack()

        tg.start_soon(consume)
        for _ in range(n):
            await js.publish(f"{name.lower()}.x", f"{time.time():.9f}".encode())
            await anyio.sleep(0.003)
    await nc.close()
    return stored, arrived, arrived


async def recovery(
    b: Bench, in_flight: int = 50, ack_wait: float = 30.0, heartbeat: tuple[float, int] = (1.0, 3)
) -> None:
    """kill -9 a worker holding N jobs: time until all run elsewhere, vs ack_wait.

    `heartbeat` is (interval, ttl): the time to notice a death is about the ttl.
    """
    namespace = b.namespace()
    nc = await b.connect()
    starts: dict[str, list[tuple[int, float]]] = {}
    changed = anyio.Event()

    async def on_start(msg: Any) -> None:
        nonlocal changed
        job_id, attempt, at = msg.data.decode().split()
        starts.setdefault(job_id, []).append((int(attempt), float(at)))
        changed.set()
        changed = anyio.Event()

    await nc.subscribe("bench.started", cb=on_start)
    settings = b.settings(
        namespace, ack_wait=ack_wait, heartbeat_interval=heartbeat[0], heartbeat_ttl=heartbeat[1]
    )
    publisher = Publisher(nc, settings)
    async with WorkerPool(APP, settings, b.url, concurrency=in_flight, cwd=ROOT) as pool:
        [victim] = await pool.start(1)
        await publisher.publish_many(
            [publisher.build("bench.hold", {"seconds": 300}) for _ in range(in_flight)]
        )
        with anyio.fail_after(60):
            while len(starts) < in_flight:
                await changed.wait()
        await pool.start(1)
        victim.send(signal.SIGKILL)
        killed = time.time()
        with anyio.fail_after(ack_wait * 2):
            while sum(1 for s in starts.values() if any(a > 1 for a, _ in s)) < in_flight:
                await changed.wait()
        last = max(at for s in starts.values() for a, at in s if a > 1)
    b.rows.append(
        Row(
            f"recovery of {in_flight} jobs, heartbeat {heartbeat[0]:g}/{heartbeat[1]} s (s)",
            last - killed,
            ack_wait,
            "s",
            target="< 2 s",
            higher_is_better=False,
            notes="baseline = ack_wait redelivery",
        )
    )
    await nc.close()


def table(rows: list[Row]) -> str:
    lines = [f"{'scenario':<46} {'jetjobs':>10} {'raw nats-py':>12} {'ratio':>7}  target"]
    lines.append("-" * 92)
    for r in rows:
        lines.append(
            f"{r.scenario:<46} {r.jetjobs:>10.1f} {r.baseline:>12.1f} {r.ratio:>6.2f}x  {r.target}"
            + (f"  ({r.notes})" if r.notes else "")
        )
    return "\n".join(lines)


def cpu_ratios(extra: dict[str, Any]) -> dict[str, str]:
    """Worker CPU per job with tracing, against tracing off (medians of the runs)."""
    cpu = {
        key.removeprefix("worker_cpu_us_per_job (").removesuffix(")"): statistics.median(values)
        for key, values in extra.items()
        if key.startswith("worker_cpu_us_per_job (")
    }
    found = {}
    off, carried = cpu.get("tracing off"), cpu.get("tracing off, jobs traced 10%")
    if off and "tracing on" in cpu:
        found["CPU per job, tracing on / off"] = f"{cpu['tracing on'] / off:.2f}x (target <= 2x)"
    if off and "tracing 10% sampled" in cpu:
        found["CPU per job, 10% sampled / off"] = f"{cpu['tracing 10% sampled'] / off:.2f}x (target <= 1.2x)"
        if carried:
            found["CPU per job, 10% sampled / off, the same jobs"] = (
                f"{cpu['tracing 10% sampled'] / carried:.2f}x (both with their producer's traceparent)"
            )
    return found
