"""Replay against a real nats-server: a window of the log runs again, as new jobs, exactly once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Publisher, Reject, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.replay import plan_replay, replay, replay_job_id
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, decode_job, utcnow
from tests.support import run_jetjobs, running_worker

pytestmark = [pytest.mark.integration]


def recording_app(runs: list[tuple[str, str, str | None]]) -> App:
    """Handlers for `a.job`, `b.job` and `c.job` that note (type, job id, replay_of) per run."""
    app = App()

    @app.job("a.job")
    async def a(ctx: JobContext, payload: dict[str, Any]) -> int:
        runs.append(("a.job", ctx.id, ctx.job.replay_of))
        return int(payload["n"])

    @app.job("b.job")
    async def b(ctx: JobContext, payload: dict[str, Any]) -> int:
        runs.append(("b.job", ctx.id, ctx.job.replay_of))
        return int(payload["n"])

    @app.job("c.job")
    async def c(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(("c.job", ctx.id, ctx.job.replay_of))
        if payload.get("reject"):
            raise Reject("refused on purpose")

    return app


async def last_seq(nc: NATS, settings: Settings) -> int:
    """The JOBS stream's last sequence: it moves only when something is stored."""
    return (await nc.jetstream().stream_info(Topology(settings).jobs_stream)).state.last_seq


async def test_replay_window_with_type_filter_runs_matching_jobs_once(nc: NATS, settings: Settings) -> None:
    """Only the filtered type inside the window runs again, each once, as a new job naming its original."""
    runs: list[tuple[str, str, str | None]] = []
    publisher = Publisher(nc, settings)
    async with running_worker(recording_app(runs), nc, settings) as (_, outcomes):
        before = [await publisher.enqueue("a.job", {"n": i}) for i in range(2)]
        for job in before:
            await outcomes.wait_for(job.id, "succeeded")
        since = utcnow()  # after the first batch was stored, before the second
        inside_a = [await publisher.enqueue("a.job", {"n": 10 + i}) for i in range(3)]
        inside_b = [await publisher.enqueue("b.job", {"n": 20 + i}) for i in range(2)]
        for job in inside_a + inside_b:
            await outcomes.wait_for(job.id, "succeeded")
        runs.clear()

        plan = plan_replay(since, job_type="a.job")
        report = await replay(nc, settings, plan)
        assert report.published == 3
        assert report.matched == 3
        assert report.by_type == {"a.job": 3}
        assert report.skipped_invalid == 0
        expected = {replay_job_id(plan.replay_id, job.id): job.id for job in inside_a}
        for new_id in expected:
            await outcomes.wait_for(new_id, "succeeded")

        # The same replay again (a crashed run resumed): nothing is published, nothing runs.
        seq = await last_seq(nc, settings)
        again = await replay(nc, settings, plan)
        assert (again.published, again.already_replayed) == (0, 3)
        assert await last_seq(nc, settings) == seq

    assert sorted(runs) == sorted(("a.job", new_id, original) for new_id, original in expected.items())
    assert all(original not in {job.id for job in before} for original in expected.values())
    ledger = Ledger(await Topology(settings).status_kv(nc.jetstream()))
    for new_id in expected:
        record, _ = await ledger.get(new_id)
        assert record is not None
        assert record.state == "succeeded"


