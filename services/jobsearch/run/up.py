"""`jobsearch up`: every service the pipeline needs, kept running, for schedules to fire into.

```
jobsearch up ─▶ fetch, dedupe, draft, export (the stages), runs (what schedules fire), digest
   a service that dies ─▶ started again after 1 s, 2 s, 4 s ... at most a minute apart, forever
   SIGINT/SIGTERM ─▶ every service hands back its jobs and stops; exit 0
   the NATS server gone ─▶ exit 3 (a supervisor such as systemd starts it again)
```

It is what `infra/systemd/jobsearch.service` and the compose file's `jobsearch` service run. With
`NATS_URL` unset the services share the embedded server this process starts (or joins), whose
file storage keeps the schedules across restarts.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

import anyio
import structlog
from nats.aio.client import Client as NATS

from jetjobs import ConfigError, Publisher, Schedule, Schedules, Settings
from jobsearch.digest import DIGEST_QUEUE
from jobsearch.jobs import QUEUES, RUNS_QUEUE, SCHEDULED_RUN, SERVICES, Service
from jobsearch.profile import ProfileError
from jobsearch.profile_location import profile_path
from jobsearch.run.children import ServiceFailed, StageServices
from jobsearch.run.fingerprint import OtherSettings, check_services
from jobsearch.run.orchestra import stop_on_signal
from jobsearch.run.schedule_command import describe_pattern
from jobsearch.run.server_watch import SERVER_LOST, ServerWatch, stop_when_lost
from jobsearch.run.start import read_profile
from jobsearch.run.summary import CANNOT_RUN

log = structlog.get_logger("jobsearch.run")


def _say(line: str) -> None:
    print(f"jobsearch up: {line}", flush=True)


async def cmd_up(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    """Start every service, restart any that dies, until a signal or the server's loss."""
    try:
        await check_services(nc, settings, starting_services=True)
    except OtherSettings as exc:
        print(f"jobsearch up: {exc}", file=sys.stderr)
        return CANNOT_RUN
    _check_profile(args.profile)
    publisher = Publisher(nc, settings)
    for queue in (*QUEUES.values(), RUNS_QUEUE, DIGEST_QUEUE):
        await publisher.topology.ensure_queue(publisher.js, queue)
    schedules = [s for s in await Schedules(publisher).entries() if s.job.type == SCHEDULED_RUN]
    watch = ServerWatch(nc, embedded=not settings.nats.url)
    stopped_by: list[int] = []

    def restarted(service: Service, count: int) -> None:
        _say(f"the {service} service exited; started it again ({count}); its jobs are redelivered")

    services = StageServices(
        list(SERVICES), concurrency=args.concurrency, on_restart=restarted, max_restarts=None
    )
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_on_signal, tg.cancel_scope, stopped_by)
            tg.start_soon(stop_when_lost, watch, tg.cancel_scope, lambda: services)
            async with services:
                running = ", ".join(f"{name} (pid {child.pid})" for name, child in services.current.items())
                _say(f"running {running} on {nc.connected_url.netloc if nc.connected_url else 'NATS'}")
                _say(_schedules_line(schedules))
                await anyio.sleep_forever()
    except ServiceFailed as exc:
        if not await watch.confirm():
            print(f"jobsearch up: a service did not start: {exc}", file=sys.stderr)
            return CANNOT_RUN
    if watch.lost.is_set():
        await watch.close()
        print(
            f"jobsearch up: the NATS server ({watch.server}) went away (no answer for "
            f"{watch.lost_after:g} s); the services stopped",
            file=sys.stderr,
        )
        return SERVER_LOST
    _say(f"stopped by {signal.Signals(stopped_by[0]).name if stopped_by else 'request'}")
    return 0


def _check_profile(given: str | None) -> None:
    """Say whether the profile (`--profile`, else the default one) can run; the schedules name
    their own files, so a bad one here is a warning, not a refusal."""
    path = profile_path(given, "up")
    if not path.exists():
        return
    try:
        read_profile(str(path))
    except (ProfileError, ConfigError, OSError) as exc:
        _say(f"warning: {exc}")


def _schedules_line(schedules: list[Schedule]) -> str:
    if not schedules:
        return "no schedule yet: add one with `jobsearch schedule add morning --daily 07:30`"
    names = ", ".join(f"{s.name} ({describe_pattern(s)})" for s in schedules)
    return f"schedules: {names}; stop with Ctrl-C"


def add_up_command(sub: Any) -> None:
    """Add `up` to the `jobsearch` parser."""
    p = sub.add_parser(
        "up",
        help="keep every service running (the stages, scheduled runs, digests) until stopped",
        description="Start the four stage services, the runs service (the runs schedules fire, "
        "one at a time) and the digest service, and start any that dies again (after a pause "
        "that doubles, at most a minute). What `jobsearch schedule add` needs running. Stops on "
        "SIGINT/SIGTERM (exit 0); exit 3 when the NATS server goes away.",
    )
    p.add_argument(
        "-c", "--concurrency", type=int, default=10, help="jobs each stage service runs at once (default 10)"
    )
    p.add_argument(
        "--profile",
        metavar="PROFILE",
        help="the profile to check at start (default $JOBSEARCH_PROFILE, else "
        "~/.config/jobsearch/profile.toml); each schedule reads the file it was added with",
    )
    p.set_defaults(func=cmd_up)
