"""Replay: run again, as new jobs, the jobs that the JOBS stream recorded in a time window.

The JOBS stream keeps history after ack (limits retention), so the log of what was submitted is
there to read. A replay reads it with an ephemeral consumer that starts at `since`
(`deliver_policy=by_start_time`, filtered by type or subject), stops at `until` or at the stream's
last sequence as of the start (so it never reads its own output), and republishes each matching
job as a NEW job: same type, payload, queue, priority, attempts and timeout, with `replay_of` set
to the original's id.

Running the same replay twice (after a crash, or by mistake) adds nothing: the new job's id is
derived from (replay id, original id), so it is also its `Nats-Msg-Id`; and before publishing,
the ledger is asked whether that id exists already (which holds beyond the duplicate window).
The replay id is `--replay-id`, or derived from the plan's resolved parameters: the same absolute
window and filters give the same replay id.

A relative window (`--since 1h`) resolves to a new one, and so a new replay id, each time it is
typed; two more rules keep such a repeat from adding anything:

- jobs that are themselves replays (`replay_of` set) are not replayed, unless the plan says
  `include_replays`;
- an original that another replay already replayed is not replayed again, unless the plan says
  `again`. Before publishing, a first pass reads the log from `since` to its end (past `until`:
  the earlier replay's output came later) and notes the originals of the replays it finds there.

Messages in the window that are not valid jobs are skipped and counted, never republished.

A dry run and the replay it previews count the same way: `to_publish` is the number of jobs that
pass every rule above, so a dry run's `to_publish` is what the replay then publishes (unless the
log changed in between). The dry run's `end_seq` can be handed to the replay as the plan's
`through_seq`, so that jobs stored after the preview are not part of the window it confirmed.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Literal

import anyio
import msgspec
import nats.errors
import nats.js.errors
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api

from jetjobs._errors import ConfigError, InvalidJob
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.schedule import fired_job
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._wire.envelope import Job, decode_job
from jetjobs._wire.timespec import parse_time, rfc3339

StatusFilter = Literal["succeeded", "dead", "any"]

_BATCH = 256
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:/\s*s)?\s*$")


class ReplayPlan(msgspec.Struct, kw_only=True, frozen=True):
    """What to replay: a window of the log, filters, and the replay's identity and pace."""

    replay_id: str
    since: datetime
    until: datetime | None = None
    job_type: str | None = None
    subject: str | None = None
    status: StatusFilter = "any"
    rate: float | None = None
    # Replay jobs that are replays themselves, too.
    include_replays: bool = False
    # Replay originals that another replay already replayed, once more.
    again: bool = False
    # Read the window no further than this JOBS stream sequence (a dry run's `end_seq`).
    through_seq: int | None = None


class ReplayReport(msgspec.Struct, kw_only=True):
    """What a replay (or a dry run) found and did."""

    replay_id: str
    dry_run: bool
    scanned: int = 0
    matched: int = 0
    published: int = 0
    already_replayed: int = 0
    skipped_invalid: int = 0
    skipped_status: int = 0
    skipped_own: int = 0
    # Jobs that are replays themselves (left alone without include_replays).
    skipped_replays: int = 0
    # Originals that an earlier replay (another replay id) replayed already (left alone without again).
    replayed_before: int = 0
    # Jobs the window holds more than once (a requeued dead letter is stored again): replayed once.
    skipped_repeats: int = 0
    by_type: dict[str, int] = {}
    # Jobs that passed every rule: published by a replay, counted only by a dry run.
    to_publish: int = 0
    to_publish_by_type: dict[str, int] = {}
    first_at: datetime | None = None
    last_at: datetime | None = None
    # The last JOBS stream sequence this run read up to (0: the stream was empty).
    end_seq: int = 0


def plan_replay(
    since: str | datetime,
    *,
    until: str | datetime | None = None,
    job_type: str | None = None,
    subject: str | None = None,
    status: StatusFilter = "any",
    rate: str | float | None = None,
    replay_id: str | None = None,
    include_replays: bool = False,
    again: bool = False,
    through_seq: int | None = None,
    now: datetime | None = None,
) -> ReplayPlan:
    """Resolve durations (`1h`) and RFC 3339 times to absolute UTC, and fix the replay id.

    Raises:
        ConfigError: a bad time or rate, `until` before `since`, or both a type and a subject.
    """
    start = since if isinstance(since, datetime) else parse_time(since, now=now)
    end = until if isinstance(until, datetime) or until is None else parse_time(until, now=now)
    if end is not None and end <= start:
        raise ConfigError(f"--until ({rfc3339(end)}) must be after --since ({rfc3339(start)})")
    if job_type and subject:
        raise ConfigError("give --type or --subject, not both")
    if status not in ("succeeded", "dead", "any"):
        raise ConfigError(f"--status must be succeeded, dead or any, not {status!r}")
    per_second = parse_rate(rate) if isinstance(rate, str) else rate
    if replay_id is None:
        identity = (
            f"{rfc3339(start)}|{rfc3339(end) if end else '-'}|{job_type or '-'}|{subject or '-'}|{status}"
            + ("|replays" if include_replays else "")
        )
        replay_id = "r" + hashlib.blake2b(identity.encode(), digest_size=8).hexdigest()
    elif not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", replay_id):
        raise ConfigError(f"--replay-id {replay_id!r} must be 1-64 of A-Z a-z 0-9 _ -")
    return ReplayPlan(
        replay_id=replay_id,
        since=start,
        until=end,
        job_type=job_type,
        subject=subject,
        status=status,
        rate=per_second,
        include_replays=include_replays,
        again=again,
        through_seq=through_seq,
    )


