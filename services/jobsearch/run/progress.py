"""What the pipeline is doing, from the platform's status ledger, and when it has drained.

The ledger (KV bucket `<ns>_status`) gets an entry per job the moment it is submitted (`queued`),
and every change after (`running`, `failed` while it retries, `succeeded` with the handler's
result, `dead`). Following the bucket's stream from now on gives every stage's progress without
the stages knowing about the run, and it is a JetStream stream: nothing is lost while this
process is busy (an entry overwritten meanwhile is skipped, but never the last one).

Drained means: every job seen has settled (succeeded or dead), and the stage queues' consumers
hold nothing pending or unacknowledged, checked in pipeline order (a job enters a queue only from
a job still unacknowledged upstream, so no job can slip past the check). The check runs when
everything seen has settled, and on a slow tick in case the ledger's news is late.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import anyio
import msgspec
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api
from nats.js.errors import NotFoundError

from jetjobs import Priority, Publisher, StatusRecord

_RECORD = msgspec.json.Decoder(StatusRecord)
_PRIORITIES: tuple[Priority, ...] = ("high", "normal", "low")
TERMINAL = frozenset({"succeeded", "dead", "cancelled"})


class TypeCounts(msgspec.Struct, kw_only=True):
    """Jobs of one type seen during the run, by where they are."""

    submitted: int = 0
    succeeded: int = 0
    dead: int = 0
    retrying: int = 0
    # When the first job of the type started running and the last one settled (the ledger's clock).
    first_running: datetime | None = None
    last_settled: datetime | None = None

    def clock(self, state: str, at: datetime) -> None:
        """Note an entry's time: the first after `queued` (its `running` one may have been
        overwritten unread) starts the type's busy time, each settle may end it."""
        if state != "queued" and (self.first_running is None or at < self.first_running):
            self.first_running = at
        if state in TERMINAL and (self.last_settled is None or at > self.last_settled):
            self.last_settled = at

    @property
    def busy_seconds(self) -> float:
        """From the first start to the last settle: how long the stage worked on this type."""
        if self.first_running is None or self.last_settled is None:
            return 0.0
        return max(0.0, (self.last_settled - self.first_running).total_seconds())

    @property
    def settled(self) -> int:
        """Succeeded or dead."""
        return self.succeeded + self.dead


