"""`jobsearch schedule add | list | remove`: runs that happen with nobody typing `jobsearch run`.

A schedule is the platform's (`jetjobs.Schedules`, kept by the NATS server in the JOBS stream, so
it survives restarts); each firing is a `jobsearch.scheduled_run` job on `jobsearch-runs`, which
`jobsearch up` serves (`jobsearch.run.scheduled`). `--daily 07:30` is in the person's time zone
(`--tz`, default this machine's), so a morning run stays at 07:30 across daylight-saving changes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import anyio
import msgspec
from nats.aio.client import Client as NATS

from jetjobs import ConfigError, Publisher, Schedule, Schedules, Settings, live_workers
from jobsearch.jobs import RUNS_QUEUE, SCHEDULED_RUN, ScheduledRunJob
from jobsearch.profile import ProfileError
from jobsearch.profile_location import profile_path
from jobsearch.run.scheduled import RUN_TIMEOUT, remember_digest
from jobsearch.run.start import read_profile
from jobsearch.run.summary import CANNOT_RUN
from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store
from jobsearch.store.run_history import PastRun, latest_runs

_DAILY = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_DAILY_CRON = re.compile(r"^0 (\d{1,2}) (\d{1,2}) \* \* \*$")
# A scheduled run lost with its worker is run again, a couple of times: each is the whole run.
_ATTEMPTS = 3


def local_zone() -> str:
    """This machine's IANA time zone (`$TZ`, else `/etc/localtime`'s target), else UTC."""
    given = os.environ.get("TZ", "").lstrip(":")
    candidates = [given] if given else []
    try:
        target = os.path.realpath("/etc/localtime")
        if "/zoneinfo/" in target:
            candidates.append(target.split("/zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            continue
        return name
    return "UTC"


def daily_cron(at: str) -> str:
    """`07:30` as the server's 6-field cron (seconds first).

    Raises:
        ConfigError: not HH:MM.
    """
    match = _DAILY.match(at.strip())
    if match is None:
        raise ConfigError(f"--daily {at!r}: write the time as HH:MM, e.g. 07:30")
    return f"0 {int(match.group(2))} {int(match.group(1))} * * *"


def schedule_name(profile: Path) -> str:
    """A schedule's default name: the profile file's stem, in the letters a name may have."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", profile.stem).strip("-")[:64]
    return name if name and name != "at" else "profile"


def describe_pattern(schedule: Schedule) -> str:
    """`every day at 07:30 Europe/Berlin`, `every 6h`, or the cron pattern and its zone."""
    zone = schedule.time_zone or "UTC"
    daily = _DAILY_CRON.match(schedule.pattern)
    if daily is not None:
        return f"every day at {int(daily.group(2)):02d}:{int(daily.group(1)):02d} {zone}"
    if schedule.pattern.startswith("@every "):
        return f"every {schedule.pattern.removeprefix('@every ')}"
    return f"{schedule.pattern} {zone}"


def next_daily(pattern: str, zone: str, now: datetime | None = None) -> datetime | None:
    """When a daily schedule fires next, in its zone (None for other patterns)."""
    daily = _DAILY_CRON.match(pattern)
    if daily is None:
        return None
    tz = ZoneInfo(zone)
    now = (now or datetime.now(tz)).astimezone(tz)
    at = now.replace(hour=int(daily.group(2)), minute=int(daily.group(1)), second=0, microsecond=0)
    return at if at > now else (at + timedelta(days=1)).replace(tzinfo=tz)


