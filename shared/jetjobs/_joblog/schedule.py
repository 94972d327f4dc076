"""Delayed and recurring jobs, kept and fired by the server (JetStream message schedules, ADR-51).

Needs nats-server 2.12+ for delayed jobs (`@at`) and 2.14+ for `@every` and cron; tested with
2.15.1. Nothing in jetjobs runs a timer: the schedules live in the JOBS stream, so they survive a
restart of every process, the server included (with file storage).

A schedule is a message in the JOBS stream whose body is a job envelope and whose headers are

| header                    | value                                                               |
|---------------------------|---------------------------------------------------------------------|
| `Nats-Schedule`           | `@at <RFC 3339>`, `@every <duration>`, `@daily`..., 6-field cron    |
| `Nats-Schedule-Target`    | the job subject `<ns>.jobs.<queue>.<priority>.<type>` (same stream) |
| `Nats-TTL`                | `never`: a schedule must outlive the stream's `max_age`             |
| `Nats-Schedule-Time-Zone` | optional IANA zone a cron or `@daily` is read in (2.14+); none: UTC |

The server keeps one schedule per subject (it adds `Nats-Rollup: sub`, so adding a schedule again
replaces it). When it fires, it stores a copy of the body, with the schedule's other headers, on
the target subject, adding `Nats-Scheduler` (the schedule's subject) and `Nats-Schedule-Next` (the
next firing, or `purge` for `@at`, whose schedule message is then deleted). Workers consume that
copy like any job.

| kind                              | schedule subject             | job id of a firing              |
|-----------------------------------|------------------------------|---------------------------------|
| delayed job (`enqueue --at/--in`) | `<ns>.schedules.at.<job id>` | the job's id                    |
| named schedule (`schedule add`)   | `<ns>.schedules.<name>`      | `<template id>-<stream seq>`    |

Every firing of a recurring schedule is the same body, with the same job id; the ledger would
call every firing after the first "already succeeded". So the worker gives each firing its own id
(`fired_job`): the template's id plus the stream sequence of the firing, which is the same on every
redelivery of one firing and different for every firing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Unpack
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
import nats.js.errors

from jetjobs._errors import ConfigError, InvalidJob, JobTooLarge
from jetjobs._wire.delay import schedule_headers
from jetjobs._wire.envelope import (
    DEFAULT_OPTIONS,
    ENCODER,
    Job,
    JobOptionFields,
    JobOptions,
    decode_job,
    utcnow,
)
from jetjobs._wire.headers import (
    NEXT_PURGE,
    SCHEDULE,
    SCHEDULE_NEXT,
    SCHEDULE_TIME_ZONE,
    SCHEDULER,
)
from jetjobs._wire.timespec import parse_duration

if TYPE_CHECKING:
    from jetjobs._submit.publisher import Publisher


_PREDEFINED = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})


class Schedule(msgspec.Struct, kw_only=True, frozen=True):
    """A named schedule as the stream holds it."""

    name: str
    pattern: str
    job: Job
    seq: int
    added_at: datetime | None = None
    time_zone: str | None = None  # the IANA zone its cron is read in; None: UTC


def every_pattern(interval: str) -> str:
    """The `Nats-Schedule` value for `--every 1h` (the server's minimum is one second).

    Raises:
        ConfigError: not a duration, or shorter than a second.
    """
    seconds = parse_duration(interval).total_seconds()
    if seconds < 1:
        raise ConfigError(f"--every {interval}: the shortest interval the server allows is 1s")
    return f"@every {seconds:g}s"


def cron_pattern(expression: str) -> str:
    """The `Nats-Schedule` value for a cron expression (read in UTC, or in the schedule's zone).

    Takes the classic 5 fields (`0 8 * * *`: minute hour day-of-month month day-of-week), the
    server's 6 fields (seconds first) or a predefined `@daily`, `@hourly`, ...

    Raises:
        ConfigError: neither 5 nor 6 fields, nor a predefined name.
    """
    text = " ".join(expression.split())
    if text.startswith("@"):
        if text not in _PREDEFINED:
            raise ConfigError(f"--cron {expression!r}: known names are {', '.join(sorted(_PREDEFINED))}")
        return text
    fields = text.split(" ")
    if len(fields) == 5:
        return f"0 {text}"
    if len(fields) == 6:
        return text
    raise ConfigError(
        f"--cron {expression!r} has {len(fields)} fields; write 5 (minute hour day month weekday, "
        "e.g. '0 8 * * *') or 6 (seconds first)"
    )


def checked_time_zone(time_zone: str) -> str:
    """`time_zone` if it is an IANA zone name this machine's tz database knows.

    The server resolves the name the same way (Go's `time.LoadLocation`), so checking here turns
    its generic "pattern invalid" refusal into a message that names the zone.

    Raises:
        ConfigError: not a zone name.
    """
    try:
        ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):  # ValueError: "", "../x", a file that is no zone
        raise ConfigError(
            f"time zone {time_zone!r} is unknown: it must be an IANA zone name like Europe/Berlin "
            "(or America/New_York, Asia/Kolkata, UTC)"
        ) from None
    return time_zone


def fired_job(job: Job, headers: Mapping[str, str] | None, seq: int) -> Job:
    """The job a delivery stands for: a firing of a recurring schedule gets its own id.

    A delayed job's firing (`Nats-Schedule-Next: purge`) and an ordinary job keep their id.
    """
    if not headers or SCHEDULER not in headers or headers.get(SCHEDULE_NEXT, NEXT_PURGE) == NEXT_PURGE:
        return job
    return msgspec.structs.replace(job, id=f"{job.id}-{seq}")


def _check_name(name: str) -> str:
    if not name or len(name) > 64 or not all(c.isascii() and (c.isalnum() or c in "_-") for c in name):
        raise ConfigError(f"schedule name {name!r} must be 1-64 of A-Z a-z 0-9 _ -")
    if name == "at":
        raise ConfigError("schedule name 'at' is reserved (delayed jobs live under schedules.at)")
    return name


class Schedules:
    """Add, list and remove the named schedules of a namespace (through a Publisher's connection)."""

    def __init__(self, publisher: Publisher) -> None:
        self.publisher = publisher
        self.js = publisher.js
        self.topology = publisher.topology

    async def add(
        self,
        name: str,
        job_type: str,
        payload: Mapping[str, Any] | msgspec.Struct | None = None,
        options: JobOptions | None = None,
        *,
        cron: str | None = None,
        every: str | None = None,
        time_zone: str | None = None,
        **fields: Unpack[JobOptionFields],
    ) -> Schedule:
        """Add (or replace) the schedule `name`: run `job_type` with `payload` on `cron` or `every`.

        `time_zone` (an IANA name; nats-server 2.14+) makes `cron` wall-clock time there, so
        `0 30 7 * * *` in Europe/Berlin stays 07:30 across daylight-saving changes; default UTC.

        Each firing is a job with `options` (default `JobOptions()`; fields as keywords on top),
        except `key` and `run_at`, which a recurring job cannot have: every firing is a new job.

        Raises:
            ConfigError: a bad name, or not exactly one of cron/every, or a pattern the server refuses,
                or a `key` or `run_at` in the options, or a time zone that is not an IANA name or
                goes with `every` (an interval has no wall clock).
            JobTooLarge: the job envelope exceeds `max_job_bytes`.
            msgspec.ValidationError: an argument breaks the envelope schema.
        """
        _check_name(name)
        if (cron is None) == (every is None):
            raise ConfigError("a schedule needs exactly one of --cron or --every")
        pattern = cron_pattern(cron) if cron is not None else every_pattern(every or "")
        if time_zone is not None:
            if every is not None:
                # The server refuses a zone on `@every` too, but only as "pattern invalid".
                raise ConfigError(
                    f"schedule {name}: a time zone goes with --cron only; --every is an interval, "
                    "which has no wall clock"
                )
            checked_time_zone(time_zone)
        chosen = (options or DEFAULT_OPTIONS).replace(**fields)
        if chosen.key is not None or chosen.run_at is not None:
            raise ConfigError(f"schedule {name}: a recurring job takes no `key` or `run_at`")
        template = self.publisher.build(job_type, payload, chosen)
        data = ENCODER.encode(template)
        if len(data) > self.publisher.settings.max_job_bytes:
            raise JobTooLarge(f"schedule {name}: the job is {len(data)} bytes, over JETJOBS_MAX_JOB_BYTES")
        await self.topology.ensure_queue(self.js, template.queue)
        target = self.topology.job_subject(template.queue, template.priority, job_type)
        try:
            ack = await self.js.publish(
                self.topology.schedule_subject(name),
                data,
                headers=schedule_headers(pattern, target, time_zone),
                stream=self.topology.jobs_stream,
            )
        except nats.js.errors.BadRequestError as exc:
            refused = f"the server refused schedule {name} ({pattern!r}): {exc.description}"
            raise ConfigError(refused) from None
        return Schedule(
            name=name, pattern=pattern, job=template, seq=ack.seq, added_at=utcnow(), time_zone=time_zone
        )

    async def entries(self) -> list[Schedule]:
        """Every named schedule, in the order they were added (delayed jobs are not listed)."""
        await self.topology.ensure_base(self.js)
        prefix = self.topology.schedule_subject("")
        stream, only = self.topology.jobs_stream, self.topology.schedules_filter()
        found: list[Schedule] = []
        seq = 0
        while True:
            try:
                msg = await self.js.get_msg(stream, seq=seq + 1, next=True, subject=only)
            except nats.js.errors.NotFoundError:
                return found
            seq = msg.seq or seq + 1
            try:
                job = decode_job(msg.data or b"")
            except InvalidJob:
                continue  # not ours (published by hand); `schedule remove` still deletes it
            found.append(
                Schedule(
                    name=(msg.subject or "").removeprefix(prefix),
                    pattern=(msg.headers or {}).get(SCHEDULE, ""),
                    job=job,
                    seq=seq,
                    added_at=msg.time,
                    time_zone=(msg.headers or {}).get(SCHEDULE_TIME_ZONE),
                )
            )

    async def remove(self, name: str) -> bool:
        """Delete the schedule `name`; False if there was none. Jobs it already fired still run."""
        subject = self.topology.schedule_subject(_check_name(name))
        await self.topology.ensure_base(self.js)
        return await self._purge(subject)

    async def cancel_delayed(self, job_id: str) -> bool:
        """Delete a delayed job's schedule before it fires; False if it has fired or never existed."""
        return await self._purge(self.topology.delayed_subject(job_id))

    async def _purge(self, subject: str) -> bool:
        """Purge the schedule message on `subject`; False if there is none."""
        try:
            await self.js.get_last_msg(self.topology.jobs_stream, subject)
        except nats.js.errors.NotFoundError:
            return False
        await self.js.purge_stream(self.topology.jobs_stream, subject=subject)
        return True
