"""The commands that operate the log: `jetjobs replay`, `jetjobs schedule ...`, `jetjobs cancel`.

Also `--at` / `--in` of `jetjobs enqueue`. `jetjobs._cli.main` wires these into its parser; the work
itself is in `jetjobs._joblog.replay`, `jetjobs._joblog.schedule` and `jetjobs._joblog.cancel`.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

import msgspec
from nats.aio.client import Client as NATS

from jetjobs._errors import ConfigError
from jetjobs._joblog.cancel import cancel
from jetjobs._joblog.replay import ReplayReport, plan_replay, replay
from jetjobs._joblog.schedule import Schedule, Schedules
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._wire.envelope import DEFAULT_OPTIONS, PRIORITIES, utcnow
from jetjobs._wire.timespec import parse_duration, parse_time, rfc3339


def _print_json(data: Any) -> None:
    print(json.dumps(msgspec.to_builtins(data), indent=2, default=str))


def add_delay_options(parser: argparse.ArgumentParser) -> None:
    """`--at TIME | --in DURATION` for `jetjobs enqueue`."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--at", metavar="TIME", help="run at this RFC 3339 time (held by the server)")
    group.add_argument("--in", dest="delay", metavar="DURATION", help="run after this long, e.g. 10m")


def run_at_from(args: argparse.Namespace) -> datetime | None:
    """The `run_at` that `--at` or `--in` asks for, or None."""
    if getattr(args, "at", None):
        return parse_time(args.at, future=True)
    if getattr(args, "delay", None):
        return utcnow() + parse_duration(args.delay)
    return None


