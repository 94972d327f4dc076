"""Issue 16, items 1-8: what a message from any publisher may and may not do to other jobs.

Most tests publish raw messages the way another client would (`js.publish` with hand-made
headers and bodies), against a real nats-server.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import msgspec
import nats.js.errors
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from prometheus_client import generate_latest

from jetjobs import App, JobContext, Publisher, Settings
from jetjobs._joblog.cancel import cancel
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.coverage import coverage
from jetjobs._runtime.metrics import WorkerMetrics
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import JobDuplicate, new_job_id
from jetjobs._wire.headers import LEDGER_REVISION_HEADER
from tests.support import run_jetjobs, running_worker, status_of

pytestmark = [pytest.mark.integration]


def counting_app(runs: list[tuple[str, Any]], job_type: str = "hard.count") -> App:
    """An app whose one handler records (job id, payload) of every run."""
    app = App("hardening-tests", builtins=False)

    @app.job(job_type)
    async def count(ctx: JobContext, payload: dict[str, Any]) -> str:
        runs.append((ctx.id, payload))
        return ctx.id

    return app


def envelope(job_type: str = "hard.count", **fields: Any) -> dict[str, Any]:
    """A valid envelope of `job_type` as a raw client writes it, with `fields` replaced."""
    return {
        "id": new_job_id(),
        "type": job_type,
        "payload": {"n": 1},
        "created_at": "2026-11-30T08:00:00Z",
        **fields,
    }


async def publish_raw(
    nc: NATS, settings: Settings, body: dict[str, Any] | bytes, headers: dict[str, str] | None = None
) -> int:
    """Publish a job as a non-Python client would: on the subject its envelope names."""
    data = body if isinstance(body, bytes) else msgspec.json.encode(body)
    fields = body if isinstance(body, dict) else msgspec.json.decode(body)
    subject = Topology(settings).job_subject(
        fields.get("queue", "default"), fields.get("priority", "normal"), fields["type"]
    )
    ack = await nc.jetstream().publish(
        subject, data, headers={"Nats-Msg-Id": f"raw-{uuid.uuid4().hex}", **(headers or {})}
    )
    return ack.seq


async def ledger_of(nc: NATS, settings: Settings) -> Ledger:
    """The namespace's status ledger."""
    return Ledger(await Topology(settings).status_kv(nc.jetstream()))


async def test_item1_ledger_revision_header_never_reopens_a_terminal_entry(
    nc: NATS, settings: Settings
) -> None:
    """A job's body republished with `Jetjobs-Ledger-Revision: <its current revision>` does not run.

    For a `succeeded` and for a `cancelled` job: the handler never runs for the copy, and the
    entry keeps its state and its revision.
    """
    runs: list[tuple[str, Any]] = []
    publisher = Publisher(nc, settings)
    cancelled = await publisher.enqueue("hard.count", {"n": 2})
    assert (await cancel(nc, settings, cancelled.id)).outcome == "cancelled"
    ledger = await ledger_of(nc, settings)
    async with running_worker(counting_app(runs), nc, settings) as (_, outcomes):
        await outcomes.wait_for(cancelled.id, "cancelled")
        done = await publisher.enqueue("hard.count", {"n": 1})
        await outcomes.wait_for(done.id, "succeeded")
        for job_id in (done.id, cancelled.id):
            before, revision = await ledger.get(job_id)
            assert before is not None
            settled = list(outcomes.by_job[job_id])
            body = envelope(id=job_id, payload={"n": 99})
            await publish_raw(nc, settings, body, {LEDGER_REVISION_HEADER: str(revision)})
            await outcomes.wait(lambda: outcomes.by_job[job_id] != settled)  # noqa: B023 - awaited here
            after, after_revision = await ledger.get(job_id)
            assert after == before
            assert after_revision == revision
    assert runs == [(done.id, {"n": 1})]


