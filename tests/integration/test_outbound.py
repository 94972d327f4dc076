"""Outbound and the batch ledger read against a real server: what the worker's hot path sends
below nats-py must arrive exactly as nats-py would have sent it."""

from __future__ import annotations

import anyio
import nats.errors
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs import Settings
from jetjobs._joblog.ledger import Ledger, queued_record, transition
from jetjobs._transport.outbound import Outbound
from jetjobs._transport.pull import PullConsumer
from jetjobs._transport.requests import Requester
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import Job, utcnow

pytestmark = pytest.mark.integration


async def test_messages_arrive_with_payload_reply_and_headers(nc: NATS) -> None:
    """A message without headers, one with a reply, and one with headers (a line break in a value
    becomes a space, as nats-py sends it) all arrive as they were published."""
    got: list[Msg] = []
    arrived = anyio.Event()

    async def on_msg(msg: Msg) -> None:
        got.append(msg)
        if len(got) == 3:
            arrived.set()

    sub = await nc.subscribe("outbound.test.>", cb=on_msg)
    await nc.flush()
    outbound = Outbound(nc)
    outbound.publish("outbound.test.plain", b"one")
    outbound.publish("outbound.test.reply", b"two", reply="outbound.reply.x")
    outbound.publish("outbound.test.headers", b"", headers={"Nats-Msg-Id": "a\r\nb", "X-Empty": ""})
    with anyio.fail_after(5):
        await arrived.wait()
    await sub.unsubscribe()
    by_subject = {msg.subject: msg for msg in got}
    assert by_subject["outbound.test.plain"].data == b"one"
    assert by_subject["outbound.test.reply"].reply == "outbound.reply.x"
    assert by_subject["outbound.test.headers"].headers == {"Nats-Msg-Id": "a  b", "X-Empty": ""}


async def test_a_subject_with_whitespace_or_a_bad_header_key_is_refused(nc: NATS) -> None:
    """Whitespace in a subject or reply (it would let the rest pass as protocol commands) and a
    header key that is not a token raise, and nothing is queued."""
    outbound = Outbound(nc)
    before = nc.stats["out_msgs"]
    with pytest.raises(nats.errors.BadSubjectError):
        outbound.publish("a b\r\nPUB x 0", b"")
    with pytest.raises(nats.errors.BadSubjectError):
        outbound.publish("ok", b"", reply="r\r\n")
    with pytest.raises(nats.errors.BadHeaderError):
        outbound.publish("ok", b"", headers={"bad key": "v"})
    assert nc.stats["out_msgs"] == before


async def test_ack_settles_the_delivery(nc: NATS, settings: Settings) -> None:
    """`Outbound.ack` acknowledges a JetStream delivery: once a later delivery's synchronous ack
    is answered (the server applies a consumer's acks in order), nothing is pending."""
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_queue(js, "default")
    for body in (b"x", b"y"):
        await js.publish(topology.job_subject("default", "normal", "t"), body)
    durable = topology.consumer_name("default", "normal")
    consumer = PullConsumer(nc, stream=topology.jobs_stream, durable=durable)
    await consumer.start()
    request = await consumer.pull(2, expires=5)
    got: list[Msg] = []
    with anyio.fail_after(10):
        while len(got) < 2:
            got += await request.next_burst()
    first, second = got
    Outbound(nc).ack(first)
    await second.ack_sync()
    info = await js.consumer_info(topology.jobs_stream, durable)
    assert (info.num_ack_pending, info.ack_floor.stream_seq) == (0, second.metadata.sequence.stream)
    await consumer.close()


async def test_batch_read_answers_every_job_of_the_burst(nc: NATS, settings: Settings) -> None:
    """One batch read returns each job's record and revision as a single read would, `(None, 0)`
    for a job without an entry, and a deleted entry as no record."""
    topology = Topology(settings)
    js = nc.jetstream()
    ledger = Ledger(await topology.status_kv(js), requester=Requester(nc), bucket=topology.status_bucket)
    jobs = [Job(id=f"j{i}", type="t", created_at=utcnow()) for i in range(4)]
    revisions = [await ledger.write(queued_record(job), 0) for job in jobs[:3]]
    assert revisions[1] is not None
    await ledger.write(transition(jobs[1], "running", attempt=1, worker="w", delivery=1), revisions[1])
    assert revisions[2] is not None
    await ledger.discard(jobs[2].id, revisions[2])
    reads = await ledger.send_get_many([job.id for job in jobs])
    for job in jobs:
        assert await reads.entry(job.id) == await ledger.get(job.id)
    record, revision = await ledger.get(jobs[1].id)
    assert record is not None
    assert (record.state, revision > 0) == ("running", True)
    assert await reads.entry(jobs[3].id) == (None, 0)
    assert (await reads.entry(jobs[2].id) or (1, 0))[0] is None


async def test_a_refused_batch_read_leaves_each_claim_to_read_alone(nc: NATS, settings: Settings) -> None:
    """A batch read of a bucket that does not exist (no stream answers) gives None, not an
    answer that would say `no entry`: each claim then reads its own entry."""
    ledger = Ledger(
        await Topology(settings).status_kv(nc.jetstream()), requester=Requester(nc), bucket="no-such-bucket"
    )
    reads = await ledger.send_get_many(["a", "b"])
    with anyio.fail_after(10):
        assert await reads.entry("a") is None
        assert await reads.entry("b") is None