def parse_rate(text: str) -> float:
    """`50/s` or `50`: publishes per second.

    Raises:
        ConfigError: not a positive number.
    """
    match = _RATE.match(text)
    if not match or float(match.group(1)) <= 0:
        raise ConfigError(f"--rate {text!r}: write a positive number of jobs per second, e.g. 50/s")
    return float(match.group(1))


def replay_job_id(replay_id: str, original_id: str) -> str:
    """The id of the job that `replay_id` makes from `original_id` (also its `Nats-Msg-Id`)."""
    return hashlib.blake2b(f"{replay_id}:{original_id}".encode(), digest_size=16).hexdigest()


async def replay(
    nc: NATS,
    settings: Settings,
    plan: ReplayPlan,
    *,
    dry_run: bool = False,
    on_progress: Callable[[ReplayReport], None] | None = None,
) -> ReplayReport:
    """Replay the plan's window: republish matching jobs as new jobs (dry run: only count them).

    Raises:
        ConfigError: the subject filter is not a job subject of this namespace.
    """
    publisher = Publisher(nc, settings)
    topology = publisher.topology
    jobs_prefix = f"{topology.ns}.jobs."
    if plan.subject is not None and not plan.subject.startswith(jobs_prefix):
        raise ConfigError(f"--subject {plan.subject!r} must be a job subject, i.e. start with {jobs_prefix}")
    await topology.ensure_base(publisher.js)
    ledger = Ledger(await topology.status_kv(publisher.js))
    replayer = _Replayer(plan, publisher, ledger, ReplayReport(replay_id=plan.replay_id, dry_run=dry_run))
    log_end = (await publisher.js.stream_info(topology.jobs_stream)).state.last_seq
    end_seq = min(log_end, plan.through_seq) if plan.through_seq is not None else log_end
    replayer.report.end_seq = end_seq
    if end_seq == 0:
        return replayer.report
    if plan.subject:
        only = plan.subject
    elif plan.job_type:
        only = f"{jobs_prefix}*.*.{plan.job_type}"
    else:
        only = f"{jobs_prefix}>"
    if not plan.again:
        replayer.replayed_before = await _replayed_before(
            publisher.js, topology.jobs_stream, only, plan, log_end
        )
    async with _window(publisher.js, topology.jobs_stream, only, plan) as (sub, pending):
        await replayer.read(sub, end_seq, pending=pending, on_progress=on_progress)
    return replayer.report


@contextlib.asynccontextmanager
async def _window(
    js: JetStreamContext, stream: str, only: str, plan: ReplayPlan
) -> AsyncIterator[tuple[JetStreamContext.PullSubscription, int]]:
    """An ephemeral consumer of `only` from `plan.since`, and how many messages it has pending."""
    sub = await js.pull_subscribe(
        only,
        stream=stream,
        config=api.ConsumerConfig(
            description=f"jetjobs replay {plan.replay_id}",
            deliver_policy=api.DeliverPolicy.BY_START_TIME,
            opt_start_time=plan.since,
            ack_policy=api.AckPolicy.NONE,
            inactive_threshold=60.0,
            mem_storage=True,
            num_replicas=1,
        ),
    )
    info = await sub.consumer_info()
    try:
        yield sub, info.num_pending or 0
    finally:
        with contextlib.suppress(nats.errors.Error, nats.js.errors.Error):
            # Else it goes away by itself after inactive_threshold.
            await js.delete_consumer(stream, info.name)
        await sub.unsubscribe()


async def _batches(
    sub: JetStreamContext.PullSubscription, end_seq: int, batch: int
) -> AsyncIterator[list[Msg]]:
    """The consumer's messages in batches, up to the stream sequence `end_seq` (inclusive)."""
    while True:
        try:
            msgs = await sub.fetch(batch, timeout=2.0)
        except nats.errors.TimeoutError:
            if not (await sub.consumer_info()).num_pending:
                return
            continue
        taken: list[Msg] = []
        for msg in msgs:
            if msg.metadata.sequence.stream > end_seq:
                break
            taken.append(msg)
            if _at_end(msg, end_seq):
                break
        yield taken
        if len(taken) < len(msgs) or (taken and _at_end(taken[-1], end_seq)):
            return


def _at_end(msg: Msg, end_seq: int) -> bool:
    return msg.metadata.sequence.stream >= end_seq or msg.metadata.num_pending == 0


