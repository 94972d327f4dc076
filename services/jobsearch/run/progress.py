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

The stages finish whatever the queues hold, so a run also settles jobs of earlier runs (one killed
mid-run leaves its jobs in the stream). What settled is tallied per run (`RunWork`): an export's
result names its run; a job of the few-per-run types (search, source, batches) and every job that
died is looked up once in the JOBS stream, whose message (kept after the ack) carries the run id
in its payload. A job whose run is not known (other types, a lookup that failed) is tallied under
None, which the summary counts as the run's own.
"""

from __future__ import annotations

import contextlib
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
from jobsearch.jobs import BOARD_READ, EXPORT, EXPORT_BATCH, LISTING_BATCH, SEARCH, SOURCE, TRACKER

_RECORD = msgspec.json.Decoder(StatusRecord)
_PRIORITIES: tuple[Priority, ...] = ("high", "normal", "low")
TERMINAL = frozenset({"succeeded", "dead", "cancelled"})
# Job types with a few jobs per run, whose run is looked up in the JOBS stream (see the module).
LOOKED_UP = frozenset({SEARCH, SOURCE, LISTING_BATCH, BOARD_READ})
_LOOKUP_TIMEOUT = 2.0  # seconds: a lookup the server does not answer leaves the run unknown


class _RunOf(msgspec.Struct):
    run_id: str | None = None


class _Submitted(msgspec.Struct):
    """The part of a job's message that names its run (every jobsearch payload carries one)."""

    payload: _RunOf = msgspec.field(default_factory=_RunOf)


_SUBMITTED = msgspec.json.Decoder(_Submitted)


class RunWork(msgspec.Struct, kw_only=True):
    """What settled for one run's jobs while the ledger was followed."""

    sources: dict[str, int] = {}  # source name -> postings its job reported (once per source)
    postings: int = 0  # postings dedupe looked at (its batches' results)
    exported: set[str] = msgspec.field(default_factory=set)  # listings its export jobs recorded
    batch_listings: int = 0  # listings its export batches recorded
    drafts: int = 0  # drafts its export jobs recorded
    dead: list[StatusRecord] = []  # its jobs that died (or were cancelled)

    @property
    def listings(self) -> int:
        """Listings recorded: a drafted one comes in a batch and again with its drafts, so the
        larger of the two counts (as the progress display's `exported`)."""
        return max(len(self.exported), self.batch_listings)

    @property
    def anything(self) -> bool:
        """Whether any of its jobs settled with something to tell."""
        return bool(self.sources or self.postings or self.listings or self.drafts or self.dead)


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
        self.keep_records: frozenset[str] = frozenset({SEARCH, TRACKER})
        self.records: dict[str, StatusRecord] = {}
        # Which run each job belongs to, where known (see the module), and the work per run.
        self.runs: dict[str, str] = {}
        self.work: dict[str | None, RunWork] = {}
        self._looked_up: set[str] = set()
        self.dead_letters_before = 0  # in the dead-letter stream when the run began

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
        change = ledger_change(msg)
        if change is not None:
            self.on_change(*change)

    def on_change(self, job_id: str, record: StatusRecord | None) -> None:
        """Take one change of the ledger: a job's new entry, or (None) its entry deleted."""
        if record is None:
            self._forget(job_id)
        else:
            self.on_record(record)
        self._changed.set()
        self._changed = anyio.Event()

    def needs_run(self, record: StatusRecord) -> bool:
        """Whether to look up the run of this entry's job (once per job; see the module)."""
        if record.id in self._looked_up or record.id in self.runs or not record.stream_seq:
            return False
        if record.type in LOOKED_UP or record.state == "dead":
            self._looked_up.add(record.id)
            return True
        return False

    def work_of(self, job_id: str) -> RunWork:
        """The tally of the run `job_id` belongs to (None's when not known)."""
        run = self.runs.get(job_id)
        work = self.work.get(run)
        if work is None:
            work = self.work[run] = RunWork()
        return work

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
                self.work_of(job_id).dead.append(record)
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
        if isinstance(result, dict):
            self._tally(record, result)

    def _tally(self, record: StatusRecord, result: dict[str, Any]) -> None:
        # What a settled job did, in its run's tally (an export's result names the run).
        run_id = result.get("run_id")
        if isinstance(run_id, str):
            self.runs[record.id] = run_id
        work = self.work_of(record.id)
        if record.type == SOURCE:
            work.sources[str(result.get("source"))] = _int(result.get("listings"))
        elif record.type == LISTING_BATCH:
            work.postings += _int(result.get("postings"))
        elif record.type == EXPORT and isinstance(result.get("listing_id"), str):
            work.exported.add(result["listing_id"])
            work.drafts += _int(result.get("drafts"))
        elif record.type == EXPORT_BATCH:
            work.batch_listings += _int(result.get("listings"))

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


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def ledger_change(msg: Msg) -> tuple[str, StatusRecord | None] | None:
    """A ledger message as (job id, its new entry or None when deleted); None if unreadable."""
    job_id = msg.subject.rsplit(".", 1)[-1]
    if (msg.headers or {}).get("KV-Operation") in ("DEL", "PURGE"):
        return job_id, None
    try:
        return job_id, _RECORD.decode(msg.data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


async def run_of_message(js: JetStreamContext, stream: str, seq: int) -> str | None:
    """The run id a job's message in the JOBS stream carries; None if it cannot be read."""
    with anyio.move_on_after(_LOOKUP_TIMEOUT):
        try:
            msg = await js.get_msg(stream, seq=seq)
            return _SUBMITTED.decode(msg.data or b"{}").payload.run_id
        except Exception:  # gone (history expired), the server away, not a job: unknown
            return None
    return None


async def follow_ledger(publisher: Publisher, progress: Progress) -> Any:
    """Follow the status ledger from now on into `progress`; returns the subscription.

    Also notes how many dead letters there are already, and looks up the runs of the jobs the
    summary tells apart (see the module).
    """
    topology = publisher.topology
    js = publisher.js
    await topology.ensure_base(js)
    with contextlib.suppress(Exception):
        progress.dead_letters_before = (await js.stream_info(topology.dlq_stream)).state.messages

    async def on_message(msg: Msg) -> None:
        change = ledger_change(msg)
        if change is None:
            return
        _, record = change
        if record is not None and progress.needs_run(record):
            run_id = await run_of_message(js, topology.jobs_stream, record.stream_seq)
            if run_id is not None:
                progress.runs[record.id] = run_id
        progress.on_change(*change)

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
