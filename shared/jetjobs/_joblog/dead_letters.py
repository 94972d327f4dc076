"""The dead-letter stream: jobs that will not run again, why, and the means to run them again."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
import nats.js.errors
from nats.js import JetStreamContext

from jetjobs._joblog.ledger import Ledger, queued_record
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DEAD_LETTER_DECODER, ENCODER, JOB_DECODER, DeadLetter, body_digest
from jetjobs._wire.headers import MSG_ID, NATS_PREFIX


class DeadLetters:
    """Write, list, inspect, requeue and purge dead letters of one namespace."""

    def __init__(self, js: JetStreamContext, topology: Topology, ledger: Ledger) -> None:
        self.js = js
        self.topology = topology
        self.ledger = ledger

    async def put(self, record: DeadLetter) -> None:
        """Store a dead letter; a retry of the same delivery's record is deduplicated."""
        await self.js.publish(
            self.topology.dlq_subject(record.job_id),
            ENCODER.encode(record),
            headers={MSG_ID: f"dlq:{record.job_id}:{record.stream_seq}"},
        )

    async def entries(self) -> AsyncIterator[tuple[int, DeadLetter]]:
        """Every dead letter, oldest first, with its DLQ stream sequence."""
        stream = self.topology.dlq_stream
        seq = 0
        while True:
            try:
                msg = await self.js.get_msg(
                    stream, seq=seq + 1, next=True, subject=f"{self.topology.ns}.dlq.>"
                )
            except nats.js.errors.NotFoundError:
                return
            assert msg.seq is not None
            assert msg.data is not None
            seq = msg.seq
            yield seq, DEAD_LETTER_DECODER.decode(msg.data)

    async def show(self, job_id: str) -> tuple[int, DeadLetter] | None:
        """The latest dead letter of a job, or None."""
        try:
            msg = await self.js.get_last_msg(self.topology.dlq_stream, self.topology.dlq_subject(job_id))
        except nats.js.errors.NotFoundError:
            return None
        assert msg.seq is not None
        assert msg.data is not None
        return msg.seq, DEAD_LETTER_DECODER.decode(msg.data)

    async def requeue(self, seq: int, record: DeadLetter) -> None:
        """Publish the original job again (attempts start over) and remove the dead letter.

        The ledger entry is reset to `queued` first, so the worker does not skip the job as dead.
        """
        try:
            job = JOB_DECODER.decode(record.original)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            job = None
        data = record.original
        if job is not None and job.id != record.job_id:
            # A recurring schedule's firing: its id came from the delivery (jetjobs._joblog.schedule).
            job = msgspec.structs.replace(job, id=record.job_id)
            data = ENCODER.encode(job)
        if job is not None:
            await self.ledger.put(queued_record(job, body_digest(data)))
        headers = {k: v for k, v in record.original_headers.items() if not k.startswith(NATS_PREFIX)}
        headers[MSG_ID] = f"requeue:{record.job_id}:{seq}"
        await self.js.publish(record.original_subject, data, headers=headers)
        await self.js.delete_msg(self.topology.dlq_stream, seq)

    async def requeue_all(self, job_type: str | None = None) -> int:
        """Requeue every dead letter (of `job_type`, if given); returns how many."""
        targets = [(seq, r) async for seq, r in self.entries() if not job_type or r.type == job_type]
        for seq, record in targets:
            await self.requeue(seq, record)
        return len(targets)

    async def purge(self) -> int:
        """Delete every dead letter; return how many there were."""
        info = await self.js.stream_info(self.topology.dlq_stream)
        count = info.state.messages
        await self.js.purge_stream(self.topology.dlq_stream)
        return count
