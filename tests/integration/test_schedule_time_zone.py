"""Schedules in a time zone: a cron read as wall-clock time in an IANA zone (the server's
`Nats-Schedule-Time-Zone`, nats-server 2.14+), through the API and `jetjobs schedule add --tz`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import msgspec
import nats.js.errors
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings
from jetjobs._errors import ConfigError
from jetjobs._joblog.schedule import Schedules
from jetjobs._transport.topology import Topology
from jetjobs._wire.delay import schedule_headers
from jetjobs._wire.headers import SCHEDULE_TIME_ZONE
from tests.integration.test_schedule import ticking_app
from tests.support import run_jetjobs, running_worker

pytestmark = [pytest.mark.integration]

# A half-hour offset from UTC: a cron read in the wrong zone is hours away, never seconds.
KOLKATA = "Asia/Kolkata"


def cron_at(when: datetime) -> str:
    """A 6-field cron that fires once a day at `when`'s wall-clock second."""
    return f"{when.second} {when.minute} {when.hour} * * *"


async def test_a_cron_in_a_zone_fires_at_that_zones_wall_time(nc: NATS, settings: Settings) -> None:
    """A cron for 'now + 4 s' written in Kolkata time fires within a couple of seconds of that
    instant; read as UTC it would be 5.5 hours off."""
    runs: list[tuple[str, str, datetime]] = []
    schedules = Schedules(Publisher(nc, settings))
    async with running_worker(ticking_app(runs), nc, settings) as (_, outcomes):
        # Computed once the worker is up, so the second named is still ahead when the server reads it.
        due = datetime.now(ZoneInfo(KOLKATA)).replace(microsecond=0) + timedelta(seconds=4)
        added = await schedules.add("kolkata", "tick", cron=cron_at(due), time_zone=KOLKATA)
        assert added.time_zone == KOLKATA
        await outcomes.wait(lambda: outcomes.count("succeeded") >= 1, timeout=30)
    ran = runs[0][2]
    assert abs((ran - due.astimezone(UTC)).total_seconds()) < 3
    stored = await nc.jetstream().get_last_msg(
        Topology(settings).jobs_stream, Topology(settings).schedule_subject("kolkata")
    )
    assert (stored.headers or {}).get(SCHEDULE_TIME_ZONE) == KOLKATA
    [listed] = await schedules.entries()
    assert listed.time_zone == KOLKATA


async def test_zones_are_checked_before_anything_is_sent(nc: NATS, settings: Settings) -> None:
    """An unknown zone and a zone with an interval fail with a ConfigError naming the problem,
    and leave no schedule; without a zone a schedule says none (UTC)."""
    schedules = Schedules(Publisher(nc, settings))
    with pytest.raises(ConfigError, match="Mars/Olympus"):
        await schedules.add("bad", "tick", cron="0 8 * * *", time_zone="Mars/Olympus")
    with pytest.raises(ConfigError, match="interval"):
        await schedules.add("bad", "tick", every="1h", time_zone="Europe/Berlin")
    with pytest.raises(nats.js.errors.NotFoundError):
        await nc.jetstream().get_last_msg(
            Topology(settings).jobs_stream, Topology(settings).schedule_subject("bad")
        )
    plain = await schedules.add("plain", "tick", cron="0 8 * * *")
    assert plain.time_zone is None
    stored = await nc.jetstream().get_last_msg(
        Topology(settings).jobs_stream, Topology(settings).schedule_subject("plain")
    )
    assert SCHEDULE_TIME_ZONE not in (stored.headers or {})
    # A predefined pattern is a cron too: the server takes a zone with it.
    daily = await schedules.add("daily", "tick", cron="@daily", time_zone=KOLKATA)
    assert daily.pattern == "@daily"
    assert [(s.name, s.time_zone) for s in await schedules.entries()] == [("plain", None), ("daily", KOLKATA)]


async def test_the_server_refuses_what_the_client_checks(nc: NATS, settings: Settings) -> None:
    """Published by hand past the client's checks, a zone on `@every` and an unknown zone are
    refused by the server itself, so the client checks only give the refusal a clearer message."""
    topology = Topology(settings)
    await topology.ensure_queue(nc.jetstream(), "default")
    target = topology.job_subject("default", "normal", "tick")
    for pattern, zone in (("@every 3600s", "Europe/Berlin"), ("0 30 7 * * *", "Mars/Olympus")):
        with pytest.raises(nats.js.errors.BadRequestError):
            await nc.jetstream().publish(
                topology.schedule_subject("raw"),
                b"{}",
                headers=schedule_headers(pattern, target, zone),
                stream=topology.jobs_stream,
            )


async def test_schedule_add_tz_on_the_command_line(settings: Settings, nc: NATS) -> None:
    """`jetjobs schedule add --tz Europe/Berlin` says the zone, `list` shows it, and a bad zone
    exits 2 naming it."""
    added = await run_jetjobs(
        settings, "schedule", "add", "morning", "--cron", "30 7 * * *", "--tz", "Europe/Berlin", "tick"
    )
    assert added.returncode == 0, added.stderr
    assert b"0 30 7 * * * (Europe/Berlin)" in added.stdout
    plain = await run_jetjobs(settings, "schedule", "add", "nightly", "--cron", "0 3 * * *", "tick")
    assert b"0 0 3 * * * (UTC)" in plain.stdout
    listed = await run_jetjobs(settings, "schedule", "list")
    assert listed.returncode == 0, listed.stderr
    assert b"0 30 7 * * * (Europe/Berlin)" in listed.stdout
    assert b"0 0 3 * * * (UTC)" in listed.stdout
    as_json = await run_jetjobs(settings, "schedule", "list", "--json")
    zones = {s["name"]: s["time_zone"] for s in msgspec.json.decode(as_json.stdout)}
    assert zones == {"morning": "Europe/Berlin", "nightly": None}
    bad = await run_jetjobs(
        settings, "schedule", "add", "x", "--cron", "@daily", "--tz", "Nowhere/City", "tick"
    )
    assert bad.returncode == 2
    assert b"Nowhere/City" in bad.stderr
    interval = await run_jetjobs(
        settings, "schedule", "add", "x", "--every", "1h", "--tz", "Europe/Berlin", "tick"
    )
    assert interval.returncode == 2
    assert b"interval" in interval.stderr