async def test_item2_malformed_ledger_revision_header_is_ignored_and_counted(
    nc: NATS, settings: Settings
) -> None:
    """A header that is not a revision (`²` passes str.isdigit) never fails the job.

    Each job has max_attempts 1, so a failed delivery would make it dead: every one runs once
    and succeeds, and each malformed header is counted.
    """
    runs: list[tuple[str, Any]] = []
    bad = ["²", "-1", "1.0", "0x10", "", "١٢", "99999999999999999999999", "1e3"]
    async with running_worker(counting_app(runs), nc, settings) as (worker, outcomes):
        ids = []
        for value in bad:
            body = envelope(max_attempts=1)
            ids.append(body["id"])
            await publish_raw(nc, settings, body, {LEDGER_REVISION_HEADER: value})
        await outcomes.wait(lambda: all("succeeded" in outcomes.by_job[i] for i in ids))
        assert worker.executor is not None
        assert worker.executor.counts.get("bad_header") == len(bad)
        scraped = worker.metrics.bad_headers.labels(LEDGER_REVISION_HEADER)._value.get()
        assert scraped == len(bad)
    assert sorted(job_id for job_id, _ in runs) == sorted(ids)


async def test_item3_invalid_message_never_writes_over_another_jobs_entry(
    nc: NATS, settings: Settings
) -> None:
    """A message with a queued job's id and an unknown type, on another queue, leaves the job alone.

    The bogus message is dead-lettered under its own stream sequence; the real job's entry stays
    `queued`, has no dead letter, and then runs.
    """
    runs: list[tuple[str, Any]] = []
    real = await Publisher(nc, settings).enqueue("hard.count", {"n": 1})
    bogus = envelope("hard.nobody", id=real.id, queue="other")
    seq = await publish_raw(nc, settings, bogus)
    async with running_worker(counting_app(runs), nc, settings, queues=["other"]) as (_, outcomes):
        await outcomes.wait_for(f"invalid-{seq}", "invalid")
    assert (await status_of(nc, settings, real.id)).state == "queued"
    dead_letters = DeadLetters(nc.jetstream(), Topology(settings), await ledger_of(nc, settings))
    assert await dead_letters.show(real.id) is None
    found = await dead_letters.show(f"invalid-{seq}")
    assert found is not None
    letter = found[1]
    assert (letter.reason, letter.stream_seq, letter.type) == ("invalid", seq, "hard.nobody")
    assert f"job id {real.id} belongs to another message" in letter.error
    assert "unknown job type 'hard.nobody'" in letter.error

    async with running_worker(counting_app(runs), nc, settings) as (_, outcomes):
        await outcomes.wait_for(real.id, "succeeded")
    assert runs == [(real.id, {"n": 1})]


async def test_item3_own_invalid_job_still_ends_dead_under_its_id(nc: NATS, settings: Settings) -> None:
    """A job our publisher submitted with a type no worker knows is still `dead` under its own id.

    The entry is its own (written for this very body), so the worker may settle it.
    """
    job = await Publisher(nc, settings).enqueue("hard.unknown", {})
    async with running_worker(counting_app([]), nc, settings) as (_, outcomes):
        await outcomes.wait_for(job.id, "invalid")
    record = await status_of(nc, settings, job.id)
    assert (record.state, record.dead_reason) == ("dead", "invalid")