async def test_dry_run_counts_and_publishes_nothing(nc: NATS, settings: Settings) -> None:
    """A dry run reports counts by type, first and last time, and skipped invalid messages; stores nothing."""
    runs: list[tuple[str, str, str | None]] = []
    publisher = Publisher(nc, settings)
    since = utcnow()
    async with running_worker(recording_app(runs), nc, settings) as (_, outcomes):
        jobs = [await publisher.enqueue("a.job", {"n": 1}), await publisher.enqueue("b.job", {"n": 2})]
        jobs.append(await publisher.enqueue("b.job", {"n": 3}))
        # Not a job at all, on a job subject: the worker dead-letters it; replay must skip it.
        await nc.jetstream().publish(
            Topology(settings).job_subject("default", "normal", "a.job"), b"{not json"
        )
        for job in jobs:
            await outcomes.wait_for(job.id, "succeeded")
        await outcomes.wait(lambda: outcomes.count("invalid") == 1)
    seq = await last_seq(nc, settings)

    report = await replay(nc, settings, plan_replay(since), dry_run=True)

    assert report.dry_run
    assert report.by_type == {"a.job": 1, "b.job": 2}
    assert report.matched == 3
    assert report.published == 0
    assert report.skipped_invalid == 1
    assert report.first_at is not None
    assert report.last_at is not None
    assert since <= report.first_at <= report.last_at
    assert await last_seq(nc, settings) == seq

    # --until before anything was stored: an empty window.
    empty = await replay(nc, settings, plan_replay(since, until=report.first_at), dry_run=True)
    assert (empty.matched, empty.scanned) == (0, 0)


async def test_status_filter_replays_only_dead_jobs(nc: NATS, settings: Settings) -> None:
    """`status=dead` replays the jobs whose original ended dead, not those that succeeded."""
    runs: list[tuple[str, str, str | None]] = []
    publisher = Publisher(nc, settings)
    since = utcnow()
    async with running_worker(recording_app(runs), nc, settings) as (_, outcomes):
        ok = await publisher.enqueue("c.job", {"reject": False})
        dead = [await publisher.enqueue("c.job", {"reject": True}) for _ in range(2)]
        await outcomes.wait_for(ok.id, "succeeded")
        for job in dead:
            await outcomes.wait_for(job.id, "dead")

        plan = plan_replay(since, status="dead", rate="100/s")
        report = await replay(nc, settings, plan)
        assert report.published == 2
        assert report.skipped_status == 1
        for job in dead:
            await outcomes.wait_for(replay_job_id(plan.replay_id, job.id), "dead")

    replayed = [(job_id, original) for _, job_id, original in runs if original is not None]
    assert sorted(original for _, original in replayed) == sorted(job.id for job in dead)


async def test_replay_skips_its_own_output_and_rejects_foreign_subjects(nc: NATS, settings: Settings) -> None:
    """A replay whose window covers its own earlier output does not replay that output again."""
    runs: list[tuple[str, str, str | None]] = []
    publisher = Publisher(nc, settings)
    since = utcnow()
    async with running_worker(recording_app(runs), nc, settings) as (_, outcomes):
        original = await publisher.enqueue("a.job", {"n": 1})
        await outcomes.wait_for(original.id, "succeeded")
        plan = plan_replay(since, replay_id="nightly-fix")
        first = await replay(nc, settings, plan)
        assert first.published == 1
        await outcomes.wait_for(replay_job_id("nightly-fix", original.id), "succeeded")
        # Now the window holds the original and the replay's own job.
        second = await replay(nc, settings, plan)
        assert (second.published, second.already_replayed, second.skipped_own) == (0, 1, 1)
    with pytest.raises(Exception, match="must be a job subject"):
        await replay(nc, settings, plan_replay(since, subject="elsewhere.>"))


