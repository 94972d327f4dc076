"""The `jetjobs` command line.

Every command connects to `NATS_URL`, or starts (or joins) the embedded server when it is unset.
Settings come from `JETJOBS_*` variables (see `jetjobs._settings`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import msgspec
from nats.aio.client import Client as NATS

from jetjobs._cli.example import run_example
from jetjobs._cli.inspect_commands import cmd_dlq, cmd_info, cmd_status, cmd_workers, print_json
from jetjobs._cli.log_commands import add_delay_options, add_job_arguments, add_log_commands, run_at_from
from jetjobs._cli.schemas import check_schemas, write_schemas
from jetjobs._demo.kill_worker import run_kill_worker
from jetjobs._errors import ConfigError, JetJobsError
from jetjobs._liveness.supervisor import Supervisor
from jetjobs._observability import telemetry
from jetjobs._observability.log import configure_logging
from jetjobs._runtime.app import App
from jetjobs._runtime.worker import new_worker_id, run_worker
from jetjobs._settings import Settings, load_settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.connection import open_connection
from jetjobs._version import VERSION as __version__

Command = Callable[[argparse.Namespace, Settings, NATS], Awaitable[int]]


def load_app(spec: str) -> App:
    """Import `module:attribute` and return the App it names.

    Raises:
        ConfigError: the module or attribute is missing, or is not an App.
    """
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"worker APP must look like 'package.module:app', got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")  # like `python -m`, find modules in the current directory
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import {module_name!r} ({exc})") from None
    app = getattr(module, attr, None)
    if not isinstance(app, App):
        raise ConfigError(f"{spec} is not a jetjobs.App (found {type(app).__name__})")
    return app


async def cmd_worker(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    app = load_app(args.app)
    queues = [q for q in args.queues.split(",") if q]
    await run_worker(
        app, nc, settings, queues=queues, concurrency=args.concurrency, metrics_port=args.metrics_port
    )
    return 0


async def cmd_enqueue(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    try:
        payload = json.loads(args.payload)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"PAYLOAD is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise ConfigError('PAYLOAD must be a JSON object, e.g. \'{"to": "a@example.com"}\'')
    publisher = Publisher(nc, settings)
    try:
        result = await publisher.enqueue(
            args.type,
            payload,
            queue=args.queue,
            priority=args.priority,
            key=args.key,
            max_attempts=args.max_attempts,
            timeout=args.timeout,
            run_at=run_at_from(args),
        )
    except msgspec.ValidationError as exc:
        raise ConfigError(f"invalid job: {exc}") from None
    print_json(result)
    return 0


async def cmd_supervisor(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    supervisor = Supervisor(nc, settings, supervisor_id=f"supervisor-{new_worker_id()}")
    async with anyio.create_task_group() as tg:
        tg.start_soon(supervisor.run)
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for _ in signals:
                break
        tg.cancel_scope.cancel()
    return 0


async def cmd_ui(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    # The web stack (starlette, jinja2, uvicorn) loads only for this command.
    from jetjobs.ui import access_token, bind, serve  # noqa: PLC0415
    from jetjobs.ui._ops import build_ops_app  # noqa: PLC0415

    sock = bind(args.host, args.port)
    token = access_token(args.host, args.token)
    app = build_ops_app(nc, settings, allow_actions=args.allow_actions, token=token, loopback=token is None)
    await serve(app, sock, token=token, name=f"jetjobs ui ({settings.namespace})")
    return 0


async def cmd_example(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    return await run_example(nc, settings, jobs=args.jobs, concurrency=args.concurrency)


async def cmd_demo(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    if args.workers < 2:
        raise ConfigError("demo kill-worker needs --workers 2 or more: one to kill, one to recover")
    return await run_kill_worker(
        nc, settings, jobs=args.jobs, workers=args.workers, concurrency=args.concurrency
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(
        prog="jetjobs",
        description="Durable jobs on NATS JetStream. Connects to NATS_URL, or runs an embedded "
        "nats-server when NATS_URL is unset.",
    )
    parser.add_argument("--version", action="version", version=f"jetjobs {__version__}")
    parser.add_argument("--log-format", choices=["auto", "json", "console"], default="auto")
    parser.add_argument(
        "--loglevel",
        help="DEBUG, INFO, WARNING, ERROR (default INFO; WARNING for `example` and `demo`, whose "
        "summaries are the point)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_job_commands(sub)
    _add_operator_commands(sub)
    add_log_commands(sub)
    return parser


def _add_job_commands(sub: Any) -> None:
    """worker, enqueue, status."""
    p = sub.add_parser(
        "worker",
        help="start a worker process",
        description="Start a worker that "
        "runs the handlers of APP (like `celery -A proj worker` or `dramatiq module`).",
    )
    p.add_argument("app", metavar="MODULE:APP", help="the jetjobs.App to run, e.g. myproj.jobs:app")
    p.add_argument("-Q", "--queues", default="default", help="comma-separated queues (default: default)")
    p.add_argument("-c", "--concurrency", type=int, default=10, help="jobs run at once (default 10)")
    p.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        help="serve Prometheus metrics on http://127.0.0.1:PORT/metrics (0: any free port)",
    )
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser(
        "enqueue",
        help="submit a job",
        description="Submit one job; prints its id and whether the stream saw it as a duplicate.",
    )
    add_job_arguments(p, type_help="job type, e.g. email.send")
    p.add_argument("-k", "--key", help="idempotency key (Nats-Msg-Id); default the job id")
    add_delay_options(p)
    p.set_defaults(func=cmd_enqueue)

    p = sub.add_parser("status", help="show a job's status", description="Show a job's ledger entry.")
    p.add_argument("id", metavar="ID")
    p.set_defaults(func=cmd_status)


def _add_operator_commands(sub: Any) -> None:
    """dlq, info, workers, supervisor, example, schemas."""
    p = sub.add_parser("dlq", help="list, inspect, requeue or purge dead letters")
    dlq = p.add_subparsers(dest="dlq_command", required=True, metavar="ACTION")
    q = dlq.add_parser("list", help="list dead letters")
    q.add_argument("--type", help="only this job type")
    q = dlq.add_parser("show", help="show one dead letter with its original message")
    q.add_argument("id", metavar="ID")
    q = dlq.add_parser("requeue", help="submit dead jobs again (attempts start over)")
    q.add_argument("id", metavar="ID", nargs="?")
    q.add_argument("--all", action="store_true", help="requeue every dead letter")
    q.add_argument("--type", help="with --all: only this job type")
    dlq.add_parser("purge", help="delete every dead letter")
    p.set_defaults(func=cmd_dlq)

    p = sub.add_parser("info", help="streams, consumers, pending and redelivered counts")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("workers", help="list live workers: queues, in-flight jobs, heartbeat age")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_workers)

    p = sub.add_parser(
        "supervisor",
        help="run a standalone supervisor (recovers dead workers' jobs)",
        description="Watch worker heartbeats; when one expires, NAK the dead worker's jobs so they "
        "run again at once. Workers run one too; only the elected one acts.",
    )
    p.set_defaults(func=cmd_supervisor)

    p = sub.add_parser(
        "ui",
        help="serve the operations page: workers, queues, dead letters, replays",
        description="A local web page over this deployment. Read-only unless --allow-actions; "
        "loopback unless --host says otherwise, and then only with a token.",
    )
    p.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8321, help="port (default 8321; 0: any free port)")
    p.add_argument(
        "--token",
        default=os.environ.get("JETJOBS_UI_TOKEN"),
        help="access token off loopback (default $JETJOBS_UI_TOKEN, else a new random one)",
    )
    p.add_argument(
        "--allow-actions",
        action="store_true",
        help="offer requeue, purge, replay and cancel (each asks for a confirmation)",
    )
    p.set_defaults(func=cmd_ui)

    p = sub.add_parser("example", help="run the example app: a worker and a batch of jobs")
    p.add_argument("--jobs", type=int, default=1000)
    p.add_argument("-c", "--concurrency", type=int, default=20)
    p.set_defaults(func=cmd_example)

    p = sub.add_parser(
        "demo",
        help="prove a claim with real processes: kill-worker",
        description="kill-worker: run worker processes, SIGKILL one mid-run, and print a ledger of "
        "what was completed, lost, run twice and why.",
    )
    p.add_argument("action", choices=["kill-worker"])
    p.add_argument("--jobs", type=int, default=10000)
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("-c", "--concurrency", type=int, default=16, help="jobs per worker at once (default 16)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("schemas", help="write or check the JSON Schemas of the wire messages")
    p.add_argument("directory", type=Path, help="usually ./schemas")
    p.add_argument("--check", action="store_true", help="exit 1 if the files are stale")
    p.set_defaults(func=None)


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    func: Command = args.func
    async with open_connection(settings.nats, name=f"jetjobs-{args.command}") as nc:
        return await func(args, settings, nc)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `jetjobs` console script."""
    args = build_parser().parse_args(argv)
    configure_logging(
        json=None if args.log_format == "auto" else args.log_format == "json",
        level=args.loglevel or ("WARNING" if args.command in ("example", "demo") else "INFO"),
    )
    try:
        if args.command == "schemas":
            if args.check:
                stale = check_schemas(args.directory)
                for name in stale:
                    print(f"stale: {args.directory / name}", file=sys.stderr)
                return 1 if stale else 0
            write_schemas(args.directory)
            return 0
        telemetry.setup_tracing(f"jetjobs-{args.command}")
        try:
            code = anyio.run(_run, args, load_settings())
            sys.stdout.flush()  # a pipe's reader may be gone: find out here, not at interpreter exit
            return code
        finally:
            telemetry.shutdown_tracing()
    except BrokenPipeError:
        return _reader_gone()
    except JetJobsError as exc:
        print(f"jetjobs: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _reader_gone() -> int:
    """The reader of stdout went away (`jetjobs info | head`): stop quietly, as Unix tools do."""
    # Python's own flush of stdout at exit would fail again and print a warning: point it nowhere.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE  # what a shell reports for a tool that SIGPIPE stopped


if __name__ == "__main__":
    sys.exit(main())
