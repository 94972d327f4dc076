"""The kill-worker proof: `jetjobs demo kill-worker`.

Several worker processes run a batch of short jobs; one is killed with SIGKILL mid-run. Then the
books are checked: every job must end exactly once in the ledger, and how many handlers ran twice,
and why, is counted from an execution log, not guessed.

```
 demo ──publish──▶ JOBS ──▶ worker processes (jetjobs._cli.demo:app) ──▶ ledger (<ns>_status)
   │                           │ each execution ──▶ <NS>_DEMO_EXEC   (durable, one per run)
   └── SIGKILL one ──┘         └ job events     ──▶ <NS>_DEMO_EVENTS (captures <ns>.events.>)
```

The pieces are reusable by the chaos tests: `WorkerPool` starts, kills and restarts subprocess
workers; `LedgerCheck` follows progress on the event subjects and audits the outcome.
"""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import anyio
import anyio.abc
import msgspec
import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api

from jetjobs._cli.processes import WorkerPool, WorkerProcess
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.supervisor import current_leader
from jetjobs._observability.redact import mask_url
from jetjobs._runtime.app import App, JobContext
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.topology import Topology, ensure_stream
from jetjobs._wire.envelope import (
    ENCODER,
    JOB_EVENT_DECODER,
    STATUS_DECODER,
    TERMINAL_STATES,
    WORKER_DIED_DECODER,
    Job,
    JobEvent,
    StatusRecord,
    WorkerDied,
    utcnow,
)
from jetjobs._wire.headers import KV_OPERATION, MSG_ID

app = App("demo")


class Execution(msgspec.Struct, kw_only=True, frozen=True):
    """One run of a handler, as the handler itself recorded it before doing its work."""

    job_id: str
    attempt: int
    worker: str
    pid: int
    at: datetime


_EXECUTION_DECODER = msgspec.json.Decoder(Execution)


def exec_stream(settings: Settings) -> str:
    """The stream of execution records of a namespace."""
    return f"{settings.namespace.upper()}_DEMO_EXEC"


def events_stream(settings: Settings) -> str:
    """The stream that keeps a namespace's events (`<ns>.events.>`) for the audit."""
    return f"{settings.namespace.upper()}_DEMO_EVENTS"


async def record_execution(ctx: JobContext) -> None:
    """Store, durably and once per attempt, that this handler is running.

    The message id names job, attempt and worker, so a retried publish is not counted twice; the
    publish is retried while the server is unreachable, like the Publisher's.
    """
    record = Execution(job_id=ctx.id, attempt=ctx.attempt, worker=ctx.worker_id, pid=os.getpid(), at=utcnow())
    subject = f"{ctx.publisher.topology.ns}.demo.exec.{ctx.id}"
    headers = {MSG_ID: f"{ctx.id}:{ctx.attempt}:{ctx.worker_id}"}
    deadline = anyio.current_time() + ctx.publisher.settings.publish_retry_for
    while True:
        try:
            await ctx.publisher.js.publish(subject, ENCODER.encode(record), headers=headers)
            return
        except (
            nats.errors.TimeoutError,
            nats.errors.ConnectionReconnectingError,
            nats.errors.NoRespondersError,
            nats.js.errors.NoStreamResponseError,
            nats.js.errors.ServiceUnavailableError,
        ):
            if anyio.current_time() > deadline:
                raise
            await anyio.sleep(0.1)


class Work(msgspec.Struct):
    """Payload of demo.work."""

    n: int
    ms: float = 3.0


@app.job("demo.work", payload=Work)
async def work(ctx: JobContext, payload: Work) -> dict[str, int]:
    """Record the execution, then a few milliseconds of pretend I/O."""
    await record_execution(ctx)
    await anyio.sleep(payload.ms / 1000)
    return {"n": payload.n}


# --- the audit --------------------------------------------------------------------------------


async def read_stream(js: JetStreamContext, stream: str, subject: str) -> list[Msg]:
    """Every message of `stream` on `subject`, as of now (an ordered consumer, read to the end)."""
    info = await js.stream_info(stream)
    if info.state.messages == 0:
        return []
    sub = await js.subscribe(subject, stream=stream, ordered_consumer=True)
    msgs: list[Msg] = []
    try:
        while True:
            msg = await sub.next_msg(timeout=10)
            msgs.append(msg)
            if msg.metadata.num_pending == 0:
                return msgs
    finally:
        await sub.unsubscribe()


