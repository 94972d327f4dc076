"""The schedule headers that make a message in the JOBS stream fire into a job subject.

In the wire layer because both sides write them: the publisher sends a job whose `run_at` is ahead
as a delayed job (`@at`), a worker hands such a job from a raw client to the server's scheduler the
same way, and `Schedules.add` writes a recurring schedule (jetjobs._joblog.schedule, which explains
the headers). A client in another language sets the same headers (docs/contract.md).
"""

from __future__ import annotations

from datetime import UTC, datetime

from jetjobs._wire.envelope import Job, utcnow
from jetjobs._wire.headers import MESSAGE_TTL, SCHEDULE, SCHEDULE_TARGET, SCHEDULE_TIME_ZONE
from jetjobs._wire.timespec import rfc3339


def at_pattern(when: datetime) -> str:
    """The `Nats-Schedule` value of a one-shot firing at `when`."""
    return f"@at {rfc3339(when)}"


def schedule_headers(pattern: str, target: str, time_zone: str | None = None) -> dict[str, str]:
    """The headers that make a message in the JOBS stream a schedule firing into `target`."""
    headers = {SCHEDULE: pattern, SCHEDULE_TARGET: target, MESSAGE_TTL: "never"}
    if time_zone is not None:
        headers[SCHEDULE_TIME_ZONE] = time_zone
    return headers


def delayed_headers(job: Job, target: str) -> dict[str, str] | None:
    """Schedule headers for a job whose `run_at` is in the future; None to publish it now."""
    if job.run_at is None:
        return None
    run_at = job.run_at if job.run_at.tzinfo else job.run_at.replace(tzinfo=UTC)
    if run_at <= utcnow():
        return None
    return schedule_headers(at_pattern(run_at), target)
