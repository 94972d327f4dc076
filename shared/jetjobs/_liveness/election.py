"""The supervisors' election: which one of them acts on deaths.

One key of the heartbeat bucket, `leader`, holds the id of the supervisor that leads. It is taken
only when vacant (absent, deleted, or expired: the server's delete marker), then renewed every
heartbeat interval by compare-and-set on its last revision, and expires with the heartbeat TTL, so
a leader that dies or hangs is replaced within a TTL. The supervisor (jetjobs._liveness.supervisor)
campaigns with these; `current_leader` is what `jetjobs workers` and the demo read.
"""

from __future__ import annotations

import nats.js.errors
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext

from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.headers import EXPECTED_LAST_SUBJECT_SEQUENCE, KV_OPERATION, MARKER_REASON

LEADER_KEY = "leader"


async def vacant_revision(js: JetStreamContext, bucket: str) -> int | None:
    """The leader key's revision if nobody holds it (absent, deleted, expired), else None."""
    try:
        msg = await js.get_last_msg(f"KV_{bucket}", f"$KV.{bucket}.{LEADER_KEY}")
    except nats.js.errors.NotFoundError:
        return 0
    headers = msg.headers or {}
    if headers.get(KV_OPERATION) in ("DEL", "PURGE") or MARKER_REASON in headers:
        return msg.seq
    return None


async def hold_leader(
    js: JetStreamContext, bucket: str, supervisor_id: str, *, revision: int, ttl: int
) -> int:
    """Write `supervisor_id` to the leader key if its last revision is still `revision` (taking a
    vacant key, or renewing one's own), expiring after `ttl` seconds; the key's new revision.

    Raises:
        nats.js.errors.APIError: the compare-and-set was lost (another supervisor wrote the key).
        Exception: what the publish raises when the connection is lost.
    """
    ack = await js.publish(
        f"$KV.{bucket}.{LEADER_KEY}",
        supervisor_id.encode(),
        msg_ttl=ttl,
        headers={EXPECTED_LAST_SUBJECT_SEQUENCE: str(revision)},
    )
    return ack.seq


async def current_leader(nc: NATS, settings: Settings) -> str | None:
    """The id of the supervisor holding the leader key now (a worker's id, or a standalone one)."""
    topology = Topology(settings)
    kv = await topology.workers_kv(nc.jetstream())
    try:
        entry = await kv.get(LEADER_KEY)
    except nats.js.errors.KeyNotFoundError:
        return None
    return entry.value.decode() if entry.value else None
