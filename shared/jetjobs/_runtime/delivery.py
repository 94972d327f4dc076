"""A delivery on its way through the worker: the message, its job, and the ledger as last read.

The fetcher makes one `Delivery` per message as a burst arrives (decoding the envelope once) and
asks the ledger for the entries of the whole burst in one request (`Ledger.send_get_many`); the
executor then carries this one value from admission to ack, nak or term, instead of a message,
a job, an attempt and a revision passed separately.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from nats.aio.msg import Msg

from jetjobs._errors import InvalidJob
from jetjobs._joblog.ledger import Reads
from jetjobs._joblog.schedule import fired_job
from jetjobs._transport.pull import ack_reply
from jetjobs._wire.envelope import Job, decode_job


@dataclass(slots=True)
class Delivery:
    """One delivery of a message from a queue consumer.

    `job` is None when the message is not a job (`invalid` says why). `attempt` and `revision`
    are set by the admission: the execution number, and the ledger revision the outcome's
    compare-and-set names (of the `running` entry once `claimed`; before that, of the entry read).
    `claim` is the late claim in flight, started when the handler has run `claim_after` seconds.
    """

    msg: Msg
    seq: int  # the JOBS stream sequence of the message
    count: int  # JetStream's delivery count (1 for a first delivery)
    received_at: float  # Unix time, seconds
    stored_at: float = 0.0  # when the stream stored the message, Unix time, seconds
    consumer: str = ""  # the durable consumer that delivered it
    job: Job | None = None
    invalid: str = ""
    reads: Reads | None = None  # the burst's ledger entries, asked for when it arrived
    attempt: int = 0
    revision: int = 0
    claimed: bool = False
    claim: asyncio.Task[None] | None = None

    @classmethod
    def arrive(cls, msg: Msg, max_job_bytes: int) -> Delivery:
        """Decode and validate a message's envelope (size, JSON, schema); never raises."""
        fields = ack_reply(msg.reply or "")
        assert fields is not None, "a pull consumer hands on `$JS.ACK` deliveries only"
        delivery = cls(
            msg,
            fields.stream_seq,
            fields.delivered,
            time.time(),
            stored_at=fields.stored_ns / 1e9,
            consumer=fields.consumer,
        )
        try:
            if len(msg.data) > max_job_bytes:
                raise InvalidJob(f"job is {len(msg.data)} bytes; the limit is {max_job_bytes}")
            # A recurring schedule fires the same body each time: each firing gets its own job id.
            delivery.job = fired_job(decode_job(msg.data), msg.headers, delivery.seq)
        except InvalidJob as exc:
            delivery.invalid = str(exc)
        return delivery
