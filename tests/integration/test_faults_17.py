"""Regression tests of issue 17's faults that one process can reproduce against a real server.

Named after the issue's items: attempts count executions (1), the ack_wait/TTL combination (3),
the orphan sweep's count (4), unannounced endings (5), `job.process_failed`'s job id (6), the
connection's own log lines (7), and the leader in `jetjobs workers` (8).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs import App, EmbeddedServer, JobContext, NatsSettings, Publisher, Settings
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.orphans import snapshot, sweep_orphans
from jetjobs._liveness.supervisor import Supervisor
from jetjobs._transport.connection import connect
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import JobEvent, StatusRecord, WorkerDied
from tests.chaos.harness import free_port
from tests.support import enqueued_and_bound, ghost_worker, log_lines, run_jetjobs, running_worker, status_of

pytestmark = [pytest.mark.integration]


def recording_app(runs: list[tuple[str, int]]) -> App:
    app = App()

    @app.job("record")
    async def record(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append((ctx.id, ctx.attempt))

    return app


async def test_item1_released_deliveries_do_not_spend_attempts(nc: NATS, settings: Settings) -> None:
    """Deliveries handed back unstarted (NAKed, as a stopping worker does) cost no attempt.

    Three jobs with max_attempts=1 are fetched and NAKed twice each before any worker runs them:
    their fourth delivery must run the handler (attempt 1) and succeed, not dead-letter them as
    `exhausted` without a single execution.
    """
    ids, sub = await enqueued_and_bound(nc, settings, "record", 3, max_attempts=1)
    for handed_back in range(3):  # unstarted: released at shutdown, NAKed by a supervisor
        # A pull returns what is there when it asks: NAKed messages come back one by one, so ask
        # until all three are held (each fetch bounded by its timeout).
        held: list[Msg] = []
        while len(held) < 3:
            held += await sub.fetch(3 - len(held), timeout=5)
        assert [m.metadata.num_delivered for m in held] == [handed_back + 1] * 3
        for msg in held:
            await msg.nak()
    await sub.unsubscribe()
    runs: list[tuple[str, int]] = []
    async with running_worker(recording_app(runs), nc, settings) as (_, outcomes):
        await outcomes.wait(lambda: all(outcomes.by_job.get(i) for i in ids))
    assert sorted(runs) == sorted((job_id, 1) for job_id in ids)
    for job_id in ids:
        record = await status_of(nc, settings, job_id)
        assert (record.state, record.attempt) == ("succeeded", 1), record


async def test_item3_ack_wait_not_above_ttl_still_recovers(nc: NATS, settings: Settings) -> None:
    """With ack_wait (2 s) <= heartbeat_ttl (2 s), a dead worker's claimed jobs are still NAKed.

    The dead worker's last beat is always older than ack_wait when its key expires. Its jobs that
    nobody has claimed since (ledger `running` on it) must still be handed back, marked `queued`
    and counted in the `worker.died` event, instead of `recovered: 0`. (A standalone supervisor
    and no worker: nothing else touches the jobs.)
    """
    s = msgspec.structs.replace(settings, ack_wait=2.0, heartbeat_interval=0.5, heartbeat_ttl=2)
    topology = Topology(s)
    js = nc.jetstream()
    ids, sub = await enqueued_and_bound(nc, s, "echo", 2)
    held = await sub.fetch(2, timeout=5)
    beat = await ghost_worker(Ledger(await topology.status_kv(js)), held, ids, claimed=2, listed=2)
    supervisor = Supervisor(nc, s, supervisor_id="standalone")
    async with anyio.create_task_group() as tg:
        await tg.start(supervisor.run)
        events = await nc.subscribe(topology.events_subject("worker.died"))
        await js.publish(f"$KV.{topology.workers_bucket}.workers.ghost", msgspec.json.encode(beat), msg_ttl=2)
        died = msgspec.json.decode((await events.next_msg(timeout=15)).data, type=WorkerDied)
        tg.cancel_scope.cancel()
    assert died.worker == "ghost"
    assert died.recovered == 2, died
    assert sorted(died.job_ids) == sorted(ids)
    for job_id in ids:
        record = await status_of(nc, s, job_id)
        assert (record.state, record.attempt) == ("queued", 1), record


async def test_item4_sweep_counts_only_what_it_handed_back(nc: NATS, settings: Settings) -> None:
    """Sequences acked above the ack floor are neither NAKed nor counted; pending orphans are.

    Of 40 delivered jobs, 37 are acked (and `succeeded` in the ledger), out of order; the first
    and the last two stay pending, never started. The sweep must report exactly those 3, and
    they must come back.
    """
    topology = Topology(settings)
    js = nc.jetstream()
    ids, sub = await enqueued_and_bound(nc, settings, "echo", 40)
    held = await sub.fetch(40, timeout=5)
    assert len(held) == 40
    ledger = Ledger(await topology.status_kv(js))
    orphans = {0, 38, 39}
    for index, msg in enumerate(held):
        if index in orphans:
            continue
        record, revision = await ledger.get(ids[index])
        assert record is not None
        done = msgspec.structs.replace(record, state="succeeded", attempt=1, worker="gone")
        assert await ledger.write(done, revision) is not None
        await msg.ack_sync()
    windows = await snapshot(nc, topology, ["default"])
    assert [w.last - w.first + 1 for w in windows] == [40]  # the ack floor is below all of them
    swept = await sweep_orphans(nc, topology, ledger, windows, live=[])
    assert sorted(swept) == sorted(ids[i] for i in orphans)
    again = await sub.fetch(3, timeout=5)
    assert sorted(m.metadata.sequence.stream for m in again) == sorted(
        held[i].metadata.sequence.stream for i in orphans
    )


class LedgerReplyLost:
    """A ledger whose first `succeeded` write lands but whose reply never comes (a server pause)."""

    def __init__(self, ledger: Ledger) -> None:
        self.real_write = ledger.write
        self.lost: list[str] = []

    async def write(self, record: StatusRecord, revision: int) -> int | None:
        written = await self.real_write(record, revision)
        if record.state == "succeeded" and record.id not in self.lost:
            self.lost.append(record.id)
            raise TimeoutError("no reply within 5.0s")
        return written


class LedgerAway:
    """A ledger that answers nothing for `seconds` once a completion is written (a server gone
    away between the claim and the completion, for that long)."""

    def __init__(self, ledger: Ledger, seconds: float) -> None:
        self.real_write = ledger.write
        self.real_get = ledger.get
        self.seconds = seconds
        self.until: float | None = None

    def _away(self) -> bool:
        return self.until is not None and anyio.current_time() < self.until

    async def write(self, record: StatusRecord, revision: int) -> int | None:
        if record.state == "succeeded" and self.until is None:
            self.until = anyio.current_time() + self.seconds
        if self._away():
            raise TimeoutError("no reply within 5.0s")
        return await self.real_write(record, revision)

    async def get(self, job_id: str) -> tuple[StatusRecord | None, int]:
        if self._away():
            raise TimeoutError("no reply within 5.0s")
        return await self.real_get(job_id)


async def test_item5_completion_whose_reply_was_lost_is_announced_once(nc: NATS, settings: Settings) -> None:
    """A completion whose ledger write landed but whose reply was lost is still announced, once.

    The worker reads the entry back, finds its own `succeeded`, acks and announces: exactly one
    event, carrying the attempt and worker the ledger holds, and the handler ran once.
    """
    topology = Topology(settings)
    events: list[JobEvent] = []

    async def on_event(msg: Any) -> None:
        events.append(msgspec.json.decode(msg.data, type=JobEvent))

    sub = await nc.subscribe(topology.events_subject("job.>"), cb=on_event)
    runs: list[tuple[str, int]] = []
    async with running_worker(recording_app(runs), nc, settings) as (worker, outcomes):
        assert worker.executor is not None
        lossy = LedgerReplyLost(worker.executor.ledger)
        worker.executor.ledger.write = lossy.write  # type: ignore[method-assign]
        job = await Publisher(nc, settings).enqueue("record", {})
        await outcomes.wait_for(job.id, "succeeded")
        await nc.flush()
    await sub.unsubscribe()
    record = await status_of(nc, settings, job.id)
    assert lossy.lost == [job.id]
    assert runs == [(job.id, 1)]
    assert [(e.job_id, e.outcome, e.attempt, e.worker) for e in events] == [
        (job.id, "succeeded", record.attempt, record.worker)
    ]


async def test_item6_process_failed_names_the_job(nc: NATS, settings: Settings) -> None:
    """`job.process_failed` (the ledger did not answer for longer than publish_retry_for) names
    the job; the job comes back after its lease and succeeds at its second attempt.
    """
    s = msgspec.structs.replace(settings, publish_retry_for=1.0)
    with log_lines() as lines:
        async with running_worker(recording_app([]), nc, s) as (worker, outcomes):
            assert worker.executor is not None
            ledger = worker.executor.ledger
            away = LedgerAway(ledger, seconds=1.5)
            ledger.write = away.write  # type: ignore[method-assign]
            ledger.get = away.get  # type: ignore[method-assign]
            job = await Publisher(nc, s).enqueue("record", {})
            await outcomes.wait_for(job.id, "succeeded")
    failed = lines.named("job.process_failed")
    assert len(failed) == 1, lines.lines
    assert failed[0]["job_id"] == job.id
    assert failed[0]["type"] == "record"
    assert failed[0]["error"] == "TimeoutError: no reply within 5.0s"
    record = await status_of(nc, s, job.id)
    assert (record.state, record.attempt) == ("succeeded", 2)


async def test_item7_connection_events_are_one_line_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A server killed and restarted: one `nats.disconnected` and one `nats.reconnected` line,
    network errors as single warning lines, and nothing from nats-py's own traceback logger.
    """
    server = EmbeddedServer(tmp_path / "store", port=free_port())
    url = await anyio.to_thread.run_sync(server.start)
    caplog.set_level(logging.DEBUG, logger="nats")
    try:
        with log_lines() as lines:
            nc = await connect(url, NatsSettings(url=url))
            try:
                await anyio.to_thread.run_sync(server.kill)
                down = await lines.wait("nats.disconnected")
                await lines.wait("nats.error", "ConnectionRefusedError")  # a reconnect attempt
                await anyio.to_thread.run_sync(server.start)
                back = await lines.wait("nats.reconnected")
            finally:
                await nc.close()
    finally:
        await anyio.to_thread.run_sync(server.stop)
    assert down["log_level"] == "warning"
    assert down["server"]
    assert back["server"]
    assert back["away_s"] > 0
    assert back["failed_attempts"] >= 1, lines.lines
    assert len(lines.named("nats.disconnected")) == len(lines.named("nats.reconnected")) == 1
    for error in lines.named("nats.error"):
        assert error["log_level"] == "warning", error
        assert "exc_info" not in error, error
    # One line per kind of network error per outage, however many reconnect attempts failed.
    kinds = [e["error"].split(":")[0] for e in lines.named("nats.error")]
    assert len(kinds) == len(set(kinds)), kinds
    assert [r for r in caplog.records if r.name.startswith("nats")] == []


async def test_item8_workers_command_shows_the_leader(nc: NATS, settings: Settings) -> None:
    """`jetjobs workers --json` marks the worker whose supervisor leads; the table says `leader`."""
    app = App()

    @app.job("noop")
    async def noop(ctx: JobContext, payload: dict[str, Any]) -> None:
        return None

    async with running_worker(app, nc, settings) as (worker, _):
        assert worker.supervisor is not None
        with anyio.fail_after(10):
            await worker.supervisor.wait_leadership()
        listed = await run_jetjobs(settings, "workers", "--json")
        table = await run_jetjobs(settings, "workers")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(row["id"], row["leader"]) for row in rows] == [(worker.id, True)]
    text = table.stdout.decode()
    assert "leader" in text.splitlines()[0]
    assert f"supervisor leader: {worker.id}" in text