_UNEXPLAINED = "redelivered: an earlier attempt did not finish (its lease lapsed or it was retried)"


@dataclass
class Audit:
    """What happened to a set of jobs, from the ledger, the job events and the execution log."""

    submitted: int
    states: Counter[str]
    lost: list[str]
    duplicate_completions: dict[str, list[JobEvent]]
    executions: int
    duplicate_executions: dict[str, list[Execution]]
    reasons: Counter[str]
    missing_events: list[str]
    deaths: list[WorkerDied]
    records: dict[str, StatusRecord] = field(repr=False, default_factory=dict)
    events: dict[str, list[JobEvent]] = field(repr=False, default_factory=dict)

    @property
    def completed(self) -> int:
        """Jobs in a terminal state."""
        return sum(self.states[s] for s in TERMINAL_STATES)

    @property
    def ok(self) -> bool:
        """Nothing lost, nothing completed twice."""
        return not self.lost and not self.duplicate_completions

    def summary(self) -> str:
        """One line, for assertion messages."""
        reasons = "; ".join(f"{n} {why}" for why, n in self.reasons.most_common())
        return (
            f"submitted={self.submitted} states={dict(self.states)} lost={len(self.lost)} "
            f"duplicate_completions={len(self.duplicate_completions)} executions={self.executions} "
            f"duplicate_executions={len(self.duplicate_executions)} ({reasons}) "
            f"missing_events={len(self.missing_events)} deaths={len(self.deaths)}"
        )


