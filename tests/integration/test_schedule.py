"""Delayed and recurring jobs fired by the server (ADR-51 message schedules), restarts included."""

from __future__ import annotations

import socket
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import nats.js.errors
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, EmbeddedServer, JobContext, Publisher, Settings
from jetjobs._errors import ConfigError
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.schedule import Schedules, cron_pattern, every_pattern
from jetjobs._transport.connection import connect
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import utcnow
from jetjobs._wire.headers import SCHEDULER
from tests.support import fast_settings, run_jetjobs, running_worker

pytestmark = [pytest.mark.integration]


def ticking_app(runs: list[tuple[str, str, datetime]]) -> App:
    """`tick` and `marker` handlers that note (type, job id, when) per run."""
    app = App()

    @app.job("tick")
    async def tick(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(("tick", ctx.id, utcnow()))

    @app.job("marker")
    async def marker(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(("marker", ctx.id, utcnow()))

    return app


async def schedule_exists(nc: NATS, subject: str, settings: Settings) -> bool:
    """Whether the JOBS stream still holds a schedule message on `subject`."""
    try:
        await nc.jetstream().get_last_msg(Topology(settings).jobs_stream, subject)
    except nats.js.errors.NotFoundError:
        return False
    return True


async def test_delayed_job_runs_once_at_its_time(nc: NATS, settings: Settings) -> None:
    """A job enqueued with run_at two seconds ahead runs then, once, under its own id."""
    runs: list[tuple[str, str, datetime]] = []
    async with running_worker(ticking_app(runs), nc, settings) as (_, outcomes):
        run_at = utcnow() + timedelta(seconds=2)
        job = await Publisher(nc, settings).enqueue("tick", {}, run_at=run_at)
        delayed = Topology(settings).delayed_subject(job.id)
        assert await schedule_exists(nc, delayed, settings)
        await outcomes.wait_for(job.id, "succeeded", timeout=15)
    assert [(kind, job_id) for kind, job_id, _ in runs] == [("tick", job.id)]
    assert runs[0][2] >= run_at
    # The server deleted the schedule once it fired: it cannot fire again.
    assert not await schedule_exists(nc, delayed, settings)
    record, _ = await Ledger(await Topology(settings).status_kv(nc.jetstream())).get(job.id)
    assert record is not None
    assert record.state == "succeeded"


async def test_every_schedule_fires_distinct_jobs_until_removed(nc: NATS, settings: Settings) -> None:
    """`@every 1s` runs a new job per firing (distinct ids), and none after `remove`."""
    runs: list[tuple[str, str, datetime]] = []
    publisher = Publisher(nc, settings)
    schedules = Schedules(publisher)
    topology = Topology(settings)
    js = nc.jetstream()
    async with running_worker(ticking_app(runs), nc, settings) as (_, outcomes):
        added = await schedules.add("ticker", "tick", {"x": 1}, every="1s")
        assert added.pattern == "@every 1s"
        assert [s.name for s in await schedules.entries()] == ["ticker"]
        await outcomes.wait(lambda: outcomes.count("succeeded") >= 3, timeout=20)

        assert await schedules.remove("ticker")
        assert not await schedules.remove("ticker")
        assert await schedules.entries() == []
        removed_at_seq = (await js.stream_info(topology.jobs_stream)).state.last_seq
        # Let 2.5 s pass, measured by the server itself: a delayed marker job. An `@every 1s`
        # schedule that still existed would fire twice meanwhile.
        marker = await publisher.enqueue("marker", {}, run_at=utcnow() + timedelta(seconds=2.5))
        await outcomes.wait_for(marker.id, "succeeded", timeout=15)

    ticks = [job_id for kind, job_id, _ in runs if kind == "tick"]
    assert len(ticks) >= 3
    assert len(set(ticks)) == len(ticks)
    assert all(job_id.startswith(f"{added.job.id}-") for job_id in ticks)
    fired_after = 0
    seq = removed_at_seq
    while True:
        try:
            msg = await js.get_msg(
                topology.jobs_stream, seq=seq + 1, next=True, subject=f"{topology.ns}.jobs.>"
            )
        except nats.js.errors.NotFoundError:
            break
        seq = msg.seq or seq + 1
        fired_after += (msg.headers or {}).get(SCHEDULER) == topology.schedule_subject("ticker")
    assert fired_after == 0
    ledger = Ledger(await topology.status_kv(js))
    for job_id in ticks:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert record.state == "succeeded"


async def test_schedule_patterns_are_checked(nc: NATS, settings: Settings) -> None:
    """Classic 5-field cron gains a seconds field; bad patterns and names fail with a clear message."""
    assert cron_pattern("0 8 * * *") == "0 0 8 * * *"
    assert cron_pattern("*/5 0 8 * * mon-fri") == "*/5 0 8 * * mon-fri"
    assert cron_pattern("@daily") == "@daily"
    assert every_pattern("1h30m") == "@every 5400s"
    with pytest.raises(ConfigError, match="fields"):
        cron_pattern("0 8 * *")
    with pytest.raises(ConfigError, match="1s"):
        every_pattern("500ms")
    schedules = Schedules(Publisher(nc, settings))
    with pytest.raises(ConfigError, match="refused"):
        await schedules.add("bad", "tick", cron="61 * * * *")
    with pytest.raises(ConfigError, match="exactly one"):
        await schedules.add("both", "tick", cron="@daily", every="1h")
    with pytest.raises(ConfigError, match="name"):
        await schedules.add("no.dots", "tick", every="1h")
    added = await schedules.add("morning", "tick", cron="0 8 * * *")
    assert [(s.name, s.pattern, s.job.type) for s in await schedules.entries()] == [
        ("morning", "0 0 8 * * *", "tick")
    ]
    # Adding a name again replaces the schedule (the server keeps one per subject).
    await schedules.add("morning", "tick", cron="0 9 * * *")
    assert [s.pattern for s in await schedules.entries()] == ["0 0 9 * * *"]
    assert added.job.id


def free_port() -> int:
    """A loopback port nobody listens on now (the restarted server must come back on the same one)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_schedule_survives_restart_of_worker_and_server(tmp_path: Path, namespace: str) -> None:
    """A schedule and a pending delayed job live in the stream: after both processes restart, they fire."""
    server = EmbeddedServer(tmp_path / "store", port=free_port())
    server.start()
    try:
        settings = fast_settings(namespace, server.url, storage="file", fetch_timeout=1.0)
        runs: list[tuple[str, str, datetime]] = []
        nc = await connect(server.url, settings.nats, name="schedule-restart-1")
        try:
            publisher = Publisher(nc, settings)
            async with running_worker(ticking_app(runs), nc, settings) as (_, outcomes):
                await Schedules(publisher).add("ticker", "tick", every="1s")
                await outcomes.wait(lambda: outcomes.count("succeeded") >= 1, timeout=20)
            delayed = await publisher.enqueue("marker", {}, run_at=utcnow() + timedelta(seconds=3))
        finally:
            await nc.close()
        before = {job_id for _, job_id, _ in runs}
        server.stop()

        server = EmbeddedServer(tmp_path / "store", port=server.port)
        server.start()
        nc = await connect(server.url, settings.nats, name="schedule-restart-2")
        try:
            schedules = Schedules(Publisher(nc, settings))
            assert [s.name for s in await schedules.entries()] == ["ticker"]
            async with running_worker(ticking_app(runs), nc, settings) as (_, outcomes):
                await outcomes.wait_for(delayed.id, "succeeded", timeout=20)
                await outcomes.wait(
                    lambda: any(kind == "tick" and job_id not in before for kind, job_id, _ in runs),
                    timeout=20,
                )
            assert await schedules.remove("ticker")
        finally:
            await nc.close()
    finally:
        server.stop()
    assert [job_id for kind, job_id, _ in runs if kind == "marker"] == [delayed.id]


async def test_enqueue_in_and_schedule_commands(settings: Settings, nc: NATS) -> None:
    """`jetjobs enqueue --in 1s` runs later; `schedule add/list/remove` work; removing twice exits 1."""
    runs: list[tuple[str, str, datetime]] = []
    async with running_worker(ticking_app(runs), nc, settings) as (_, outcomes):
        done = await run_jetjobs(settings, "enqueue", "tick", "{}", "--in", "1s")
        assert done.returncode == 0, done.stderr
        job_id = msgspec.json.decode(done.stdout)["id"]
        await outcomes.wait_for(job_id, "succeeded", timeout=15)
    added = await run_jetjobs(
        settings, "schedule", "add", "nightly", "--cron", "0 3 * * *", "tick", '{"a": 1}'
    )
    assert added.returncode == 0, added.stderr
    assert b"0 0 3 * * *" in added.stdout
    listed = await run_jetjobs(settings, "schedule", "list")
    assert b"nightly" in listed.stdout
    assert b"1 schedule(s)" in listed.stdout
    assert (await run_jetjobs(settings, "schedule", "remove", "nightly")).returncode == 0
    missing = await run_jetjobs(settings, "schedule", "remove", "nightly")
    assert missing.returncode == 1
    assert b"no schedule named nightly" in missing.stderr
    bad = await run_jetjobs(settings, "enqueue", "tick", "--at", "tomorrow-ish")
    assert bad.returncode == 2
    assert b"RFC 3339" in bad.stderr