async def test_item4_second_message_with_a_finished_jobs_id_is_reported(nc: NATS, settings: Settings) -> None:
    """A new message (new Nats-Msg-Id) naming a succeeded job is acked without running, and said so.

    It is counted as `duplicate`, and a JobDuplicate event on `<ns>.events.duplicate` names
    the job, its state and the dropped message.
    """
    runs: list[tuple[str, Any]] = []
    events: list[JobDuplicate] = []
    received = anyio.Event()

    async def on_event(msg: Msg) -> None:
        events.append(msgspec.json.decode(msg.data, type=JobDuplicate))
        received.set()

    sub = await nc.subscribe(Topology(settings).events_subject("duplicate"), cb=on_event)
    async with running_worker(counting_app(runs), nc, settings) as (worker, outcomes):
        job = await Publisher(nc, settings).enqueue("hard.count", {"n": 1})
        await outcomes.wait_for(job.id, "succeeded")
        seq = await publish_raw(
            nc, settings, envelope(id=job.id, payload={"n": 2}), {"Nats-Msg-Id": "second-order"}
        )
        await outcomes.wait_for(job.id, "duplicate")
        with anyio.fail_after(10):
            await received.wait()
        assert worker.executor is not None
        assert worker.executor.counts["duplicate"] == 1
    await sub.unsubscribe()
    [event] = events
    assert (event.job_id, event.state, event.msg_id, event.stream_seq) == (
        job.id,
        "succeeded",
        "second-order",
        seq,
    )
    assert runs == [(job.id, {"n": 1})]
    assert (await status_of(nc, settings, job.id)).state == "succeeded"