class _ReplayOf(msgspec.Struct):
    """The two envelope fields the first pass needs (the rest is not decoded)."""

    id: str = ""
    replay_of: str | None = None


_REPLAY_OF = msgspec.json.Decoder(_ReplayOf)


async def _replayed_before(
    js: JetStreamContext, stream: str, only: str, plan: ReplayPlan, end_seq: int
) -> set[str]:
    """The ids of the originals that replays other than this one published between `since` and
    `end_seq` (the log's end at the start) were made from."""
    found: set[str] = set()
    async with _window(js, stream, only, plan) as (sub, pending):
        if not pending:
            return found
        async for msgs in _batches(sub, end_seq, _BATCH):
            for msg in msgs:
                try:
                    head = _REPLAY_OF.decode(msg.data)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    continue  # not a job: the second pass counts it
                if head.replay_of and head.id != replay_job_id(plan.replay_id, head.replay_of):
                    found.add(head.replay_of)
    return found


class _Replayer:
    """One run of a plan: reads the window, filters, republishes, counts."""

    def __init__(self, plan: ReplayPlan, publisher: Publisher, ledger: Ledger, report: ReplayReport) -> None:
        self.plan = plan
        self.publisher = publisher
        self.ledger = ledger
        self.report = report
        self.interval = 1.0 / plan.rate if plan.rate else 0.0
        self.next_at = 0.0
        # Originals that another replay replayed already (see _replayed_before).
        self.replayed_before: set[str] = set()
        # The originals this run has taken so far: the log may hold a job twice.
        self.seen: set[str] = set()

    async def read(
        self,
        sub: JetStreamContext.PullSubscription,
        end_seq: int,
        *,
        pending: int,
        on_progress: Callable[[ReplayReport], None] | None,
    ) -> None:
        """Consume up to `until` (exclusive), the last sequence as of the start, or nothing pending."""
        # A rate-limited batch must finish well inside the consumer's inactive_threshold.
        batch = max(1, min(_BATCH, int(self.plan.rate * 10))) if self.plan.rate else _BATCH
        if pending == 0:
            return
        async for msgs in _batches(sub, end_seq, batch):
            for msg in msgs:
                if self.plan.until and msg.metadata.timestamp >= self.plan.until:
                    if on_progress is not None:
                        on_progress(self.report)
                    return
                await self.one(msg)
            if on_progress is not None:
                on_progress(self.report)

    async def one(self, msg: Msg) -> None:
        """Filter one message of the window and, unless it was done before, republish it."""
        report = self.report
        report.scanned += 1
        found = await self._candidate(msg)
        if found is None:
            return
        job, new = found
        if job.id in self.seen:
            report.skipped_repeats += 1
            return
        self.seen.add(job.id)
        report.matched += 1
        report.by_type[job.type] = report.by_type.get(job.type, 0) + 1
        report.first_at = report.first_at or msg.metadata.timestamp
        report.last_at = msg.metadata.timestamp
        if job.id in self.replayed_before:
            report.replayed_before += 1
            return
        existing, _ = await self.ledger.get(new.id)
        if existing is not None:
            report.already_replayed += 1
            return
        report.to_publish += 1
        report.to_publish_by_type[job.type] = report.to_publish_by_type.get(job.type, 0) + 1
        if report.dry_run:
            return
        await self._pace()
        result = await self.publisher.publish(new)
        if result.duplicate:
            report.already_replayed += 1
        else:
            report.published += 1

    async def _candidate(self, msg: Msg) -> tuple[Job, Job] | None:
        """The job of a message and its replay, if it passes the plan's filters (else counted)."""
        plan, report = self.plan, self.report
        try:
            job = fired_job(decode_job(msg.data), msg.headers, msg.metadata.sequence.stream)
        except InvalidJob:
            report.skipped_invalid += 1
            return None
        if job.replay_of is not None and job.id == replay_job_id(plan.replay_id, job.replay_of):
            report.skipped_own += 1  # this replay's own output, from an earlier run of it
            return None
        if job.replay_of is not None and not plan.include_replays:
            report.skipped_replays += 1
            return None
        if plan.status != "any":
            record, _ = await self.ledger.get(job.id)
            if record is None or record.state != plan.status:
                report.skipped_status += 1
                return None
        try:
            return job, self._copy(job)
        except (InvalidJob, msgspec.ValidationError):
            report.skipped_invalid += 1  # valid once, not under today's checks
            return None

    def _copy(self, job: Job) -> Job:
        return self.publisher.build(
            job.type,
            job.payload,
            queue=job.queue,
            priority=job.priority,
            max_attempts=job.max_attempts,
            timeout=job.timeout,
            job_id=replay_job_id(self.plan.replay_id, job.id),
            replay_of=job.id,
        )

    async def _pace(self) -> None:
        """At most `rate` publishes per second."""
        if not self.interval:
            return
        now = anyio.current_time()
        self.next_at = max(self.next_at, now)
        await anyio.sleep(self.next_at - now)
        self.next_at += self.interval
