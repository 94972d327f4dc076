"""Provisioning against a real nats-server: idempotent, and loud about conflicting objects."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest
from nats.aio.client import Client as NATS
from nats.js import api

from jetjobs import Settings, TopologyConflict
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import PRIORITIES

pytestmark = [pytest.mark.integration]


async def test_provisioning_twice_is_idempotent(nc: NATS, settings: Settings) -> None:
    """ensure_base/ensure_queue succeed again, in the same and in a new Topology, changing nothing."""
    js = nc.jetstream()
    first = Topology(settings)
    await first.ensure_base(js)
    await first.ensure_queue(js, "default")
    await first.ensure_base(js)
    await first.ensure_queue(js, "default")
    jobs_before = await js.stream_info(first.jobs_stream)

    # A second process (a fresh Topology, nothing cached) verifies the existing objects.
    second = Topology(settings)
    await second.ensure_base(js)
    await second.ensure_queue(js, "default")
    await second.ensure_queue(js, "reports")

    jobs_after = await js.stream_info(second.jobs_stream)
    assert jobs_after.config == jobs_before.config
    assert jobs_after.created == jobs_before.created
    await js.stream_info(second.dlq_stream)
    await js.stream_info(f"KV_{second.status_bucket}")
    for queue in ("default", "reports"):
        for priority in PRIORITIES:
            info = await js.consumer_info(second.jobs_stream, second.consumer_name(queue, priority))
            assert info.config.filter_subject == f"{settings.namespace}.jobs.{queue}.{priority}.>"
            assert info.config.ack_wait == pytest.approx(settings.ack_wait)


async def test_existing_stream_with_other_description_is_reused(nc: NATS, settings: Settings) -> None:
    """Fields outside the contract (the description) may differ: the stream is reused as it is."""
    js = nc.jetstream()
    topology = Topology(settings)
    config = dataclasses.replace(topology.jobs_stream_config(), description="made by hand")
    await js.add_stream(config)
    await topology.ensure_base(js)
    info = await js.stream_info(topology.jobs_stream)
    assert info.config.description == "made by hand"


async def test_stream_with_different_max_age_conflicts(nc: NATS, settings: Settings) -> None:
    """A JOBS stream made beforehand with another max_age raises TopologyConflict naming max_age."""
    js = nc.jetstream()
    topology = Topology(settings)
    await js.add_stream(dataclasses.replace(topology.jobs_stream_config(), max_age=3600.0))
    with pytest.raises(TopologyConflict) as caught:
        await topology.ensure_base(js)
    message = str(caught.value)
    assert message.startswith(f"stream {topology.jobs_stream} exists with a different configuration")
    assert f"max_age: expected {settings.history_max_age!r}, found 3600.0" in message
    assert "subjects" not in message  # only what differs is named
    assert "JETJOBS_NAMESPACE" in message  # and how to get out of it


async def test_stream_with_different_subjects_conflicts(nc: NATS, settings: Settings) -> None:
    """A stream of our name that listens elsewhere raises TopologyConflict naming subjects."""
    js = nc.jetstream()
    topology = Topology(settings)
    await js.add_stream(
        api.StreamConfig(
            name=topology.jobs_stream,
            subjects=[f"{settings.namespace}.legacy.>"],
            storage=api.StorageType.MEMORY,
        )
    )
    with pytest.raises(TopologyConflict) as caught:
        await topology.ensure_base(js)
    message = str(caught.value)
    ns = settings.namespace
    wanted = [f"{ns}.jobs.*.high.>", f"{ns}.jobs.*.normal.>", f"{ns}.jobs.*.low.>", f"{ns}.schedules.>"]
    assert f"subjects: expected {wanted!r}, found ['{ns}.legacy.>']" in message
    # Every difference is listed at once, not one per attempt.
    assert "max_age" in message
    assert "max_msg_size" in message


async def test_consumer_with_different_ack_wait_conflicts(nc: NATS, settings: Settings) -> None:
    """A queue consumer made with another ack_wait raises TopologyConflict naming ack_wait."""
    js = nc.jetstream()
    await Topology(settings).ensure_queue(js, "default")
    other = Topology(msgspec.structs.replace(settings, ack_wait=30.0))
    with pytest.raises(TopologyConflict) as caught:
        await other.ensure_queue(js, "default")
    message = str(caught.value)
    name = other.consumer_name("default", "high")
    assert message.startswith(f"consumer {name} on {other.jobs_stream} exists with a different configuration")
    assert "ack_wait: expected 30.0, found 2.0" in message
    assert "filter_subject" not in message


async def test_consumer_made_by_hand_conflicts(nc: NATS, settings: Settings) -> None:
    """A consumer created beforehand with our durable name but another ack_wait is not reused."""
    js = nc.jetstream()
    topology = Topology(settings)
    await topology.ensure_base(js)
    await js.add_consumer(
        topology.jobs_stream,
        dataclasses.replace(topology.consumer_config("default", "normal"), ack_wait=45.0),
    )
    with pytest.raises(TopologyConflict, match=r"ack_wait: expected 2\.0, found 45\.0"):
        await topology.ensure_queue(js, "default")


async def test_status_bucket_with_different_ttl_conflicts(nc: NATS, settings: Settings) -> None:
    """A status bucket made beforehand with another TTL raises TopologyConflict naming max_age."""
    js = nc.jetstream()
    topology = Topology(settings)
    await js.create_key_value(
        api.KeyValueConfig(bucket=topology.status_bucket, ttl=60.0, storage=api.StorageType.MEMORY)
    )
    with pytest.raises(TopologyConflict) as caught:
        await topology.ensure_base(js)
    message = str(caught.value)
    assert message.startswith(f"KV bucket {topology.status_bucket} exists with a different configuration")
    assert f"max_age: expected {settings.status_ttl!r}, found 60.0" in message


async def test_a_jobs_stream_from_an_older_jetjobs_is_upgraded_in_place(nc: NATS, settings: Settings) -> None:
    """A JOBS stream without the schedules subject, TTL and schedules gains them, keeping its jobs.

    Its catch-all `<ns>.jobs.>` is narrowed to the subjects that can be jobs; what it stored stays.
    """
    js = nc.jetstream()
    topology = Topology(settings)
    wanted = topology.jobs_stream_config()
    old = dataclasses.replace(
        wanted,
        subjects=[f"{settings.namespace}.jobs.>"],
        allow_msg_schedules=False,
        allow_msg_ttl=False,
    )
    await js.add_stream(old)
    await js.publish(topology.job_subject("default", "normal", "t"), b"kept")

    await topology.ensure_base(js)
    info = await js.stream_info(topology.jobs_stream)
    assert info.config.subjects == wanted.subjects
    assert info.config.allow_msg_ttl
    assert info.config.allow_msg_schedules
    assert info.state.messages == 1
    # The upgraded stream now matches: a fresh Topology verifies it without changing anything.
    await Topology(settings).ensure_base(js)


async def test_a_difference_that_is_not_additive_still_conflicts(nc: NATS, settings: Settings) -> None:
    """A missing subject alongside another retention is not upgraded: the conflict names both."""
    js = nc.jetstream()
    topology = Topology(settings)
    old = dataclasses.replace(
        topology.jobs_stream_config(),
        subjects=[f"{settings.namespace}.jobs.>"],
        retention=api.RetentionPolicy.WORK_QUEUE,
    )
    await js.add_stream(old)
    with pytest.raises(TopologyConflict, match="retention") as raised:
        await topology.ensure_base(js)
    assert "subjects" in str(raised.value)
    info = await js.stream_info(topology.jobs_stream)
    assert info.config.subjects == [f"{settings.namespace}.jobs.>"]


async def test_a_stream_of_our_name_listening_elsewhere_is_not_merged(nc: NATS, settings: Settings) -> None:
    """Subjects are only ever added to an older version of our stream, never merged into another."""
    js = nc.jetstream()
    topology = Topology(settings)
    other = dataclasses.replace(topology.jobs_stream_config(), subjects=[f"{settings.namespace}.legacy.>"])
    await js.add_stream(other)
    with pytest.raises(TopologyConflict, match="subjects"):
        await topology.ensure_base(js)
    assert (await js.stream_info(topology.jobs_stream)).config.subjects == [f"{settings.namespace}.legacy.>"]
