"""Malformed messages from any publisher: dead-lettered once as `invalid`, the worker unharmed."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, DeadLetter, JobContext, Publisher, Settings
from jetjobs._errors import InvalidJob
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import decode_job, new_job_id
from tests.support import running_worker

pytestmark = [pytest.mark.integration]


class Order(msgspec.Struct):
    """The payload schema of `inv.order` jobs."""

    sku: str
    quantity: Annotated[int, msgspec.Meta(ge=1)]


def order_app(ran: list[str]) -> App:
    """An app with one handler, `inv.order`, whose payload must be an Order."""
    app = App("invalid-tests", builtins=False)

    @app.job("inv.order", payload=Order)
    async def order(ctx: JobContext, payload: Order) -> int:
        ran.append(ctx.id)
        return payload.quantity

    return app


@dataclass(frozen=True)
class BadMessage:
    """A message no worker can run, and what its dead letter's error must say."""

    name: str
    data: bytes
    error: str
    # The subject's type token; a well-formed envelope is published where its fields say.
    subject_type: str = "inv.order"
    # Refused before decoding (over max_job_bytes), so never known by its id.
    oversized: bool = False

    @property
    def job_id(self) -> str | None:
        """The envelope's id when it decodes: such a job is dead-lettered under its own id."""
        if self.oversized:
            return None
        try:
            return decode_job(self.data).id
        except InvalidJob:
            return None


def envelope(**fields: Any) -> bytes:
    """A valid `inv.order` envelope with `fields` replaced (a value of ... removes the field)."""
    body: dict[str, Any] = {
        "id": new_job_id(),
        "type": "inv.order",
        "payload": {"sku": "A-1", "quantity": 2},
        "created_at": "2026-01-02T03:04:05Z",
        **fields,
    }
    return msgspec.json.encode({k: v for k, v in body.items() if v is not ...})


def oversized(size: int) -> bytes:
    """A well-formed envelope of exactly `size` bytes (padded in the payload)."""
    short = envelope(payload={"sku": "A-1", "quantity": 2, "note": ""})
    data = envelope(payload={"sku": "A-1", "quantity": 2, "note": "x" * (size - len(short))})
    assert len(data) == size
    return data


