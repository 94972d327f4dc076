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

from jetjobs._cli.demo import run_kill_worker
from jetjobs._cli.example import run_example
from jetjobs._cli.log_commands import add_delay_options, add_job_arguments, add_log_commands, run_at_from
from jetjobs._errors import ConfigError, JetJobsError
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.coverage import coverage
from jetjobs._liveness.supervisor import Supervisor, current_leader, live_workers, served_queues
from jetjobs._observability import telemetry
from jetjobs._observability.log import configure_logging
from jetjobs._runtime.app import App
from jetjobs._runtime.worker import new_worker_id, run_worker
from jetjobs._settings import Settings, load_settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.connection import open_connection
from jetjobs._transport.connection_events import server_address
from jetjobs._transport.topology import Topology
from jetjobs._version import VERSION as __version__
from jetjobs._wire.envelope import utcnow
from jetjobs._wire.schemas import check_schemas, write_schemas

Command = Callable[[argparse.Namespace, Settings, NATS], Awaitable[int]]


def _print(data: Any) -> None:
    print(json.dumps(msgspec.to_builtins(data), indent=2, default=str))


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
    _print(result)
    return 0


async def cmd_status(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    record, revision = await Ledger(await topology.status_kv(js)).get(args.id)
    if record is None:
        print(f"no status for job {args.id} (unknown id, or older than JETJOBS_STATUS_TTL)", file=sys.stderr)
        return 1
    _print({"revision": revision, **msgspec.structs.asdict(record)})
    return 0


async def _dead_letters(settings: Settings, nc: NATS) -> DeadLetters:
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    return DeadLetters(js, topology, Ledger(await topology.status_kv(js)))


async def cmd_dlq(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    dlq = await _dead_letters(settings, nc)
    if args.dlq_command == "list":
        rows = 0
        async for seq, record in dlq.entries():
            if args.type and record.type != args.type:
                continue
            print(
                f"{seq:>6}  {record.job_id}  {record.type or '-':<20} {record.reason:<9} "
                f"attempts={record.attempts}  {record.failed_at:%Y-%m-%d %H:%M:%S}  {record.error[:80]}"
            )
            rows += 1
        print(f"{rows} dead letter(s)")
        return 0
    if args.dlq_command == "show":
        found = await dlq.show(args.id)
        if found is None:
            print(f"no dead letter for job {args.id}", file=sys.stderr)
            return 1
        seq, record = found
        data = msgspec.structs.asdict(record)
        data["original"] = record.original.decode("utf-8", errors="replace")
        _print({"seq": seq, **data})
        return 0
    if args.dlq_command == "requeue":
        if args.all == bool(args.id):
            raise ConfigError("dlq requeue takes either a job ID or --all")
        if args.all:
            count = await dlq.requeue_all(args.type)
        else:
            found = await dlq.show(args.id)
            if found is None:
                print(f"no dead letter for job {args.id}", file=sys.stderr)
                return 1
            await dlq.requeue(*found)
            count = 1
        print(f"requeued {count} job(s)")
        return 0
    count = await dlq.purge()
    print(f"purged {count} dead letter(s)")
    return 0


async def cmd_info(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    report: dict[str, Any] = {
        "namespace": settings.namespace,
        "server": server_address(nc),
        "streams": {},
        "consumers": {},
    }
    for name in (topology.jobs_stream, topology.dlq_stream):
        info = await js.stream_info(name)
        report["streams"][name] = {
            "messages": info.state.messages,
            "bytes": info.state.bytes,
            "first_seq": info.state.first_seq,
            "last_seq": info.state.last_seq,
        }
    consumers = await js.consumers_info(topology.jobs_stream)
    for consumer in consumers:
        report["consumers"][consumer.name] = {
            "pending": consumer.num_pending,
            "ack_pending": consumer.num_ack_pending,
            "redelivered": consumer.num_redelivered,
            "waiting": consumer.num_waiting,
        }
    served = served_queues(await live_workers(nc, settings))
    found = await coverage(js, topology, served, consumers)
    report["uncovered_subjects"] = found.uncovered
    report["unserved_queues"] = found.unserved
    if args.json:
        _print(report)
        return 0
    print(f"namespace {report['namespace']} on {report['server']}")
    for name, s in report["streams"].items():
        print(f"  stream   {name:<28} messages={s['messages']:<8} bytes={s['bytes']}")
    for name, c in report["consumers"].items():
        print(
            f"  consumer {name:<28} pending={c['pending']:<7} ack_pending={c['ack_pending']:<6} "
            f"redelivered={c['redelivered']:<6} waiting={c['waiting']}"
        )
    for subject, count in found.uncovered.items():
        print(f"  uncovered {subject:<27} messages={count:<8} (no queue consumer filters this subject)")
    for queue, count in found.unserved.items():
        print(f"  unserved queue {queue:<22} pending={count:<7} (no live worker serves this queue)")
    return 0


async def cmd_workers(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    beats = await live_workers(nc, settings)
    leader = await current_leader(nc, settings)
    if args.json:
        _print([msgspec.to_builtins(beat) | {"leader": beat.id == leader} for beat in beats])
        return 0
    now = utcnow()
    for beat in beats:
        age = (now - beat.beat_at).total_seconds()
        role = "leader" if beat.id == leader else ""
        print(
            f"{beat.id:<32} {role:<7}{beat.host}:{beat.pid:<8} queues={','.join(beat.queues):<16} "
            f"in_flight={len(beat.in_flight)}/{beat.concurrency:<5} last_beat={age:.1f}s ago  v{beat.version}"
        )
    if leader is None:
        lead = "no supervisor leads"
    elif any(beat.id == leader for beat in beats):
        lead = f"supervisor leader: {leader}"
    else:
        lead = f"supervisor leader: {leader} (standalone)"
    print(f"{len(beats)} live worker(s); {lead}")
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
