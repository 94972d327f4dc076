"""Names and provisioning of the JetStream objects jetjobs uses.

All names derive from `Settings.namespace`, so two namespaces never share anything:

| object            | name                                   | subjects                                   |
|-------------------|----------------------------------------|--------------------------------------------|
| jobs stream       | `<NS>_JOBS`                            | `<ns>.jobs.*.<priority>.>` (3 priorities)  |
| dead letters      | `<NS>_DLQ`                             | `<ns>.dlq.<job id>`                        |
| consumers         | `<ns>_<queue>_<priority>` on JOBS      | filter `<ns>.jobs.<queue>.<priority>.>`    |
| status ledger     | KV bucket `<ns>_status`                | key = job id                               |
| heartbeats        | KV bucket `<ns>_workers`               | keys `workers.<id>`, `leader` (per-key TTL)|
| large results     | object store `<ns>_results`            | key `<job id>.json` (data.transform)       |
| events            | core NATS (not stored)                 | `<ns>.events.<event>`                      |
| schedules         | messages in `<NS>_JOBS` (ADR-51)       | `<ns>.schedules.<name>`                    |
| delayed jobs      | messages in `<NS>_JOBS` (ADR-51)       | `<ns>.schedules.at.<job id>`               |
| control           | core NATS (not stored)                 | `<ns>.control.<action>` (e.g. `cancel`)    |

The stream takes only subjects that can be jobs: `<ns>.jobs.<queue>.<priority>.<type...>` with
one of the three priorities and a type. A publish to `<ns>.jobs.x`, `<ns>.jobs.default.normal`
(no type) or `<ns>.jobs.default.urgent.x` is refused by the server (no stream answers) instead
of being stored where no consumer will ever look. A queue no worker serves yet is a valid
subject: `jetjobs info` and the metrics report its messages (jetjobs._liveness.coverage).

Provisioning is idempotent: an object that exists with our configuration is reused; one that
exists with a different configuration raises TopologyConflict naming every difference.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import nats.js.errors
import structlog
from nats.js import JetStreamContext, api
from nats.js.kv import KeyValue
from nats.js.object_store import ObjectStore

from jetjobs._errors import TopologyConflict
from jetjobs._settings import Settings
from jetjobs._wire.envelope import PRIORITIES, Priority

log = structlog.get_logger("jetjobs.topology")

# Headers and subject ride along with the body; leave room for them under max_msg_size.
HEADER_ALLOWANCE = 4096


class Topology:
    """The names of every stream, consumer and bucket for one namespace, and their provisioning."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        ns = settings.namespace
        self.ns = ns
        self.jobs_stream = f"{ns.upper()}_JOBS"
        self.dlq_stream = f"{ns.upper()}_DLQ"
        self.status_bucket = f"{ns}_status"
        self.workers_bucket = f"{ns}_workers"
        self.results_bucket = f"{ns}_results"
        self._ensured_queues: set[str] = set()
        self._base_ready = False

    def job_subject(self, queue: str, priority: Priority, job_type: str) -> str:
        """The subject a job is published on. Any NATS client may publish here directly."""
        return f"{self.ns}.jobs.{queue}.{priority}.{job_type}"

    def jobs_subjects(self) -> list[str]:
        """The JOBS stream's job subjects: any queue, one of the priorities, at least one type token."""
        return [f"{self.ns}.jobs.*.{priority}.>" for priority in PRIORITIES]

    def queue_filter(self, queue: str, priority: Priority) -> str:
        """The filter subject of the consumer for one queue and priority."""
        return f"{self.ns}.jobs.{queue}.{priority}.>"

    def consumer_name(self, queue: str, priority: Priority) -> str:
        """The durable name of the consumer for one queue and priority."""
        return f"{self.ns}_{queue}_{priority}"

    def dlq_subject(self, job_id: str) -> str:
        """The subject of a job's dead-letter record."""
        return f"{self.ns}.dlq.{job_id}"

    def events_subject(self, event: str) -> str:
        """The subject of a platform event, e.g. `worker.died`."""
        return f"{self.ns}.events.{event}"

    def schedule_subject(self, name: str) -> str:
        """The subject holding a named schedule. The server needs it in the stream of its target."""
        return f"{self.ns}.schedules.{name}"

    def schedules_filter(self) -> str:
        """Every named schedule (one token after `schedules`; delayed jobs have two)."""
        return f"{self.ns}.schedules.*"

    def delayed_subject(self, job_id: str) -> str:
        """The subject holding one delayed job until its `run_at`."""
        return f"{self.ns}.schedules.at.{job_id}"

    def control_subject(self, action: str) -> str:
        """The core NATS subject every worker listens on for an operator action, e.g. `cancel`."""
        return f"{self.ns}.control.{action}"

    def _storage(self) -> api.StorageType:
        return api.StorageType.FILE if self.settings.storage == "file" else api.StorageType.MEMORY

    def jobs_stream_config(self) -> api.StreamConfig:
        """The JOBS stream: limits retention, so history survives acks (replay reads it).

        It also holds the schedules: the server fires a schedule only into its own stream, and
        a schedule message carries `Nats-TTL: never` (hence `allow_msg_ttl`) so that `max_age`
        does not silently delete it.
        """
        s = self.settings
        return api.StreamConfig(
            name=self.jobs_stream,
            description="jetjobs jobs (history kept after ack for replay)",
            subjects=[*self.jobs_subjects(), f"{self.ns}.schedules.>"],
            retention=api.RetentionPolicy.LIMITS,
            max_age=s.history_max_age,
            storage=self._storage(),
            num_replicas=s.replicas,
            duplicate_window=s.duplicate_window,
            max_msg_size=s.max_job_bytes + HEADER_ALLOWANCE,
            allow_msg_schedules=True,
            allow_msg_ttl=True,
        )

    def dlq_stream_config(self) -> api.StreamConfig:
        """The dead-letter stream: one message per dead job, deduplicated by job and delivery."""
        s = self.settings
        return api.StreamConfig(
            name=self.dlq_stream,
            description="jetjobs dead letters",
            subjects=[f"{self.ns}.dlq.>"],
            retention=api.RetentionPolicy.LIMITS,
            max_age=s.dlq_max_age,
            storage=self._storage(),
            num_replicas=s.replicas,
            duplicate_window=s.duplicate_window,
            max_msg_size=2 * (s.max_job_bytes + HEADER_ALLOWANCE) + 65536,
        )

    def consumer_config(self, queue: str, priority: Priority) -> api.ConsumerConfig:
        """A durable pull consumer; attempts are counted per job, so max_deliver is unlimited."""
        return api.ConsumerConfig(
            durable_name=self.consumer_name(queue, priority),
            description=f"jetjobs workers for queue {queue}, priority {priority}",
            deliver_policy=api.DeliverPolicy.ALL,
            ack_policy=api.AckPolicy.EXPLICIT,
            ack_wait=self.settings.ack_wait,
            max_deliver=-1,
            filter_subject=self.queue_filter(queue, priority),
            max_ack_pending=20_000,
            max_waiting=512,
            num_replicas=0,
        )

    async def ensure_base(self, js: JetStreamContext) -> None:
        """Create (or verify) the streams and buckets every process needs."""
        if self._base_ready:
            return
        await ensure_stream(js, self.jobs_stream_config())
        await ensure_stream(js, self.dlq_stream_config())
        await self.status_kv(js)
        self._base_ready = True

    async def ensure_queue(self, js: JetStreamContext, queue: str) -> None:
        """Create (or verify) the three priority consumers of a queue."""
        if queue in self._ensured_queues:
            return
        await self.ensure_base(js)
        for priority in PRIORITIES:
            await ensure_consumer(js, self.jobs_stream, self.consumer_config(queue, priority))
        self._ensured_queues.add(queue)

    async def status_kv(self, js: JetStreamContext) -> KeyValue:
        """The status ledger bucket, created with TTL `status_ttl` if missing."""
        s = self.settings
        config = api.KeyValueConfig(
            bucket=self.status_bucket,
            description="jetjobs job status ledger",
            history=1,
            ttl=s.status_ttl,
            storage=self._storage(),
            replicas=s.replicas,
            max_value_size=s.max_result_bytes + 4096,
            direct=True,
        )
        return await ensure_kv(js, config)

    async def workers_kv(self, js: JetStreamContext) -> KeyValue:
        """The heartbeat bucket: per-key TTL, and delete markers so that expiry is an event."""
        config = api.KeyValueConfig(
            bucket=self.workers_bucket,
            description="jetjobs worker heartbeats and supervisor leadership",
            history=1,
            storage=self._storage(),
            replicas=self.settings.replicas,
            limit_marker_ttl=60.0,
            direct=True,
        )
        return await ensure_kv(js, config)

    async def results_store(self, js: JetStreamContext) -> ObjectStore:
        """The object store for results too large for the ledger; they live as long as ledger entries."""
        s = self.settings
        config = api.ObjectStoreConfig(
            bucket=self.results_bucket,
            description="jetjobs job results too large for the status ledger",
            ttl=s.status_ttl,
            storage=self._storage(),
            replicas=s.replicas,
        )
        return await ensure_object_store(js, config)