async def test_replay_command_dry_run_then_for_real(nc: NATS, settings: Settings) -> None:
    """`jetjobs replay --dry-run` prints counts and publishes nothing; without it, the jobs run again."""
    runs: list[tuple[str, str, str | None]] = []
    publisher = Publisher(nc, settings)
    async with running_worker(recording_app(runs), nc, settings) as (_, outcomes):
        job = await publisher.enqueue("b.job", {"n": 5})
        await outcomes.wait_for(job.id, "succeeded")
        seq = await last_seq(nc, settings)
        dry = await run_jetjobs(settings, "replay", "--since", "1h", "--type", "b.job", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert b"matched            1  (b.job 1)" in dry.stdout
        assert b"dry run: nothing published" in dry.stdout
        assert await last_seq(nc, settings) == seq

        done = await run_jetjobs(
            settings, "replay", "--since", "1h", "--status", "succeeded", "--replay-id", "cli-1", "--json"
        )
        assert done.returncode == 0, done.stderr
        report = msgspec.json.decode(done.stdout)["report"]
        assert (report["published"], report["by_type"]) == (1, {"b.job": 1})
        await outcomes.wait_for(replay_job_id("cli-1", job.id), "succeeded")
    bad = await run_jetjobs(settings, "replay", "--since", "yesterday")
    assert bad.returncode == 2
    assert b"neither a duration" in bad.stderr


async def _stored_twice(nc: NATS, settings: Settings, job_id: str) -> None:
    """Store job `job_id` in the log a second time, as requeueing its dead letter does."""
    topology = Topology(settings)
    js = nc.jetstream()
    ledger = Ledger(await topology.status_kv(js))
    dead = DeadLetters(js, topology, ledger)
    msg = await js.get_last_msg(topology.jobs_stream, topology.job_subject("default", "normal", "a.job"))
    assert msg.data is not None
    assert msg.subject is not None
    assert decode_job(msg.data).id == job_id
    letter = DeadLetter(job_id=job_id, type="a.job", queue="default", reason="rejected", error="once more",
                        attempts=1, worker="w", failed_at=utcnow(), enqueued_at=None,
                        original_subject=msg.subject, original=msg.data)  # fmt: skip
    await dead.put(letter)
    found = await dead.show(job_id)
    assert found is not None
    await dead.requeue(*found)


async def test_dry_run_count_is_what_the_replay_then_publishes(nc: NATS, settings: Settings) -> None:
    """A dry run's `to_publish` equals what the same plan's replay publishes, where the page's old
    count (matched minus already replayed) was wrong: jobs that another replay replayed before
    (said N, published 0), a job the log holds twice after a requeue (said 2, published 1), and
    jobs stored after the dry run (left out once the dry run's `end_seq` is the plan's
    `through_seq`)."""
    publisher = Publisher(nc, settings)
    since = utcnow()
    jobs = [await publisher.enqueue("a.job", {"n": n}) for n in range(4)]  # no worker: they wait

    earlier = await replay(nc, settings, plan_replay(since, job_type="a.job", replay_id="earlier"))
    assert earlier.published == 4
    # Another window (a relative --since typed again): its replay id is new, its jobs were replayed.
    plan = plan_replay(since - timedelta(seconds=1), job_type="a.job")
    dry = await replay(nc, settings, plan, dry_run=True)
    assert (dry.matched, dry.already_replayed, dry.replayed_before, dry.to_publish) == (4, 0, 4, 0)
    seq = await last_seq(nc, settings)
    real = await replay(nc, settings, plan)
    assert real.published == dry.to_publish == 0
    assert await last_seq(nc, settings) == seq

    # A new window with one job the log holds twice (its dead letter was requeued).
    since = utcnow()
    twice = await publisher.enqueue("a.job", {"n": 10})
    await _stored_twice(nc, settings, twice.id)
    once = await publisher.enqueue("a.job", {"n": 11})
    plan = plan_replay(since, job_type="a.job")
    dry = await replay(nc, settings, plan, dry_run=True)
    assert (dry.matched, dry.skipped_repeats, dry.to_publish) == (2, 1, 2)
    assert dry.to_publish_by_type == {"a.job": 2}

    # Jobs stored after the dry run are outside the window it showed.
    await publisher.enqueue("a.job", {"n": 12})
    plan = msgspec.structs.replace(plan, through_seq=dry.end_seq)
    seq = await last_seq(nc, settings)
    real = await replay(nc, settings, plan)
    assert real.published == real.to_publish == dry.to_publish == 2
    assert await last_seq(nc, settings) == seq + 2
    ledger = Ledger(await Topology(settings).status_kv(nc.jetstream()))
    for job in (twice, once):
        record, _ = await ledger.get(replay_job_id(plan.replay_id, job.id))
        assert record is not None
    assert jobs  # the first four are the earlier replay's originals
