"""Death records: a worker's death written down for the leader, whoever saw it.

Any supervisor that sees a heartbeat expire writes `dead.<worker id>.<last beat>` to the heartbeat
bucket, holding that last beat. Every observer names the same key, and the write is made only if
the subject never had a message, so the first observer's write wins and a record the leader has
already claimed (deleted) is not written again by a slower observer (`KeyValue.create` would). A
record expires unclaimed after `ack_wait` + 60 s: by then JetStream has redelivered the dead
worker's jobs by itself. The leader's claim and recovery are jetjobs._liveness.supervisor's.
"""

from __future__ import annotations

import nats.js.errors
import structlog
from nats.js import JetStreamContext

from jetjobs._errors import WRONG_LAST_SEQUENCE_CODES, describe_error
from jetjobs._settings import Settings
from jetjobs._wire.envelope import ENCODER, WorkerBeat
from jetjobs._wire.headers import EXPECTED_LAST_SUBJECT_SEQUENCE

log = structlog.get_logger("jetjobs.supervisor")

DEATH_PREFIX = "dead."


async def record_death(js: JetStreamContext, bucket: str, settings: Settings, beat: WorkerBeat) -> None:
    """Record the death of `beat`'s worker in `bucket`, unless an observer already has.

    Never raises: a failed write is logged, and the dead worker's jobs come back after ack_wait.
    """
    key = f"{DEATH_PREFIX}{beat.id}.{round(beat.beat_at.timestamp() * 1e6)}"
    try:
        await js.publish(
            f"$KV.{bucket}.{key}",
            ENCODER.encode(beat),
            msg_ttl=int(settings.ack_wait) + 60,
            headers={EXPECTED_LAST_SUBJECT_SEQUENCE: "0"},
        )
    except nats.js.errors.APIError as exc:
        if exc.err_code not in WRONG_LAST_SEQUENCE_CODES:
            log.warning("supervisor.record_death_failed", worker=beat.id, error=describe_error(exc))
    except Exception as exc:  # disconnected: the dead worker's jobs come back after ack_wait
        log.warning("supervisor.record_death_failed", worker=beat.id, error=describe_error(exc))