_STREAM_FIELDS = (
    "subjects",
    "retention",
    "max_age",
    "storage",
    "num_replicas",
    "duplicate_window",
    "max_msg_size",
    "allow_msg_schedules",
    "allow_msg_ttl",
)
_CONSUMER_FIELDS = ("ack_policy", "ack_wait", "max_deliver", "filter_subject", "deliver_policy")
_KV_FIELDS = ("max_age", "max_msgs_per_subject", "storage", "num_replicas", "max_msg_size")


# Fields an older jetjobs created differently and that can change in place without losing or
# altering anything stored: more subjects (or `<ns>.jobs.>` narrowed to the subjects that can be
# jobs: what it stored stays stored), and features switched on (never off).
_ADDITIVE_STREAM_FIELDS = frozenset({"subjects", "allow_msg_schedules", "allow_msg_ttl"})


def _differing(ours: Any, theirs: Any, fields: tuple[str, ...]) -> dict[str, str]:
    """Field name → "field: expected X, found Y", for each field where `theirs` differs."""
    diffs = {}
    for field in fields:
        want, have = getattr(ours, field), getattr(theirs, field)
        if want is None or (isinstance(want, bool) and not want and not have):
            continue
        if isinstance(want, float) or isinstance(have, float):
            if abs(float(want) - float(have or 0)) < 1e-6:
                continue
        elif want == have:
            continue
        diffs[field] = f"{field}: expected {want!r}, found {have!r}"
    return diffs