async def cmd_replay(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    plan = plan_replay(
        args.since,
        until=args.until,
        job_type=args.type,
        subject=args.subject,
        status=args.status,
        rate=args.rate,
        replay_id=args.replay_id,
        include_replays=args.include_replays,
        again=args.again,
    )
    report = await replay(nc, settings, plan, dry_run=args.dry_run)
    if args.json:
        _print_json({"plan": plan, "report": report})
        return 0
    until = rfc3339(plan.until) if plan.until else "the end of the log as of the start"
    print(f"replay {plan.replay_id}: {rfc3339(plan.since)} to {until}")
    _print_report(report)
    again = f"--since {rfc3339(plan.since)}" + (f" --until {rfc3339(plan.until)}" if plan.until else "")
    print(f"  run again safely with: {again} --replay-id {plan.replay_id}")
    if report.replayed_before:
        print(
            f"note: {report.replayed_before} job(s) in this window were replayed before by another replay "
            "(a relative --since makes a new replay each time it is typed), so this one left them alone; "
            "add --again to replay them once more",
            file=sys.stderr,
        )
    return 0


def _print_report(report: ReplayReport) -> None:
    types = ", ".join(f"{name} {count}" for name, count in sorted(report.by_type.items()))
    print(f"  matched            {report.matched}" + (f"  ({types})" if types else ""))
    if report.first_at and report.last_at:
        print(f"  first / last       {rfc3339(report.first_at)} / {rfc3339(report.last_at)}")
    if report.dry_run:
        print(f"  would publish      {report.to_publish} (dry run: nothing published)")
    else:
        print(f"  published          {report.published}")
    print(f"  already replayed   {report.already_replayed}")
    print(
        f"  replayed before    {report.replayed_before} (by another replay; --again replays them once more)"
    )
    print(f"  skipped, invalid   {report.skipped_invalid} (messages in the window that are not valid jobs)")
    print(f"  skipped, status    {report.skipped_status}")
    print(f"  skipped, own       {report.skipped_own} (jobs this replay published)")
    print(f"  skipped, repeats   {report.skipped_repeats} (stored twice in the window: replayed once)")
    print(
        f"  skipped, replays   {report.skipped_replays} (jobs that are replays; --include-replays takes them)"
    )


def _when(schedule: Schedule) -> str:
    """`0 30 7 * * * (Asia/Kolkata)`: a cron with the zone it is read in; an interval as it is."""
    if schedule.pattern.startswith("@every "):
        return schedule.pattern  # an interval has no wall clock, so no zone to show
    return f"{schedule.pattern} ({schedule.time_zone or 'UTC'})"


async def cmd_schedule(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    schedules = Schedules(Publisher(nc, settings))
    if args.schedule_command == "add":
        try:
            payload = json.loads(args.payload)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"PAYLOAD is not valid JSON: {exc}") from None
        try:
            added = await schedules.add(
                args.name,
                args.type,
                payload,
                cron=args.cron,
                every=args.every,
                time_zone=args.tz,
                queue=args.queue,
                priority=args.priority,
                max_attempts=args.max_attempts,
                timeout=args.timeout,
            )
        except msgspec.ValidationError as exc:
            raise ConfigError(f"invalid job: {exc}") from None
        print(f"schedule {added.name}: {_when(added)} -> {added.job.type} on {added.job.queue}")
        return 0
    if args.schedule_command == "list":
        found = await schedules.entries()
        if args.json:
            _print_json(found)
            return 0
        for s in found:
            print(
                f"{s.name:<24} {_when(s):<36} {s.job.type:<24} {s.job.queue}/{s.job.priority:<8} "
                f"{json.dumps(s.job.payload)[:60]}"
            )
        print(f"{len(found)} schedule(s)")
        return 0
    if not await schedules.remove(args.name):
        print(f"no schedule named {args.name}", file=sys.stderr)
        return 1
    print(f"removed schedule {args.name}")
    return 0


async def cmd_cancel(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    result = await cancel(nc, settings, args.id, reason=args.reason)
    if result.outcome == "unknown":
        print(f"no status for job {args.id} (unknown id, or older than JETJOBS_STATUS_TTL)", file=sys.stderr)
        return 1
    if result.outcome == "finished":
        print(f"job {args.id} already finished: {result.previous}", file=sys.stderr)
        return 1
    print(
        f"cancelled {args.id} (was {result.previous}{', its schedule deleted' if result.unscheduled else ''})"
    )
    return 0


def add_job_arguments(parser: argparse.ArgumentParser, *, type_help: str) -> None:
    """TYPE, JSON and the envelope options shared by `enqueue` and `schedule add`."""
    parser.add_argument("type", metavar="TYPE", help=type_help)
    parser.add_argument("payload", metavar="JSON", nargs="?", default="{}", help="payload, a JSON object")
    defaults = DEFAULT_OPTIONS
    parser.add_argument("-p", "--priority", choices=PRIORITIES, default=defaults.priority)
    parser.add_argument("-Q", "--queue", default=defaults.queue)
    parser.add_argument("--max-attempts", type=int, default=defaults.max_attempts)
    parser.add_argument(
        "--timeout",
        type=float,
        default=defaults.timeout,
        help=f"seconds per attempt (default {defaults.timeout:g})",
    )


def add_log_commands(sub: Any) -> None:
    """replay, schedule, cancel."""
    p = sub.add_parser(
        "replay",
        help="run again, as new jobs, the jobs of a time window",
        description="Read the JOBS stream from --since and republish the matching jobs as new jobs "
        "(replay_of = the original id). Running the same replay again publishes nothing twice; "
        "jobs that are replays, and jobs another replay already replayed, are left alone unless "
        "--include-replays or --again says otherwise.",
    )
    p.add_argument(
        "--since", required=True, metavar="TIME", help="a duration ago (90s, 15m, 1h, 2d) or RFC 3339"
    )
    p.add_argument("--until", metavar="TIME", help="stop here (default: the end of the log as of the start)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--type", help="only this job type")
    which.add_argument("--subject", help="only this subject filter, e.g. 'ns.jobs.reports.>'")
    p.add_argument(
        "--status", choices=["succeeded", "dead", "any"], default="any", help="the original's state"
    )
    p.add_argument("--dry-run", action="store_true", help="count what would be replayed; publish nothing")
    p.add_argument("--rate", metavar="N/s", help="at most N publishes per second")
    p.add_argument("--replay-id", help="the replay's identity (default: derived from the window and filters)")
    p.add_argument(
        "--include-replays",
        action="store_true",
        help="replay jobs that are themselves replays too (default: leave them alone)",
    )
    p.add_argument(
        "--again",
        action="store_true",
        help="replay jobs that another replay already replayed, once more (default: leave them alone)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("schedule", help="add, list or remove recurring jobs (kept by the server)")
    actions = p.add_subparsers(dest="schedule_command", required=True, metavar="ACTION")
    q = actions.add_parser("add", help="add (or replace) a named schedule")
    q.add_argument("name", metavar="NAME")
    when = q.add_mutually_exclusive_group(required=True)
    when.add_argument(
        "--cron", help="cron in --tz (default UTC): 5 fields ('0 8 * * *'), 6 (seconds first), or @daily"
    )
    when.add_argument("--every", metavar="DURATION", help="a fixed interval, e.g. 1h (at least 1s)")
    q.add_argument(
        "--tz",
        metavar="ZONE",
        help="the IANA time zone the cron is read in, e.g. Europe/Berlin (server 2.14+)",
    )
    add_job_arguments(q, type_help="job type, e.g. report.build")
    q = actions.add_parser("list", help="list the named schedules")
    q.add_argument("--json", action="store_true")
    q = actions.add_parser("remove", help="delete a schedule (jobs it already fired still run)")
    q.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_schedule)

    p = sub.add_parser(
        "cancel",
        help="cancel a job: never started if queued, told to stop if running",
        description="Mark the job cancelled in the ledger. A queued or delayed job never runs; a "
        "running job's handler sees ctx.cancelled, and its result is not recorded.",
    )
    p.add_argument("id", metavar="ID")
    p.add_argument("--reason", help="recorded in the ledger entry")
    p.set_defaults(func=cmd_cancel)