class LedgerCheck:
    """Follows a namespace's job events live, and audits a set of jobs once they are done.

    Provision with `setup()` before workers run, so that every execution and event is kept.
    """

    def __init__(self, nc: NATS, settings: Settings) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.settings = settings
        self.topology = Topology(settings)
        self.settled: dict[str, JobEvent] = {}  # first terminal event per job
        self.deaths: list[tuple[float, WorkerDied]] = []  # (monotonic time received, event)
        self.ledger: Ledger | None = None
        self._changed = anyio.Event()
        self._sub: Any = None

    async def setup(self) -> None:
        """Create the execution and event streams and the ledger bucket; follow events."""
        storage = api.StorageType.FILE if self.settings.storage == "file" else api.StorageType.MEMORY
        ns = self.settings.namespace
        for name, subject in ((exec_stream(self.settings), f"{ns}.demo.exec.>"),
                              (events_stream(self.settings), f"{ns}.events.>")):  # fmt: skip
            await ensure_stream(
                self.js,
                api.StreamConfig(name=name, subjects=[subject], storage=storage, duplicate_window=120),
            )
        self.ledger = Ledger(await self.topology.status_kv(self.js))
        self._sub = await self.nc.subscribe(self.topology.events_subject(">"), cb=self._on_event)

    async def close(self) -> None:
        """Stop following events."""
        if self._sub is not None:
            await self._sub.unsubscribe()
            self._sub = None

    async def _on_event(self, msg: Msg) -> None:
        kind = msg.subject.removeprefix(self.topology.events_subject(""))
        if kind.startswith("job."):
            event = JOB_EVENT_DECODER.decode(msg.data)
            self.settled.setdefault(event.job_id, event)
        elif kind == "worker.died":
            self.deaths.append((time.monotonic(), WORKER_DIED_DECODER.decode(msg.data)))
        # Wake every waiter; later waiters wait on the next event.
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    async def wait_until(self, predicate: Any, timeout: float) -> None:
        """Wait until `predicate()` holds, re-checked after every event.

        Raises:
            TimeoutError: it did not hold within `timeout` seconds.
        """
        with anyio.fail_after(timeout):
            while not predicate():
                await self._changed.wait()

    async def wait_drained(self, job_ids: Collection[str], *, timeout: float, stall: float = 2.0) -> set[str]:
        """Wait until every job is terminal; return those that are not after `timeout` seconds.

        Events say when a job ends; an event can be missed (a worker killed between its ledger
        write and its announcement, a server restart), so whenever none arrive for `stall`
        seconds the ledger is read for the jobs still open.
        """
        remaining = set(job_ids) - self.settled.keys()
        with anyio.move_on_after(timeout):
            while remaining:
                with anyio.move_on_after(stall) as idle:
                    await self._changed.wait()
                remaining -= self.settled.keys()
                if idle.cancelled_caught and remaining:
                    remaining -= await self._terminal_in_ledger(remaining)
        return remaining

    async def _terminal_in_ledger(self, job_ids: Collection[str]) -> set[str]:
        assert self.ledger is not None
        ledger, done = self.ledger, set()
        limiter = anyio.CapacityLimiter(64)

        async def check(job_id: str) -> None:
            async with limiter:
                try:
                    record, _ = await ledger.get(job_id)
                except Exception:  # the server is away; the next stall tries again
                    return
            if record is not None and record.state in TERMINAL_STATES:
                done.add(job_id)

        async with anyio.create_task_group() as tg:
            for job_id in job_ids:
                tg.start_soon(check, job_id)
        return done

    async def read_ledger(self) -> dict[str, StatusRecord]:
        """Every record of the namespace's ledger, read off the bucket's stream to its end.

        Not a KV watch: nats-py's watcher may report "no more entries" before it has delivered
        any when the bucket is busy, and an audit would then call every job lost.
        """
        bucket = self.topology.status_bucket
        prefix = f"$KV.{bucket}."
        records: dict[str, StatusRecord] = {}
        for msg in await read_stream(self.js, f"KV_{bucket}", f"{prefix}>"):
            key = msg.subject.removeprefix(prefix)
            if (msg.headers or {}).get(KV_OPERATION) or not msg.data:
                records.pop(key, None)  # deleted or purged
            else:
                records[key] = STATUS_DECODER.decode(msg.data)
        return records

    async def audit(self, job_ids: Collection[str], *, explain: Mapping[str, str] | None = None) -> Audit:
        """Count outcomes, losses and duplicates for `job_ids`.

        `explain` maps a worker id to why a job it ran had to run again (e.g. "killed"); an
        execution by any other worker that was not the last is counted as `_UNEXPLAINED`.
        """
        explain = explain or {}
        ns = self.settings.namespace
        records = await self.read_ledger()
        executions: dict[str, list[Execution]] = defaultdict(list)
        for msg in await read_stream(self.js, exec_stream(self.settings), f"{ns}.demo.exec.>"):
            execution = _EXECUTION_DECODER.decode(msg.data)
            executions[execution.job_id].append(execution)
        events: dict[str, list[JobEvent]] = defaultdict(list)
        deaths = []
        for msg in await read_stream(self.js, events_stream(self.settings), f"{ns}.events.>"):
            if msg.subject.endswith(".worker.died"):
                deaths.append(WORKER_DIED_DECODER.decode(msg.data))
            elif ".events.job." in msg.subject:
                event = JOB_EVENT_DECODER.decode(msg.data)
                events[event.job_id].append(event)
        wanted = set(job_ids)
        states: Counter[str] = Counter()
        lost = []
        for job_id in job_ids:
            record = records.get(job_id)
            states[record.state if record else "missing"] += 1
            if record is None or record.state not in TERMINAL_STATES:
                lost.append(job_id)
        # Completed twice: two announced completions, or one the ledger does not hold (overwritten).
        duplicate_completions = {
            job_id: found
            for job_id, found in events.items()
            if job_id in wanted
            and (
                len({(e.attempt, e.worker) for e in found}) > 1
                or (
                    job_id in records
                    and (records[job_id].attempt, records[job_id].worker)
                    != (found[0].attempt, found[0].worker)
                )
            )
        }
        reasons: Counter[str] = Counter()
        duplicates = {}
        for job_id, runs in executions.items():
            if job_id not in wanted or len(runs) < 2:
                continue
            runs.sort(key=lambda e: e.attempt)
            duplicates[job_id] = runs
            for earlier in runs[:-1]:
                reasons[explain.get(earlier.worker, _UNEXPLAINED)] += 1
        missing_events = [
            job_id
            for job_id in job_ids
            if job_id in records and records[job_id].state in TERMINAL_STATES and job_id not in events
        ]
        return Audit(
            submitted=len(wanted),
            states=states,
            lost=lost,
            duplicate_completions=duplicate_completions,
            executions=sum(len(runs) for job_id, runs in executions.items() if job_id in wanted),
            duplicate_executions=duplicates,
            reasons=reasons,
            missing_events=missing_events,
            deaths=deaths,
            records={job_id: records[job_id] for job_id in wanted if job_id in records},
            events=dict(events),
        )