def _differences(ours: Any, theirs: Any, fields: tuple[str, ...]) -> list[str]:
    return list(_differing(ours, theirs, fields).values())


def _additive(field: str, ours: api.StreamConfig, theirs: api.StreamConfig) -> bool:
    if field == "subjects":  # only ours missing from it: an older version of the same stream
        wanted = set(ours.subjects or [])
        legacy = {s.split(".jobs.")[0] + ".jobs.>" for s in wanted if ".jobs." in s}
        return set(theirs.subjects or []) <= wanted | legacy
    return field in _ADDITIVE_STREAM_FIELDS and bool(getattr(ours, field)) and not getattr(theirs, field)


async def ensure_stream(js: JetStreamContext, config: api.StreamConfig) -> api.StreamInfo:
    """Create the stream, or check that the existing one has the same configuration.

    A stream an older jetjobs created without a subject or feature this version adds (the
    schedules subject, per-message TTL, message schedules) or with the catch-all `<ns>.jobs.>`
    is updated in place: nothing stored changes. Any other difference is a conflict.

    Raises:
        TopologyConflict: the stream exists with a different configuration.
    """
    assert config.name is not None
    try:
        info = await js.stream_info(config.name)
    except nats.js.errors.NotFoundError:
        return await js.add_stream(config)
    diffs = _differing(config, info.config, _STREAM_FIELDS)
    if diffs and all(_additive(field, config, info.config) for field in diffs):
        have = info.config
        upgraded = dataclasses.replace(
            have,
            subjects=config.subjects,
            allow_msg_schedules=bool(have.allow_msg_schedules or config.allow_msg_schedules),
            allow_msg_ttl=bool(have.allow_msg_ttl or config.allow_msg_ttl),
        )
        info = await js.update_stream(upgraded)
        log.info("topology.upgraded", stream=config.name, changes=list(diffs.values()))
        return info
    if diffs:
        raise TopologyConflict(
            f"stream {config.name} exists with a different configuration: "
            + "; ".join(diffs.values())
            + ". Use another JETJOBS_NAMESPACE, or change the stream (nats stream edit) to match."
        )
    return info


async def ensure_consumer(js: JetStreamContext, stream: str, config: api.ConsumerConfig) -> None:
    """Create the durable consumer, or check that the existing one matches.

    Raises:
        TopologyConflict: the consumer exists with a different configuration.
    """
    assert config.durable_name is not None
    try:
        info = await js.consumer_info(stream, config.durable_name)
    except nats.js.errors.NotFoundError:
        await js.add_consumer(stream, config)
        return
    diffs = _differences(config, info.config, _CONSUMER_FIELDS)
    if diffs:
        raise TopologyConflict(
            f"consumer {config.durable_name} on {stream} exists with a different configuration: "
            + "; ".join(diffs)
            + ". Every worker and publisher of a namespace must share these settings."
        )


async def ensure_kv(js: JetStreamContext, config: api.KeyValueConfig) -> KeyValue:
    """Create the KV bucket, or check that the existing one matches.

    Raises:
        TopologyConflict: the bucket exists with a different configuration.
    """
    stream = f"KV_{config.bucket}"
    try:
        info = await js.stream_info(stream)
    except nats.js.errors.NotFoundError:
        return await js.create_key_value(config)
    wanted = api.StreamConfig(
        max_age=config.ttl,
        max_msgs_per_subject=config.history,
        storage=config.storage,
        num_replicas=config.replicas,
        max_msg_size=config.max_value_size,
    )
    diffs = _differences(wanted, info.config, _KV_FIELDS)
    if diffs:
        raise TopologyConflict(
            f"KV bucket {config.bucket} exists with a different configuration: " + "; ".join(diffs)
        )
    return await js.key_value(config.bucket)


async def ensure_object_store(js: JetStreamContext, config: api.ObjectStoreConfig) -> ObjectStore:
    """Create the object store, or check that the existing one matches.

    Raises:
        TopologyConflict: the bucket exists with a different configuration.
    """
    assert config.bucket is not None
    try:
        info = await js.stream_info(f"OBJ_{config.bucket}")
    except nats.js.errors.NotFoundError:
        return await js.create_object_store(config.bucket, config=config)
    wanted = api.StreamConfig(max_age=config.ttl, storage=config.storage, num_replicas=config.replicas)
    diffs = _differences(wanted, info.config, _KV_FIELDS)
    if diffs:
        raise TopologyConflict(
            f"object store {config.bucket} exists with a different configuration: " + "; ".join(diffs)
        )
    return await js.object_store(config.bucket)