async def test_item5_subjects_that_cannot_be_jobs_are_refused_and_the_rest_reported(
    nc: NATS, settings: Settings
) -> None:
    """Missing type, bad priority and short subjects are refused by the server; the others are seen.

    A job on a queue with no consumer and a job on a queue no live worker serves are reported by
    `jetjobs info --json` and by the worker's metrics.
    """
    js = nc.jetstream()
    topology = Topology(settings)
    await topology.ensure_base(js)
    ns = settings.namespace
    for subject in (f"{ns}.jobs.default.normal", f"{ns}.jobs.default.urgent.x", f"{ns}.jobs.x"):
        with pytest.raises(nats.js.errors.NoStreamResponseError):
            await js.publish(subject, msgspec.json.encode(envelope()), timeout=2)
    stray = f"{ns}.jobs.nobody.normal.hard.count"
    await js.publish(stray, msgspec.json.encode(envelope(queue="nobody")))
    waiting = await Publisher(nc, settings).enqueue("hard.count", {"n": 1}, queue="idle")

    done = await run_jetjobs(settings, "info", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["uncovered_subjects"] == {stray: 1}
    assert report["unserved_queues"] == {"idle": 1}

    await topology.ensure_queue(js, "default")  # as a worker of `default` would
    metrics = WorkerMetrics()
    await metrics.refresh(js, topology, ["default"], {"default"})
    text = generate_latest(metrics.registry).decode()
    assert f'jetjobs_uncovered_messages{{subject="{stray}"}} 1.0' in text
    assert 'jetjobs_unserved_jobs{queue="idle"} 1.0' in text
    found = await coverage(js, topology, ["default", "idle"])
    assert found.unserved == {}
    assert found.uncovered_messages == 1
    assert (await status_of(nc, settings, waiting.id)).state == "queued"


async def test_item6_run_at_in_a_raw_envelope_delays_the_job(nc: NATS, settings: Settings) -> None:
    """A raw job with `run_at` 2 s ahead does not start before then, and holds no slot meanwhile.

    The worker hands it to the server's scheduler (`deferred`), and runs it when it fires; a job
    submitted after it, due now, runs first on the same single slot.
    """
    runs: list[tuple[str, Any]] = []
    started: dict[str, datetime] = {}
    app = App("run-at", builtins=False)

    @app.job("hard.count")
    async def count(ctx: JobContext, payload: dict[str, Any]) -> None:
        started[ctx.id] = datetime.now(UTC)
        runs.append((ctx.id, payload))

    run_at = datetime.now(UTC) + timedelta(seconds=2)
    later = envelope(run_at=run_at.isoformat().replace("+00:00", "Z"))
    now = envelope()
    async with running_worker(app, nc, settings, concurrency=1) as (_, outcomes):
        await publish_raw(nc, settings, later)
        await outcomes.wait_for(later["id"], "deferred")
        await publish_raw(nc, settings, now)
        await outcomes.wait_for(later["id"], "succeeded")
    assert [job_id for job_id, _ in runs] == [now["id"], later["id"]]
    assert started[later["id"]] >= run_at
    assert outcomes.by_job[later["id"]] == ["deferred", "succeeded"]


async def test_item7_times_need_an_offset_and_integers_64_bits(nc: NATS, settings: Settings) -> None:
    """`created_at` without a time zone and integers past 64 bits are invalid, as the schema says.

    The 64-bit bounds themselves are accepted, and so is a time with a non-UTC offset.
    """
    runs: list[tuple[str, Any]] = []
    refused: dict[str, dict[str, Any] | bytes] = {
        "no offset": envelope(created_at="2026-11-30T08:00:00"),
        "400 digits": msgspec.json.encode(envelope()).replace(b'"n":1', b'"n":1' + b"0" * 399),
        "2**64": envelope(payload={"deep": [{"n": 2**64}]}),
        "-2**63 - 1": envelope(payload={"n": -(2**63) - 1}),
        "run_at no offset": envelope(run_at="2026-11-30T08:00:00"),
    }
    accepted = [
        envelope(payload={"max": 2**64 - 1, "min": -(2**63), "text": "1" * 40}),
        envelope(created_at="2026-11-30T09:00:00+01:00"),
    ]
    await Topology(settings).ensure_queue(nc.jetstream(), "default")
    seqs = {await publish_raw(nc, settings, body): name for name, body in refused.items()}
    async with running_worker(counting_app(runs), nc, settings) as (_, outcomes):
        for body in accepted:
            await publish_raw(nc, settings, body)
        await outcomes.wait(lambda: outcomes.count("invalid") == len(refused))
        await outcomes.wait(lambda: outcomes.count("succeeded") == len(accepted))
    assert sorted(job_id for job_id, _ in runs) == sorted(body["id"] for body in accepted)
    topology = Topology(settings)
    dead_letters = DeadLetters(nc.jetstream(), topology, await ledger_of(nc, settings))
    errors = {seqs[letter.stream_seq]: letter.error async for _, letter in dead_letters.entries()}
    assert "timezone" in errors["no offset"]
    assert "timezone" in errors["run_at no offset"]
    for name in ("400 digits", "2**64", "-2**63 - 1"):
        assert "does not fit in 64 bits" in errors[name], name
    schema = json.loads((Path(__file__).parents[2] / "schemas/job.schema.json").read_text())
    job = schema["$defs"]["Job"]["properties"]
    assert job["created_at"]["format"] == "date-time"
    assert "64 bits" in job["payload"]["description"]


async def test_item8_size_limits_are_published_and_match_the_deployment(
    nc: NATS, settings: Settings, repo_root: Path
) -> None:
    """The schema and docs/contract.md state the worker limit, the stream's and the server's.

    Each published default is the one a default deployment actually has.
    """
    schema = json.loads((repo_root / "schemas/job.schema.json").read_text())
    limits = schema["$defs"]["Job"]["x-jetjobs-limits"]
    defaults = Settings()
    assert limits["max_job_bytes"]["default"] == defaults.max_job_bytes
    topology = Topology(msgspec.structs.replace(settings, max_job_bytes=defaults.max_job_bytes))
    assert limits["stream_max_msg_size"]["default"] == topology.jobs_stream_config().max_msg_size
    assert limits["server_max_payload"]["default"] == nc.max_payload
    contract = (repo_root / "docs/contract.md").read_text()
    for limit in limits.values():
        assert f"{limit['default']:,}" in contract
    # The stream refuses what is over its max_msg_size, whatever the client.
    js = nc.jetstream()
    await Topology(settings).ensure_base(js)
    too_big = settings.max_job_bytes + 4096 + 1
    with pytest.raises(nats.js.errors.BadRequestError, match="message size exceeds maximum allowed"):
        await js.publish(Topology(settings).job_subject("default", "normal", "hard.count"), b"x" * too_big)