# --- the demo ---------------------------------------------------------------------------------


async def submit(
    publisher: Publisher,
    payloads: Sequence[dict[str, Any]],
    job_type: str = "demo.work",
    *,
    max_attempts: int = 5,
    parallel: int = 256,
) -> list[str]:
    """Publish one job per payload, up to `parallel` at once; return the ids, in order.

    Jobs are built first, so a publish retried after an error keeps its id and message id.
    """
    jobs = [publisher.build(job_type, payload, max_attempts=max_attempts, timeout=60) for payload in payloads]
    if not jobs:
        return []
    await publisher.publish(jobs[0])  # provisions the queue once, before the crowd arrives
    limiter = anyio.CapacityLimiter(parallel)

    async def one(job: Job) -> None:
        async with limiter:
            await publisher.publish(job)

    async with anyio.create_task_group() as tg:
        for job in jobs[1:]:
            tg.start_soon(one, job)
    return [job.id for job in jobs]


def connected_url(nc: NATS, settings: Settings) -> str:
    """The server's address: NATS_URL, or where `nc` is connected."""
    if settings.nats.url:
        return settings.nats.url
    url = nc.connected_url
    assert url is not None
    return f"{url.scheme}://{url.hostname}:{url.port}"


@dataclass
class KillRun:
    """The facts of one kill-worker run, besides the audit."""

    settings: Settings
    pool: WorkerPool
    victim: WorkerProcess
    was_leader: bool
    done_at_kill: int
    started: float  # monotonic: first submit
    killed_at: float  # monotonic
    killed_wall: datetime
    submitted_in: float
    drained_at: float
    undrained: int
    deaths: list[tuple[float, WorkerDied]]


