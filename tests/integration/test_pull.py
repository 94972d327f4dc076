"""PullConsumer against a real server: bursts as deliveries arrive, and every way a request ends."""

from __future__ import annotations

import anyio
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs import Settings
from jetjobs._transport.pull import PullConsumer
from jetjobs._transport.topology import Topology

pytestmark = [pytest.mark.integration]


async def provisioned(nc: NATS, settings: Settings) -> tuple[Topology, PullConsumer]:
    topology = Topology(settings)
    await topology.ensure_queue(nc.jetstream(), "default")
    consumer = PullConsumer(
        nc, stream=topology.jobs_stream, durable=topology.consumer_name("default", "normal")
    )
    await consumer.start()
    return topology, consumer


async def publish(nc: NATS, topology: Topology, count: int) -> None:
    js = nc.jetstream()
    for i in range(count):
        await js.publish(topology.job_subject("default", "normal", "t"), f"m{i}".encode())


async def test_a_request_is_filled_in_bursts_and_ends_when_full(nc: NATS, settings: Settings) -> None:
    """A backlog of 10 and a request for 4: exactly 4 deliveries, in order, and the request ends `filled`."""
    topology, consumer = await provisioned(nc, settings)
    await publish(nc, topology, 10)
    request = await consumer.pull(4, expires=5)
    got: list[Msg] = []
    with anyio.fail_after(10):
        while burst := await request.next_burst():
            got.extend(burst)
    assert [m.data for m in got] == [b"m0", b"m1", b"m2", b"m3"]
    assert request.ended == "filled"
    for msg in got:
        await msg.ack()
    rest = await consumer.pull(100, expires=0.5)
    more: list[Msg] = []
    with anyio.fail_after(10):
        while burst := await rest.next_burst():
            more.extend(burst)
    assert [m.data for m in more] == [f"m{i}".encode() for i in range(4, 10)]
    assert rest.ended.startswith("408")  # asked for 100, got 6, then the request expired
    await consumer.close()


async def test_a_delivery_is_handed_on_while_the_request_stays_open(nc: NATS, settings: Settings) -> None:
    """A job published to an idle consumer arrives as a burst of one; the request stays open for more."""
    topology, consumer = await provisioned(nc, settings)
    request = await consumer.pull(8, expires=5)
    with anyio.fail_after(10):
        await nc.flush()
        await publish(nc, topology, 1)
        burst = await request.next_burst()
    assert [m.data for m in burst] == [b"m0"]
    assert request.ended == ""
    assert request.remaining == 7
    await burst[0].ack()
    durable = topology.consumer_name("default", "normal")
    info = await nc.jetstream().consumer_info(topology.jobs_stream, durable)
    assert info.num_waiting == 1  # the same request, still waiting for 7 more
    await consumer.close()


async def test_an_idle_request_ends_with_the_servers_408(nc: NATS, settings: Settings) -> None:
    """Nothing to deliver: the request ends when the server expires it, not at the client's margin."""
    _, consumer = await provisioned(nc, settings)
    request = await consumer.pull(8, expires=0.2)
    with anyio.fail_after(10):
        assert await request.next_burst() == []
    assert request.ended.startswith("408")
    await consumer.close()


async def test_a_request_to_a_missing_consumer_ends_with_no_responders(nc: NATS, settings: Settings) -> None:
    """A deleted consumer does not hang the fetcher: the request ends with status 503."""
    topology, _ = await provisioned(nc, settings)
    consumer = PullConsumer(nc, stream=topology.jobs_stream, durable="no-such-consumer")
    await consumer.start()
    request = await consumer.pull(8, expires=5)
    with anyio.fail_after(10):
        assert await request.next_burst() == []
    assert request.ended.startswith("503")
    await consumer.close()


async def test_an_unanswered_request_ends_as_lost_after_its_margin(nc: NATS, settings: Settings) -> None:
    """A request nobody answers (lost with a connection) ends after expires + margin, as `lost`."""
    silent = await nc.subscribe("$JS.API.CONSUMER.MSG.NEXT.SILENT.nobody")  # takes it, never answers
    consumer = PullConsumer(nc, stream="SILENT", durable="nobody", margin=0.1)
    await consumer.start()
    request = await consumer.pull(8, expires=0.1)
    with anyio.fail_after(10):
        assert await request.next_burst() == []
    assert request.ended == "lost"
    await silent.unsubscribe()
    await consumer.close()


async def test_late_deliveries_are_kept_for_the_next_request(nc: NATS, settings: Settings) -> None:
    """Deliveries of a request the client already gave up on are not dropped: take() returns them."""
    topology, consumer = await provisioned(nc, settings)
    request = await consumer.pull(5, expires=5)
    request.ended = "abandoned"  # the fetcher stopped reading this request
    await publish(nc, topology, 2)
    got: list[Msg] = []
    with anyio.fail_after(10):
        while len(got) < 2:
            assert await consumer.wait(5)
            got.extend(consumer.take())
    assert [m.data for m in got] == [b"m0", b"m1"]
    await consumer.close()


async def test_a_request_ends_when_the_connection_was_re_established(nc: NATS, settings: Settings) -> None:
    """After a reconnect the server has forgotten the request: it ends long before its deadline."""
    _, consumer = await provisioned(nc, settings)
    request = await consumer.pull(8, expires=60)
    nc.stats["reconnects"] += 1  # what nats-py counts once a reconnect's CONNECT went through
    with anyio.fail_after(10):  # the deadline is 61 s away
        assert await request.next_burst() == []
    assert request.ended == "reconnected"
    await consumer.close()