async def cmd_schedule(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    """`jobsearch schedule add|list|remove`."""
    publisher = Publisher(nc, settings)
    schedules = Schedules(publisher)
    if args.schedule_command == "add":
        return await _add(args, publisher, schedules)
    if args.schedule_command == "list":
        return await _list(args, schedules)
    found = {s.name for s in await schedules.entries() if s.job.type == SCHEDULED_RUN}
    if args.name not in found or not await schedules.remove(args.name):
        print(f"jobsearch schedule: no schedule named {args.name}", file=sys.stderr)
        return 1
    print(f"removed schedule {args.name}; the runs it made stay in `jobsearch runs`")
    return 0


async def _add(args: argparse.Namespace, publisher: Publisher, schedules: Schedules) -> int:
    path = profile_path(args.profile, "schedule add").resolve()
    try:
        profile = read_profile(str(path))  # refused now, not at 07:30 with nobody watching
    except (ProfileError, ConfigError, OSError) as exc:
        print(f"jobsearch schedule add: {exc}", file=sys.stderr)
        return CANNOT_RUN
    zone: str | None = None
    if args.every:
        if args.tz:
            raise ConfigError("--tz goes with --daily or --cron; --every counts from when it was added")
        cron, every = None, args.every
    else:
        zone = args.tz or local_zone()
        cron, every = (daily_cron(args.daily) if args.daily else args.cron), None
    name = args.name or schedule_name(path)
    job = ScheduledRunJob(schedule=name, profile_path=str(path))
    added = await schedules.add(
        name,
        SCHEDULED_RUN,
        job,
        cron=cron,
        every=every,
        time_zone=zone,
        queue=RUNS_QUEUE,
        timeout=RUN_TIMEOUT,
        max_attempts=_ATTEMPTS,
    )
    db_path = load_pipeline_settings().db_path
    await anyio.to_thread.run_sync(remember_digest, db_path, name, profile.digest)
    line = f"schedule {added.name}: {describe_pattern(added)}, runs {path}"
    upcoming = next_daily(added.pattern, zone) if zone else None
    if upcoming is not None:
        line += f"; next at {upcoming:%Y-%m-%d %H:%M %Z}"
    print(line)
    if not profile.digest.enabled:
        print("  no [digest] in the profile: see each run with `jobsearch runs` (docs/digest.md adds one)")
    served = {q for beat in await live_workers(publisher.nc, publisher.settings) for q in beat.queues}
    if RUNS_QUEUE not in served:
        print("  nothing serves scheduled runs yet: keep `jobsearch up` running (docs/run.md)")
    return 0


async def _list(args: argparse.Namespace, schedules: Schedules) -> int:
    found = [s for s in await schedules.entries() if s.job.type == SCHEDULED_RUN]
    db_path = load_pipeline_settings().db_path
    last = await anyio.to_thread.run_sync(_last_runs, db_path)
    rows: list[dict[str, Any]] = []
    for s in found:
        job = msgspec.convert(s.job.payload, ScheduledRunJob)
        run = last.get(f"schedule:{s.name}")
        rows.append(
            {
                "name": s.name,
                "when": describe_pattern(s),
                "pattern": s.pattern,
                "time_zone": s.time_zone,
                "profile": job.profile_path,
                "last_run": None
                if run is None
                else {"run_id": run.run_id, "started_at": run.started_at.isoformat(), "outcome": run.outcome},
            }
        )
    if args.json:
        print(msgspec.json.encode(rows).decode())
        return 0
    if not rows:
        print("no schedules: add one with `jobsearch schedule add morning --daily 07:30`")
        return 0
    for row in rows:
        run = row["last_run"]
        ran = f"last run {run['started_at'][:16]} {run['outcome'] or 'running'}" if run else "not run yet"
        print(f"{row['name']:<16} {row['when']:<36} {ran:<36} {row['profile']}")
    return 0


def _last_runs(db_path: Path) -> dict[str, PastRun]:
    """The latest run of each schedule, from the state of record."""
    with Store.open(db_path) as store:
        return latest_runs(store.conn, "schedule:")


def add_schedule_commands(sub: Any) -> None:
    """Add `schedule add|list|remove` to the `jobsearch` parser."""
    p = sub.add_parser(
        "schedule",
        help="run the search on a schedule (kept by the server; served by `jobsearch up`)",
        description="Schedules whose firings run `jobsearch run` with nobody at a terminal. They "
        "live in the NATS server (so they survive restarts) and need `jobsearch up` running.",
    )
    actions = p.add_subparsers(dest="schedule_command", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="add (or replace) a schedule")
    add.add_argument("name", nargs="?", help="its name (default the profile file's name: me.toml, me)")
    when = add.add_mutually_exclusive_group(required=True)
    when.add_argument("--daily", metavar="HH:MM", help="every day at this time (in --tz)")
    when.add_argument("--every", metavar="DURATION", help="every DURATION (6h, 90m) from when it is added")
    when.add_argument("--cron", metavar="EXPR", help="a cron expression (5 fields, or 6 with seconds first)")
    add.add_argument(
        "--tz", metavar="ZONE", help="an IANA time zone (default this machine's, e.g. Europe/Berlin)"
    )
    add.add_argument(
        "--profile",
        metavar="PROFILE",
        help="the profile each run reads (default $JOBSEARCH_PROFILE, else ~/.config/jobsearch/profile.toml)",
    )
    listing = actions.add_parser("list", help="the schedules, and how each one's last run went")
    listing.add_argument("--json", action="store_true", help="as JSON")
    remove = actions.add_parser("remove", help="remove a schedule (its runs stay recorded)")
    remove.add_argument("name")
    for parser in (add, listing, remove):
        parser.set_defaults(func=cmd_schedule)