async def run_kill_worker(nc: NATS, settings: Settings, *, jobs: int, workers: int, concurrency: int) -> int:
    """Run the kill-worker proof and print its ledger; 0 when nothing was lost or completed twice."""
    namespace = f"demo{time.strftime('%Y%m%d%H%M%S')}{os.urandom(1).hex()}"
    # A long lease: only the supervisor can bring a dead worker's jobs back quickly.
    settings = msgspec.structs.replace(settings, namespace=namespace, ack_wait=30.0)
    url = connected_url(nc, settings)
    check = LedgerCheck(nc, settings)
    await check.setup()
    print(f"jetjobs demo kill-worker: namespace {namespace} on {mask_url(url)}", flush=True)
    # On the embedded server (no NATS_URL) the workers join it through its store directory.
    pool_url = settings.nats.url or ""
    async with WorkerPool("jetjobs._cli.demo:app", settings, pool_url, concurrency=concurrency) as pool:
        await pool.start(workers)
        print(f"  {workers} workers started; submitting {jobs} jobs", flush=True)
        payloads = [{"n": i, "ms": 2 + i % 4} for i in range(jobs)]
        ids: list[str] = []
        started = time.monotonic()
        async with anyio.create_task_group() as tg:

            async def submit_all() -> None:
                ids.extend(await submit(Publisher(nc, settings), payloads))

            tg.start_soon(submit_all)
            await check.wait_until(lambda: len(check.settled) >= jobs * 3 // 10, timeout=600)
            leader = await current_leader(nc, settings)
            victim = pool.by_worker_id().get(leader or "") or pool.live[0]
            done_at_kill = len(check.settled)
            killed_at, killed_wall = time.monotonic(), utcnow()
            await pool.kill(victim)
            print(f"  SIGKILL {victim.describe()} after {done_at_kill} jobs completed", flush=True)
        submitted_in = time.monotonic() - started
        undrained = await check.wait_drained(ids, timeout=settings.ack_wait * 2 + 60)
        drained_at = time.monotonic()
    await check.close()
    assert victim.worker_id is not None
    audit = await check.audit(
        ids, explain={victim.worker_id: "redelivered after the kill: the killed worker had started them"}
    )
    run = KillRun(
        settings=settings,
        pool=pool,
        victim=victim,
        was_leader=victim.worker_id == leader,
        done_at_kill=done_at_kill,
        started=started,
        killed_at=killed_at,
        killed_wall=killed_wall,
        submitted_in=submitted_in,
        drained_at=drained_at,
        undrained=len(undrained),
        deaths=check.deaths,
    )
    for line in ledger_lines(audit, run):
        print(line)
    return 0 if audit.ok and not pool.crashed() else 1


def ledger_lines(audit: Audit, run: KillRun) -> list[str]:
    """The demo's ledger: the numbers that prove (or disprove) the claim."""
    s, victim = run.settings, run.victim
    lines = [
        "",
        "jetjobs demo kill-worker: ledger",
        f"  namespace               {s.namespace}",
        f"  workers                 {len(run.pool.processes)} x concurrency {run.pool.concurrency} "
        f"(ack_wait {s.ack_wait:g} s, heartbeat every {s.heartbeat_interval:g} s, ttl {s.heartbeat_ttl} s)",
        f"  submitted               {audit.submitted} (published in {run.submitted_in:.2f} s)",
        f"  killed                  {victim.describe()}"
        + (", the elected supervisor," if run.was_leader else "")
        + f" with SIGKILL after {run.done_at_kill} completions",
    ]
    died = [(at, event) for at, event in run.deaths if event.worker == victim.worker_id]
    if died:
        at, event = died[0]
        lines.append(
            f"  worker died event       {at - run.killed_at:.2f} s after the kill (from supervisor "
            f"{event.supervisor}; it NAKed the {event.recovered} deliveries of the last heartbeat)"
        )
    else:
        lines.append("  worker died event       none received")
    lines += [
        f"  completed               {audit.completed} (succeeded {audit.states['succeeded']}, "
        f"dead {audit.states['dead']})",
        f"  lost                    {len(audit.lost)}"
        + (f" ({run.undrained} not finished when the wait ended)" if run.undrained else ""),
        f"  duplicate completions   {len(audit.duplicate_completions)}",
        f"  handler executions      {audit.executions}",
        f"  duplicate executions    {len(audit.duplicate_executions)} job(s) ran twice",
    ]
    lines += [f"      {count:>5}  {why}" for why, count in audit.reasons.most_common()]
    lines += _recovery_lines(audit, run)
    counts: Counter[str] = Counter()
    for p in run.pool.processes:
        if p is not victim:
            counts.update(p.counts)
    if counts["skipped"]:
        lines.append(
            f"  redelivered, skipped    {counts['skipped']} (completed in the ledger by the killed worker, "
            "its ack unsent: acked without running)"
        )
    if audit.missing_events:
        lines.append(
            f"  events not published    {len(audit.missing_events)} (the killed worker completed them "
            "but died before announcing; the ledger has them)"
        )
    crashed = run.pool.crashed()
    lines.append(f"  workers crashed         {len(crashed)}")
    lines += [f"      {p.describe()}" for p in crashed]
    elapsed = run.drained_at - run.started
    before = run.killed_at - run.started
    lines.append(
        f"  throughput              {run.done_at_kill / before:.0f} jobs/s before the kill "
        f"({len(run.pool.processes)} workers); {audit.completed / elapsed:.0f} jobs/s overall "
        f"({audit.completed} in {elapsed:.2f} s)"
    )
    ok = audit.ok and not crashed
    lines.append(
        "  verdict                 " + ("OK: nothing lost, nothing completed twice" if ok else "FAILED")
    )
    return lines


def _recovery_lines(audit: Audit, run: KillRun) -> list[str]:
    """How the killed worker's jobs came back: by the supervisor's NAK, or after ack_wait."""
    # demo.work never fails, so a job that finished on a later attempt was redelivered.
    finished = {
        job_id: (record.updated_at - run.killed_wall).total_seconds()
        for job_id, record in audit.records.items()
        if record.attempt > 1 and record.state in TERMINAL_STATES
    }
    if not finished:
        return ["  recovered jobs          0"]
    late_after = run.settings.ack_wait / 2
    fast = [t for t in finished.values() if t < late_after]
    late = [t for t in finished.values() if t >= late_after]
    lines = [
        f"  recovered jobs          {len(finished)} (delivered to the killed worker, finished elsewhere); "
        f"the last {max(finished.values()):.2f} s after the kill"
    ]
    if fast:
        lines.append(
            f"      {len(fast):>5}  NAKed by the supervisor, redelivered at once: "
            f"the last finished {max(fast):.2f} s after the kill"
        )
    if late:
        lines.append(
            f"      {len(late):>5}  fetched after its last heartbeat, so back only after ack_wait: "
            f"the last finished {max(late):.2f} s after the kill"
        )
    return lines
