"""Durations and times as operators type them, and the replay plan and job ids derived from them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from jetjobs._errors import ConfigError
from jetjobs._joblog.replay import parse_rate, plan_replay, replay_job_id
from jetjobs._joblog.schedule import fired_job
from jetjobs._wire.envelope import Job
from jetjobs._wire.timespec import parse_duration, parse_time, rfc3339

NOW = datetime(2026, 11, 30, 8, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("15m", 900),
        ("1h", 3600),
        ("2d", 172800),
        ("1h30m", 5400),
        ("500ms", 0.5),
        ("1w", 604800),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    """Each unit, and sums of units, become the right number of seconds."""
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "h", "10", "1 hour", "-5m", "1y"])
def test_bad_durations_name_the_forms(text: str) -> None:
    """A bad duration fails with a message that shows the accepted forms."""
    with pytest.raises(ConfigError, match="90s, 15m, 1h"):
        parse_duration(text)


def test_times_are_durations_ago_or_ahead_or_rfc3339() -> None:
    """`1h` is an hour ago (or ahead with future=True); RFC 3339 is taken as is, UTC when zoneless."""
    assert parse_time("1h", now=NOW) == NOW - timedelta(hours=1)
    assert parse_time("10m", now=NOW, future=True) == NOW + timedelta(minutes=10)
    assert parse_time("2026-11-30T09:30:00+01:00") == datetime(2026, 11, 30, 8, 30, tzinfo=UTC)
    assert parse_time("2026-11-30T08:30:00") == datetime(2026, 11, 30, 8, 30, tzinfo=UTC)
    assert parse_time("2026-11-30t08:30:00z") == datetime(2026, 11, 30, 8, 30, tzinfo=UTC)
    assert rfc3339(NOW) == "2026-11-30T08:00:00Z"
    with pytest.raises(ConfigError, match="RFC 3339"):
        parse_time("yesterday")


def test_plan_resolves_times_and_derives_a_stable_replay_id() -> None:
    """The same absolute window and filters give the same replay id; other filters another."""
    first = plan_replay("1h", job_type="email.send", now=NOW)
    again = plan_replay(NOW - timedelta(hours=1), job_type="email.send", now=NOW + timedelta(minutes=5))
    other = plan_replay("1h", job_type="email.send", status="dead", now=NOW)
    assert first.since == NOW - timedelta(hours=1)
    assert first.replay_id == again.replay_id
    assert first.replay_id != other.replay_id
    assert plan_replay("1h", replay_id="fix-42", now=NOW).replay_id == "fix-42"
    assert plan_replay("1h", rate="25/s", now=NOW).rate == 25.0
    assert parse_rate("7") == 7.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"until": "2h"}, "must be after"),
        ({"job_type": "a", "subject": "ns.jobs.>"}, "not both"),
        ({"rate": "fast"}, "jobs per second"),
        ({"rate": "0/s"}, "jobs per second"),
        ({"replay_id": "has space"}, "replay-id"),
    ],
)
def test_bad_plans_fail_clearly(kwargs: dict[str, str], message: str) -> None:
    """Contradictory or malformed replay options fail before anything is read."""
    with pytest.raises(ConfigError, match=message):
        plan_replay("1h", now=NOW, **kwargs)  # type: ignore[arg-type]


def test_replay_job_ids_are_derived_and_distinct() -> None:
    """A replay's job id depends on the replay and the original only, and fits the job id schema."""
    one = replay_job_id("r1", "job-a")
    assert one == replay_job_id("r1", "job-a")
    assert one not in {replay_job_id("r2", "job-a"), replay_job_id("r1", "job-b")}
    assert len(one) == 32


def test_each_firing_of_a_recurring_schedule_gets_its_own_id() -> None:
    """A recurring firing's id is template id + stream sequence; delayed jobs and plain jobs keep theirs."""
    template = Job(id="tmpl", type="tick", created_at=NOW)
    recurring = {"Nats-Scheduler": "ns.schedules.tick", "Nats-Schedule-Next": "2026-11-30T08:00:01Z"}
    assert fired_job(template, recurring, 41).id == "tmpl-41"
    assert fired_job(template, recurring, 42).id == "tmpl-42"
    delayed = {"Nats-Scheduler": "ns.schedules.at.tmpl", "Nats-Schedule-Next": "purge"}
    assert fired_job(template, delayed, 43) is template
    assert fired_job(template, None, 44) is template
    assert msgspec.structs.replace(fired_job(template, recurring, 45), id="tmpl") == template
