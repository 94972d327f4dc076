"""The operations page's index of the dead-letter stream: newest first, filtered, paged, counted.

Listing dead letters must not read the whole stream on every refresh (with 300 letters that was
most of a fragment's 70 ms). The index keeps one small row per letter (no original message) and
the stream state it was read at: the DLQ stream's first and last sequence and message count.
`refresh()` asks for that state (one request) and reads only what is new since; a letter deleted
by someone else (a requeue from the CLI) changes the count, and then the index is read again from
the start. `revision` changes exactly when the rows do, so a page can answer "unchanged" from it.

The stream is read with an ephemeral pull consumer (batches of 256), not one request per letter.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime

import anyio
import msgspec
import nats.errors
import nats.js.errors
import structlog
from nats.js import JetStreamContext, api

from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DEAD_LETTER_DECODER

log = structlog.get_logger("jetjobs.ui")

_BATCH = 256
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ERROR_KEPT = 240  # characters of the error kept per row (the letter's own page shows it all)


class LetterRow(msgspec.Struct, kw_only=True, frozen=True):
    """What the list shows of one dead letter."""

    seq: int
    job_id: str
    type: str | None
    reason: str
    attempts: int
    failed_at: datetime
    error: str


class LetterPage(msgspec.Struct, kw_only=True, frozen=True):
    """One page of the list, newest first, and what the filters leave."""

    rows: list[LetterRow]
    total: int  # every dead letter
    matching: int  # those the filters let through
    page: int  # 1-based
    pages: int
    job_type: str
    reason: str
    types: list[tuple[str, int]]  # every type present, with its count
    reasons: list[tuple[str, int]]


class DeadLetterIndex:
    """The rows of one namespace's DLQ stream, kept current with a read of what is new."""

    def __init__(self, js: JetStreamContext, topology: Topology) -> None:
        self.js = js
        self.topology = topology
        self.rows: dict[int, LetterRow] = {}
        self.state: tuple[int, int, int] = (0, 0, 0)  # first_seq, last_seq, messages
        self.revision = 0
        self.reads = 0  # letters read from the stream so far (the work a refresh did)
        self._lock = anyio.Lock()

    async def refresh(self) -> None:
        """Bring the rows up to the stream's state (no read at all when it has not moved)."""
        async with self._lock:  # two requests at once: the second finds the rows current
            await self._refresh()

    async def _refresh(self) -> None:
        info = await self.js.stream_info(self.topology.dlq_stream)
        state = (info.state.first_seq, info.state.last_seq, info.state.messages)
        if state == self.state:
            return
        _, last_seq, messages = state
        known_last = self.state[1]
        if last_seq < known_last or len(self.rows) > messages:
            self.rows.clear()  # purged or letters deleted: read everything again
            known_last = 0
        else:
            self.rows = {seq: row for seq, row in self.rows.items() if seq >= state[0]}
        if last_seq > known_last:
            await self._read_from(known_last + 1, last_seq)
        if len(self.rows) != messages:  # a letter in the middle went away: start over
            self.rows.clear()
            await self._read_from(1, last_seq)
        # Letters deleted while it read: the rows are shown, and the next refresh reads again.
        self.state = state if len(self.rows) == messages else (-1, last_seq, -1)
        self.revision += 1

    def forget(self, seq: int) -> None:
        """Drop a letter this process deleted (a requeue), without waiting for a re-read."""
        if self.rows.pop(seq, None) is not None:
            first, last, messages = self.state
            self.state = (first, last, messages - 1)
            self.revision += 1

    def page(self, *, job_type: str = "", reason: str = "", page: int = 1, size: int = 50) -> LetterPage:
        """The newest-first page `page` of the letters of `job_type` and `reason` (empty: any)."""
        every = sorted(self.rows.values(), key=lambda r: r.seq, reverse=True)
        chosen = [
            r for r in every if (not job_type or r.type == job_type) and (not reason or r.reason == reason)
        ]
        pages = max(1, -(-len(chosen) // size))
        page = min(max(1, page), pages)
        return LetterPage(
            rows=chosen[(page - 1) * size : page * size],
            total=len(every),
            matching=len(chosen),
            page=page,
            pages=pages,
            job_type=job_type,
            reason=reason,
            types=_counted(r.type or "-" for r in every),
            reasons=_counted(r.reason for r in every),
        )

    async def _read_from(self, start: int, last_seq: int) -> None:
        """Read the letters from stream sequence `start` through `last_seq` into the rows."""
        sub = await self.js.pull_subscribe(
            f"{self.topology.ns}.dlq.>",
            stream=self.topology.dlq_stream,
            config=api.ConsumerConfig(
                description="jetjobs ui dead-letter index",
                deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE,
                opt_start_seq=start,
                ack_policy=api.AckPolicy.NONE,
                inactive_threshold=30.0,
                mem_storage=True,
                num_replicas=1,
            ),
        )
        try:
            done = False
            while not done:
                try:
                    msgs = await sub.fetch(_BATCH, timeout=2.0)
                except nats.errors.TimeoutError:
                    if not (await sub.consumer_info()).num_pending:
                        return  # nothing more: the last letters were deleted meanwhile
                    continue  # a slow server: ask again
                for msg in msgs:
                    seq = msg.metadata.sequence.stream
                    if seq > last_seq:
                        done = True
                        break
                    self._add(seq, msg.data)
                    done = seq == last_seq or msg.metadata.num_pending == 0
        finally:
            with contextlib.suppress(nats.errors.Error, nats.js.errors.Error):
                await self.js.delete_consumer(self.topology.dlq_stream, (await sub.consumer_info()).name)
            await sub.unsubscribe()

    def _add(self, seq: int, data: bytes) -> None:
        self.reads += 1
        try:
            letter = DEAD_LETTER_DECODER.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("ui.bad_dead_letter", seq=seq, error=str(exc))
            self.rows[seq] = LetterRow(seq=seq, job_id=f"(unreadable #{seq})", type=None, reason="unreadable",
                                       attempts=0, failed_at=_EPOCH, error=str(exc))  # fmt: skip
            return
        error = letter.error if len(letter.error) <= ERROR_KEPT else letter.error[:ERROR_KEPT] + "…"
        self.rows[seq] = LetterRow(
            seq=seq,
            job_id=letter.job_id,
            type=letter.type,
            reason=letter.reason,
            attempts=letter.attempts,
            failed_at=letter.failed_at,
            error=error,
        )


def _counted(values: Iterable[str]) -> list[tuple[str, int]]:
    return sorted(Counter(values).items())
