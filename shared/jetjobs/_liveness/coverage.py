"""Messages no worker will take: subjects no queue consumer covers, queues no live worker serves.

The JOBS stream refuses subjects that can never be jobs (jetjobs._transport.topology), but a well-shaped
subject of a queue nobody provisioned (`<ns>.jobs.reports.normal.x` before any worker or
publisher of `reports` ran) is stored and waits, and so do the jobs of a queue whose workers are
all gone. Neither is an error, both are invisible in consumer lag: `jetjobs info` and the
worker's metrics report them from here.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from nats.js import JetStreamContext
from nats.js.api import ConsumerInfo

from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import PRIORITIES, Priority

_PRIORITY: dict[str, Priority] = {p: p for p in PRIORITIES}


class Coverage(msgspec.Struct, kw_only=True, frozen=True):
    """What no worker will take as things stand."""

    uncovered: dict[str, int]
    """Subject → messages stored on it that no queue consumer filters (never delivered)."""
    queues: dict[str, int]
    """Queue → jobs waiting for delivery (all priorities), for every provisioned queue."""
    unserved: dict[str, int]
    """Queue → jobs waiting, for queues with waiting jobs and no live worker (when known)."""

    @property
    def uncovered_messages(self) -> int:
        """Messages on subjects no consumer covers, in all."""
        return sum(self.uncovered.values())


def queue_of_filter(topology: Topology, filter_subject: str) -> tuple[str, Priority] | None:
    """(queue, priority) of a queue consumer's filter `<ns>.jobs.<queue>.<priority>.>`, else None."""
    rest = filter_subject.removeprefix(f"{topology.ns}.jobs.")
    parts = rest.split(".")
    if rest == filter_subject or len(parts) != 3 or parts[2] != ">" or parts[1] not in _PRIORITY:
        return None
    return parts[0], _PRIORITY[parts[1]]


def queue_of_subject(topology: Topology, subject: str) -> tuple[str, Priority] | None:
    """(queue, priority) of a job subject `<ns>.jobs.<queue>.<priority>.<type...>`, else None."""
    rest = subject.removeprefix(f"{topology.ns}.jobs.")
    parts = rest.split(".", 2)
    if rest == subject or len(parts) != 3 or parts[1] not in _PRIORITY:
        return None
    return parts[0], _PRIORITY[parts[1]]


async def coverage(
    js: JetStreamContext,
    topology: Topology,
    live_queues: Iterable[str] | None = None,
    consumers: list[ConsumerInfo] | None = None,
) -> Coverage:
    """Count what no consumer covers and what no live worker serves.

    `live_queues`: the queues live workers serve (from heartbeats); None when unknown, then
    `unserved` is empty. Replay's temporary consumers are not queue consumers and cover nothing.
    Job subjects are one per queue, priority and type (not per job), so the server's per-subject
    counts fit in one answer (it pages past 100,000 subjects; only the first page is read).
    `consumers`: the JOBS stream's consumers, if the caller has just listed them.
    """
    covered: set[tuple[str, Priority]] = set()
    waiting: dict[str, int] = {}
    if consumers is None:
        consumers = await js.consumers_info(topology.jobs_stream)
    for consumer in consumers:
        pair = queue_of_filter(topology, consumer.config.filter_subject or "")
        if pair is None or consumer.name != topology.consumer_name(*pair):
            continue
        covered.add(pair)
        waiting[pair[0]] = waiting.get(pair[0], 0) + (consumer.num_pending or 0)
    info = await js.stream_info(topology.jobs_stream, subjects_filter=f"{topology.ns}.jobs.>")
    uncovered = {
        subject: count
        for subject, count in (info.state.subjects or {}).items()
        if queue_of_subject(topology, subject) not in covered
    }
    serving = set(live_queues) if live_queues is not None else None
    unserved = (
        {}
        if serving is None
        else {queue: count for queue, count in waiting.items() if count and queue not in serving}
    )
    return Coverage(uncovered=dict(sorted(uncovered.items())), queues=waiting, unserved=unserved)
