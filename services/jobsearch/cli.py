"""The `jobsearch` command line.

Like `jetjobs`, every command connects to `NATS_URL`, or starts (or joins) the embedded server.
The pipeline's jobs live in the `jobsearch` namespace unless `JETJOBS_NAMESPACE` says otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
from nats.aio.client import Client as NATS

from jetjobs import JetJobsError, Settings, load_settings, open_connection, run_worker
from jetjobs.log import configure_logging
from jobsearch.app import build_app
from jobsearch.jobs import QUEUES, STAGES, Stage
from jobsearch.local_commands import add_local_commands
from jobsearch.run import add_run_commands
from jobsearch.tracker.commands import add_tracker_commands

Command = Callable[[argparse.Namespace, Settings, NATS], Awaitable[int]]
NAMESPACE = "jobsearch"


def pipeline_settings_env() -> dict[str, str]:
    """The environment with the pipeline's default namespace filled in."""
    env = dict(os.environ)
    env.setdefault("JETJOBS_NAMESPACE", NAMESPACE)
    return env


async def cmd_serve(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    stage: Stage = args.stage
    async with AsyncExitStack() as resources:  # closes what the stage opened (its HTTP client)
        await run_worker(
            build_app([stage], resources),
            nc,
            settings,
            queues=[QUEUES[stage]],
            concurrency=args.concurrency,
            metrics_port=args.metrics_port,
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(
        prog="jobsearch",
        description="Fetch job listings from public boards, de-duplicate them, draft cover letters "
        "and connection notes, and keep a tracker. It drafts; it never submits an application.",
    )
    parser.add_argument("--log-format", choices=["auto", "json", "console"], default="auto")
    parser.add_argument("--loglevel", default="INFO", help="DEBUG, INFO, WARNING, ERROR (default INFO)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "serve",
        help="run one pipeline stage as a service",
        description="Run STAGE as its own service: a jetjobs worker over the stage's queue.",
    )
    p.add_argument("stage", choices=STAGES, metavar="STAGE", help=f"one of: {', '.join(STAGES)}")
    p.add_argument("-c", "--concurrency", type=int, default=10, help="jobs run at once (default 10)")
    p.add_argument("--metrics-port", type=int, metavar="PORT", help="serve Prometheus metrics on PORT")
    p.set_defaults(func=cmd_serve)
    add_run_commands(sub)
    add_tracker_commands(sub)
    add_local_commands(sub)
    return parser


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    func: Command = args.func
    async with open_connection(settings.nats, name=f"jobsearch-{args.command}") as nc:
        return await func(args, settings, nc)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `jobsearch` console script."""
    args = build_parser().parse_args(argv)
    configure_logging(
        json=None if args.log_format == "auto" else args.log_format == "json", level=args.loglevel
    )
    try:
        local = getattr(args, "local", None)
        if callable(local):  # no server needed
            code: int = local(args)
            return code
        func: Any = args.func
        if not callable(func):
            return 2
        return anyio.run(_run, args, load_settings(pipeline_settings_env()))
    except JetJobsError as exc:
        print(f"jobsearch: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
