"""The headers on jetjobs' messages: JetStream's that jetjobs sets or reads, and its own.

Beside the envelope because they are part of the wire contract: a client in another language
sets `Nats-Msg-Id` to deduplicate, and the schedule headers to delay a job (docs/contract.md).
"""

# The prefix of every header the server reads or writes: a message copied into a new one (a
# requeue, a delayed job) drops these, so the copy is not mistaken for the original.
NATS_PREFIX = "Nats-"
# JetStream: deduplication within the stream's window (the idempotency key, else the job id).
MSG_ID = "Nats-Msg-Id"
# JetStream: compare-and-set publish (the ledger's and the supervisor's writes); "0": create.
EXPECTED_LAST_SUBJECT_SEQUENCE = "Nats-Expected-Last-Subject-Sequence"
# JetStream direct get: the stored message's sequence (a KV entry's revision).
SEQUENCE = "Nats-Sequence"
# The subject of a message a direct get returns.
SUBJECT = "Nats-Subject"
# JetStream: a per-message time to live (`"30s"`; heartbeats).
MESSAGE_TTL = "Nats-TTL"
# JetStream: the marker a server writes when a TTL'd key expires (a worker's heartbeat).
MARKER_REASON = "Nats-Marker-Reason"
# KV: a delete or purge marker (`DEL`, `PURGE`).
KV_OPERATION = "KV-Operation"

# Message schedules (ADR-51, nats-server 2.12+): `@at <time>`, `@every <duration>` or a cron
# expression; the subject the fired message is stored on; the scheduler's own answers.
SCHEDULE = "Nats-Schedule"
SCHEDULE_TARGET = "Nats-Schedule-Target"
SCHEDULER = "Nats-Scheduler"
SCHEDULE_NEXT = "Nats-Schedule-Next"
SCHEDULE_TIME_ZONE = "Nats-Schedule-Time-Zone"  # an IANA zone for cron/predefined patterns (2.14+)
# `Nats-Schedule-Next: purge`: a one-shot schedule removes itself once fired.
NEXT_PURGE = "purge"

# jetjobs: the revision of the job's `queued` ledger entry. Informational: anyone can send anything
# in a header, so a worker reads the entry before it claims and never takes this as an authority.
LEDGER_REVISION_HEADER = "Jetjobs-Ledger-Revision"
