"""The `jobsearch` command line.

Like `jetjobs`, every command connects to `NATS_URL`, or starts (or joins) the embedded server.
The pipeline's jobs live in its data dir's own namespace, `jobsearch-<id>` with the id stored in
the data dir's database (`jobsearch.store.identity`), unless `JETJOBS_NAMESPACE` says otherwise.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from nats.aio.client import Client as NATS

from jetjobs import (
    ConfigError,
    JetJobsError,
    Settings,
    configure_logging,
    load_settings,
    open_connection,
    run_worker,
    setup_tracing,
    shutdown_tracing,
)
from jobsearch.app import build_service
from jobsearch.finding.command import add_boards_commands
from jobsearch.fit.command import add_fit_commands
from jobsearch.insights.report_command import add_report_command
from jobsearch.jobs import SERVICES, Service
from jobsearch.local_commands import add_local_commands
from jobsearch.run import add_run_commands
from jobsearch.run.runs_command import add_runs_parser
from jobsearch.run.schedule_command import add_schedule_commands
from jobsearch.run.up import add_up_command
from jobsearch.settings import load_pipeline_settings
from jobsearch.stdout import closed_pipe
from jobsearch.store.identity import namespace_of
from jobsearch.tracker.commands import add_tracker_commands

Command = Callable[[argparse.Namespace, Settings, NATS], Awaitable[int]]


def pipeline_settings_env(db_path: Path | None = None) -> dict[str, str]:
    """The environment with the data dir's namespace filled in (unless `JETJOBS_NAMESPACE` is set).

    `db_path` names the database when a command was given one (`jobsearch ui --db`).

    Raises:
        ConfigError: the data dir's database cannot be opened or created.
    """
    env = dict(os.environ)
    if not env.get("JETJOBS_NAMESPACE"):
        db_path = db_path or load_pipeline_settings(env).db_path
        try:
            env["JETJOBS_NAMESPACE"] = namespace_of(db_path)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"the pipeline database {db_path} cannot be opened: {exc} "
                "(set JOBSEARCH_DATA_DIR or JOBSEARCH_DB to a writable place)"
            ) from None
    return env


async def cmd_serve(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    service: Service = args.stage
    async with AsyncExitStack() as resources:  # closes what the stage opened (its HTTP client)
        app, queues, held_to = build_service(service, resources)
        await run_worker(
            app,
            nc,
            settings,
            queues=queues,
            concurrency=held_to or args.concurrency,
            metrics_port=args.metrics_port,
        )
    return 0


async def cmd_ui(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    # The web stack (starlette, jinja2, uvicorn) loads only for this command.
    from jetjobs import Publisher  # noqa: PLC0415
    from jetjobs.ui import access_token, bind, serve  # noqa: PLC0415
    from jobsearch.profile import load_profile  # noqa: PLC0415
    from jobsearch.profile_location import default_profile_path  # noqa: PLC0415
    from jobsearch.ui import build_review_app  # noqa: PLC0415

    db_path = args.db or load_pipeline_settings().db_path
    chosen = args.profile or (default_profile_path() if default_profile_path().exists() else None)
    profile = load_profile(chosen) if chosen else None
    sock = bind(args.host, args.port)
    token = access_token(args.host, args.token)
    app = build_review_app(
        db_path, publisher=Publisher(nc, settings), profile=profile, token=token, loopback=token is None
    )
    await serve(app, sock, token=token, name=f"jobsearch ui ({db_path})")
    return 0


def _add_ui_command(sub: Any) -> None:
    p = sub.add_parser(
        "ui",
        help="serve the review page: listings, drafts, statuses",
        description="A local web page over the pipeline's SQLite (safe while a run writes to it). "
        "Loopback unless --host says otherwise, and then only with a token.",
    )
    p.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8322, help="port (default 8322; 0: any free port)")
    p.add_argument(
        "--token",
        default=os.environ.get("JOBSEARCH_UI_TOKEN"),
        help="access token off loopback (default $JOBSEARCH_UI_TOKEN, else a new random one)",
    )
    p.add_argument("--db", type=Path, help="the SQLite state of record (default $JOBSEARCH_DB)")
    p.add_argument(
        "--profile",
        type=Path,
        default=os.environ.get("JOBSEARCH_PROFILE") or None,
        help="the profile TOML that re-drafts write from (default $JOBSEARCH_PROFILE, else "
        "~/.config/jobsearch/profile.toml if it exists; "
        "without one the page does not offer re-drafting)",
    )
    p.set_defaults(func=cmd_ui)


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
        help="run one pipeline stage (or the runs or digest service) as a service",
        description="Run STAGE as its own service: a jetjobs worker over the stage's queue. "
        "`runs` takes the runs that schedules fire (one at a time); `digest` sends the runs' digests.",
    )
    p.add_argument("stage", choices=SERVICES, metavar="STAGE", help=f"one of: {', '.join(SERVICES)}")
    p.add_argument("-c", "--concurrency", type=int, default=10, help="jobs run at once (default 10)")
    p.add_argument("--metrics-port", type=int, metavar="PORT", help="serve Prometheus metrics on PORT")
    p.set_defaults(func=cmd_serve)
    add_run_commands(sub)
    add_up_command(sub)
    add_schedule_commands(sub)
    add_tracker_commands(sub)
    add_runs_parser(sub)
    add_local_commands(sub)
    add_boards_commands(sub)
    add_fit_commands(sub)
    add_report_command(sub)
    _add_ui_command(sub)
    return parser


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    func: Command = args.func
    async with open_connection(settings.nats, name=f"jobsearch-{args.command}") as nc:
        return await func(args, settings, nc)


def service_name(args: argparse.Namespace) -> str:
    """The OTel service name of a command: `jobsearch-fetch` for `serve fetch`, `jobsearch-run`...

    `OTEL_SERVICE_NAME` overrides it (for every process a run starts, since they share the
    environment).
    """
    return f"jobsearch-{args.stage if args.command == 'serve' else args.command}"


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
        # With OTEL_EXPORTER_OTLP_ENDPOINT set, spans go to the collector: one search is one trace
        # from the run's publish of the search through every stage service (docs/observability.md).
        setup_tracing(service_name(args))
        try:
            return anyio.run(_run, args, load_settings(pipeline_settings_env(getattr(args, "db", None))))
        finally:
            shutdown_tracing()
    except JetJobsError as exc:
        print(f"jobsearch: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return closed_pipe()


if __name__ == "__main__":
    sys.exit(main())