class Progress:
    """Counts by job type from the ledger's entries, and the settled jobs' results."""

    def __init__(self, watched_types: Sequence[str]) -> None:
        self.watched = frozenset(watched_types)
        self.counts: dict[str, TypeCounts] = {name: TypeCounts() for name in watched_types}
        self.state: dict[str, str] = {}
        self._unsettled = 0
        self.types: dict[str, str] = {}
        self.outcomes: Counter[str] = Counter()  # `type:outcome` from results that name one
        self.results: dict[str, list[Any]] = {}  # every settled result of the types kept below
        self.dead: list[StatusRecord] = []
        self.errors: dict[str, str] = {}  # job id -> last error of a job that is retrying
        self.redelivered: set[str] = set()  # jobs that ran more than once (retry, lost worker)
        self.keep_results: frozenset[str] = frozenset()
        self._changed = anyio.Event()
        self._watch_ids: dict[str, anyio.Event] = {}
        # The last entry of each job of these types (few per run), and of the jobs watched.
        self.keep_records: frozenset[str] = frozenset({"jobsearch.search", "jobsearch.tracker"})
        self.records: dict[str, StatusRecord] = {}

    def unsettled(self) -> int:
        """Jobs seen that have not settled yet."""
        return self._unsettled  # kept as entries arrive: a count per change, not a scan of them all

    def next_change(self) -> anyio.Event:
        """An event set when the next ledger entry arrives."""
        return self._changed

    def watch(self, job_id: str) -> anyio.Event:
        """An event set when `job_id` settles (its entry is then in `records`).

        A job of a `keep_records` type that settled before the call is found too.
        """
        event = self._watch_ids.setdefault(job_id, anyio.Event())
        record = self.records.get(job_id)
        if record is not None and record.state in TERMINAL:
            event.set()
        return event

    def on_message(self, msg: Msg) -> None:
        """Take one message of the bucket's stream (a put, or a delete/purge of a key)."""
        job_id = msg.subject.rsplit(".", 1)[-1]
        operation = (msg.headers or {}).get("KV-Operation")
        if operation in ("DEL", "PURGE"):
            self._forget(job_id)
        else:
            try:
                record = _RECORD.decode(msg.data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                return
            self.on_record(record)
        self._changed.set()
        self._changed = anyio.Event()

    def on_record(self, record: StatusRecord) -> None:
        """Count one ledger entry."""
        job_id = record.id
        if job_id in self._watch_ids or record.type in self.keep_records:
            self.records[job_id] = record
            if record.state in TERMINAL and job_id in self._watch_ids:
                self._watch_ids[job_id].set()
        if record.type not in self.watched:
            return
        counts = self.counts[record.type]
        before = self.state.get(job_id)
        if before in TERMINAL:
            return
        if before is None:
            counts.submitted += 1
            self.types[job_id] = record.type
        if before == "failed":
            counts.retrying -= 1
        self._unsettled += (record.state not in TERMINAL) - (before is not None)
        self.state[job_id] = record.state
        counts.clock(record.state, record.updated_at)
        if record.attempt > 1:  # any entry: the `running` one may have been overwritten unread
            self.redelivered.add(job_id)
        match record.state:
            case "succeeded":
                counts.succeeded += 1
                self.errors.pop(job_id, None)
                self._take_result(record)
            case "dead" | "cancelled":
                counts.dead += 1
                self.errors.pop(job_id, None)
                self.dead.append(record)
            case "failed":
                counts.retrying += 1
                self.errors[job_id] = record.error or "failed"
            case _:
                pass

    def _take_result(self, record: StatusRecord) -> None:
        result = record.result
        if isinstance(result, dict):
            # dedupe says what became of a listing in `state` (drafted, dropped, ...) and `outcome`
            # (new, merged, seen); other stages' results may name an `outcome` too.
            for field in ("outcome", "state"):
                value = result.get(field)
                if isinstance(value, str):
                    self.outcomes[f"{record.type}:{field}:{value}"] += 1
            if "outcome" in result and "state" in result:
                self.outcomes[f"{record.type}:{result['outcome']}:{result['state']}"] += 1
            # A batch says how many of its postings had each outcome, or how many it recorded.
            counts = result.get("counts")
            if isinstance(counts, dict):
                for outcome, n in counts.items():
                    if isinstance(n, int):
                        self.outcomes[f"{record.type}:outcome:{outcome}"] += n
            listings = result.get("listings")
            if isinstance(listings, int):
                self.outcomes[f"{record.type}:listings"] += listings
        if record.type in self.keep_results:
            self.results.setdefault(record.type, []).append(result)

    def _forget(self, job_id: str) -> None:
        # A duplicate submission's `queued` entry, withdrawn: that job never was.
        state = self.state.pop(job_id, None)
        if state is not None and state not in TERMINAL:
            self._unsettled -= 1
        job_type = self.types.pop(job_id, None)
        if job_type is not None and state is not None and state not in TERMINAL:
            self.counts[job_type].submitted -= 1
            if state == "failed":
                self.counts[job_type].retrying -= 1


async def follow_ledger(publisher: Publisher, progress: Progress) -> Any:
    """Follow the status ledger from now on into `progress`; returns the subscription."""
    topology = publisher.topology
    await topology.ensure_base(publisher.js)

    async def on_message(msg: Msg) -> None:
        progress.on_message(msg)

    return await publisher.js.subscribe(
        f"$KV.{topology.status_bucket}.>",
        cb=on_message,
        ordered_consumer=True,
        deliver_policy=api.DeliverPolicy.NEW,
    )


async def queues_idle(js: JetStreamContext, publisher: Publisher, queues: Sequence[str]) -> bool:
    """True when no consumer of `queues` (in pipeline order) has a job pending or unacknowledged."""
    topology = publisher.topology
    for queue in queues:
        for priority in _PRIORITIES:
            try:
                info = await js.consumer_info(topology.jobs_stream, topology.consumer_name(queue, priority))
            except NotFoundError:
                continue  # no consumer yet: nothing was ever submitted to it
            if info.num_pending or info.num_ack_pending:
                return False
    return True


async def wait_drained(
    publisher: Publisher, progress: Progress, queues: Sequence[str], *, tick: float = 2.0
) -> None:
    """Return once the pipeline has drained (see the module's docstring)."""
    idle_ticks = 0
    while True:
        change = progress.next_change()
        if progress.unsettled() == 0 and await queues_idle(publisher.js, publisher, queues):
            return
        with anyio.move_on_after(tick) as waited:
            await change.wait()
        if waited.cancelled_caught:
            # Nothing new for a whole tick: if the queues are idle twice in a row, the ledger's
            # news about a job was lost (it expired), not late.
            idle_ticks = idle_ticks + 1 if await queues_idle(publisher.js, publisher, queues) else 0
            if idle_ticks >= 2:
                return
