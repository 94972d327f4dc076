"""A schedule's time zone is checked before anything is sent, and old schedules without one decode."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings
from jetjobs._errors import ConfigError
from jetjobs._joblog.schedule import Schedule, Schedules, checked_time_zone
from jetjobs._wire.delay import schedule_headers
from jetjobs._wire.headers import SCHEDULE, SCHEDULE_TIME_ZONE


def _schedules() -> Schedules:
    # Never connected: a check that ran after the first request would fail with an AssertionError
    # from nats-py ("connect must be called first"), not with the ConfigError these tests expect.
    return Schedules(Publisher(NATS(), Settings()))


@pytest.mark.parametrize("zone", ["Mars/Olympus", "europe/berlin", "Europe/", "", "../etc/passwd"])
async def test_an_unknown_zone_is_a_config_error_naming_it(zone: str) -> None:
    """A name the tz database does not know fails with a ConfigError that names it and says what
    a zone name looks like."""
    with pytest.raises(ConfigError) as raised:
        await _schedules().add("morning", "tick", cron="30 7 * * *", time_zone=zone)
    message = str(raised.value)
    assert repr(zone) in message
    assert "IANA" in message
    assert "Europe/Berlin" in message


async def test_a_zone_with_every_is_a_config_error() -> None:
    """An interval has no wall clock: `every=` with a (valid) zone is refused, saying why."""
    with pytest.raises(ConfigError, match="interval"):
        await _schedules().add("ping", "tick", every="1h", time_zone="Europe/Berlin")


def test_known_zones_pass_the_check() -> None:
    """Real IANA names, the half-hour Asia/Kolkata and plain UTC included, come back unchanged."""
    for zone in ("Europe/Berlin", "Asia/Kolkata", "America/New_York", "UTC"):
        assert checked_time_zone(zone) == zone


def test_the_zone_header_is_sent_only_when_there_is_a_zone() -> None:
    """`Nats-Schedule-Time-Zone` carries the zone; without one the headers are as before (UTC)."""
    target = "ns.jobs.default.normal.tick"
    zoned = schedule_headers("0 30 7 * * *", target, "Asia/Kolkata")
    assert zoned[SCHEDULE_TIME_ZONE] == "Asia/Kolkata"
    assert zoned[SCHEDULE] == "0 30 7 * * *"
    assert SCHEDULE_TIME_ZONE == "Nats-Schedule-Time-Zone"
    assert SCHEDULE_TIME_ZONE not in schedule_headers("0 30 7 * * *", target)


def test_a_schedule_stored_before_time_zones_decodes_as_utc() -> None:
    """A `Schedule` encoded without `time_zone` (older jetjobs) decodes with `time_zone=None`."""
    job = Publisher(NATS(), Settings()).build("tick", {})
    old = msgspec.json.encode(
        {"name": "nightly", "pattern": "0 0 3 * * *", "job": job, "seq": 7, "added_at": datetime.now(UTC)}
    )
    decoded = msgspec.json.decode(old, type=Schedule)
    assert decoded.time_zone is None
    assert decoded.pattern == "0 0 3 * * *"
