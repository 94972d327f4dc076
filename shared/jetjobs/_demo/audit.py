"""The audit of a set of jobs: every job must end exactly once, and every second run is explained.

`LedgerCheck` follows a namespace's job events live (so a demo or a test can wait for progress),
and once the jobs are done reads the ledger, the job events and the execution log
(jetjobs._demo.work) to count outcomes, losses, duplicate completions and duplicate executions,
each with its reason. `submit` publishes a batch of jobs to audit.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api

from jetjobs._demo.work import EXECUTION_DECODER, Execution, events_stream, exec_stream
from jetjobs._joblog.ledger import Ledger
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.topology import Topology, ensure_stream
from jetjobs._wire.envelope import (
    JOB_EVENT_DECODER,
    STATUS_DECODER,
    TERMINAL_STATES,
    WORKER_DIED_DECODER,
    Job,
    JobEvent,
    StatusRecord,
    WorkerDied,
)
from jetjobs._wire.headers import KV_OPERATION


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
            execution = EXECUTION_DECODER.decode(msg.data)
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