def bad_messages(settings: Settings) -> list[BadMessage]:
    """One message of every kind of wrong a raw publisher can send."""
    valid = envelope()
    depth = 100_000
    tree = b"[" * depth + b"]" * depth
    deep = envelope(payload={"sku": "A-1", "quantity": 2, "tree": None}).replace(
        b'"tree":null', b'"tree":' + tree
    )
    assert tree in deep
    too_big = settings.max_job_bytes + 100
    return [
        BadMessage(
            "truncated JSON", valid[: len(valid) // 2], "job is not valid JSON: Input data was truncated"
        ),
        BadMessage("empty body", b"", "job is not valid JSON: Input data was truncated"),
        BadMessage("not JSON", b"please send the monthly report", "job is not valid JSON: JSON is malformed"),
        BadMessage(
            "invalid UTF-8",
            valid.replace(b'"A-1"', b'"A-\xff\xfe"'),
            "job is not valid JSON: Invalid UTF-8 encoded string",
        ),
        BadMessage("JSON array", b"[" + valid + b"]", "Expected `object`, got `array`"),
        BadMessage("JSON null", b"null", "Expected `object`, got `null`"),
        BadMessage("nested 100000 levels", deep, "job JSON is nested too deeply"),
        BadMessage(
            "huge max_attempts", envelope(max_attempts=10**30), "Expected `int` <= 1000 - at `$.max_attempts`"
        ),
        BadMessage(
            "float max_attempts",
            envelope(max_attempts=2.5),
            "Expected `int`, got `float` - at `$.max_attempts`",
        ),
        BadMessage("no id", envelope(id=...), "Object missing required field `id`"),
        BadMessage("no created_at", envelope(created_at=...), "Object missing required field `created_at`"),
        BadMessage("created_at not a time", envelope(created_at="yesterday"), "- at `$.created_at`"),
        BadMessage(
            "priority urgent", envelope(priority="urgent"), "Invalid enum value 'urgent' - at `$.priority`"
        ),
        BadMessage(
            "unknown job type",
            envelope(type="inv.nobody"),
            "unknown job type 'inv.nobody'; this worker handles ['inv.order']",
            subject_type="inv.nobody",
        ),
        BadMessage(
            "subject does not match the envelope",
            envelope(),
            "published on ",
            subject_type="inv.other",
        ),
        BadMessage(
            "payload out of range",
            envelope(payload={"sku": "A-1", "quantity": 0}),
            "payload of inv.order does not match its schema: Expected `int` >= 1 - at `$.quantity`",
        ),
        BadMessage(
            "payload missing a field",
            envelope(payload={"quantity": 1}),
            "payload of inv.order does not match its schema: Object missing required field `sku`",
        ),
        BadMessage("id with illegal characters", envelope(id="../etc/passwd"), "- at `$.id`"),
        BadMessage(
            "over max_job_bytes",
            oversized(too_big),
            f"job is {too_big} bytes; the limit is {settings.max_job_bytes}",
            oversized=True,
        ),
    ]


async def test_bad_messages_are_dead_lettered_once_and_the_worker_survives(
    nc: NATS, settings: Settings
) -> None:
    """Every kind of bad message ends as one `invalid` dead letter with a readable error.

    None is redelivered, no handler runs for any of them, and a valid job submitted after them
    all still succeeds on the same worker.
    """
    js = nc.jetstream()
    topology = Topology(settings)
    await topology.ensure_queue(js, "default")
    corpus = bad_messages(settings)
    assert len(corpus) >= 12
    by_seq: dict[int, BadMessage] = {}
    for case in corpus:
        msg_id = f"bad-{uuid.uuid4().hex}"
        subject = topology.job_subject("default", "normal", case.subject_type)
        ack = await js.publish(subject, case.data, headers={"Nats-Msg-Id": msg_id})
        assert not ack.duplicate
        by_seq[ack.seq] = case

    ran: list[str] = []
    async with running_worker(order_app(ran), nc, settings) as (worker, outcomes):
        await outcomes.wait(lambda: outcomes.count("invalid") + outcomes.count("dead") >= len(corpus))
        good = await Publisher(nc, settings).enqueue("inv.order", {"sku": "B-2", "quantity": 3})
        await outcomes.wait_for(good.id, "succeeded")
        assert worker.executor is not None
        counts = dict(worker.executor.counts)

    assert ran == [good.id]
    assert counts == {"invalid": len(corpus), "succeeded": 1}
    # A message that is not a job is reported under its stream sequence; a well-formed job that
    # cannot run (type, payload, subject) under its own id.
    assert dict(outcomes.by_job) == {
        **{case.job_id or f"invalid-{seq}": ["invalid"] for seq, case in by_seq.items()},
        good.id: ["succeeded"],
    }

    ledger = Ledger(await topology.status_kv(js))
    dead_letters = DeadLetters(js, topology, ledger)
    letters: list[DeadLetter] = [letter async for _, letter in dead_letters.entries()]
    assert len(letters) == len(corpus)
    assert sorted(letter.stream_seq for letter in letters) == sorted(by_seq)
    for letter in letters:
        case = by_seq[letter.stream_seq]
        assert letter.reason == "invalid", case.name
        assert case.error in letter.error, case.name
        # Readable: one short line that says why, never the message itself.
        assert "\n" not in letter.error, case.name
        assert len(letter.error) < 200, case.name
        if case.job_id is None:
            assert letter.job_id == f"invalid-{letter.stream_seq}", case.name
            assert (letter.type, letter.queue) == (None, None), case.name
        else:
            assert letter.job_id == case.job_id, case.name
            record, _ = await ledger.get(case.job_id)
            assert record is not None, case.name
            assert (record.state, record.dead_reason) == ("dead", "invalid"), case.name
        assert letter.attempts == 1, case.name
        assert letter.worker == worker.id, case.name
        assert letter.original == case.data, case.name
        assert letter.original_subject == topology.job_subject("default", "normal", case.subject_type)
        assert letter.original_headers["Nats-Msg-Id"].startswith("bad-"), case.name

    info = await js.consumer_info(topology.jobs_stream, topology.consumer_name("default", "normal"))
    assert info.num_redelivered == 0
    assert info.num_ack_pending == 0
    assert info.num_pending == 0


async def test_unknown_type_runs_after_its_handler_is_deployed_and_requeued(
    nc: NATS, settings: Settings
) -> None:
    """A job of a type no worker knew is dead-lettered `invalid`; requeued later, it runs once."""
    js = nc.jetstream()
    topology = Topology(settings)
    await topology.ensure_queue(js, "default")
    data = envelope(type="inv.refund", payload={"sku": "C-3", "quantity": 1})
    job_id = msgspec.json.decode(data)["id"]
    await js.publish(
        topology.job_subject("default", "normal", "inv.refund"), data, headers={"Nats-Msg-Id": job_id}
    )

    async with running_worker(order_app([]), nc, settings) as (_, outcomes):
        await outcomes.wait(lambda: outcomes.count("invalid") == 1)
    dead_letters = DeadLetters(js, topology, Ledger(await topology.status_kv(js)))
    [(seq, letter)] = [entry async for entry in dead_letters.entries()]
    assert letter.error.startswith("unknown job type 'inv.refund'")

    refunded: list[str] = []
    app = order_app([])

    @app.job("inv.refund", payload=Order)
    async def refund(ctx: JobContext, payload: Order) -> str:
        refunded.append(ctx.id)
        return payload.sku

    async with running_worker(app, nc, settings) as (_, outcomes):
        await dead_letters.requeue(seq, letter)
        await outcomes.wait_for(job_id, "succeeded")
    assert refunded == [job_id]
    assert [entry async for entry in dead_letters.entries()] == []
