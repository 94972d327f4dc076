"""The commands that look at a namespace on the server: `status`, `dlq ...`, `info`, `workers`.

Parsed in jetjobs._cli.main; each reads what the platform's rooms below keep (the ledger, the dead
letters, the streams and consumers, the live workers) and prints it, as text or `--json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import msgspec
from nats.aio.client import Client as NATS

from jetjobs._errors import ConfigError
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.coverage import coverage
from jetjobs._liveness.supervisor import current_leader, live_workers, served_queues
from jetjobs._settings import Settings
from jetjobs._transport.connection_events import server_address
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import utcnow


def print_json(data: Any) -> None:
    """Print `data` (Structs included) as indented JSON."""
    print(json.dumps(msgspec.to_builtins(data), indent=2, default=str))


async def cmd_status(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    record, revision = await Ledger(await topology.status_kv(js)).get(args.id)
    if record is None:
        print(f"no status for job {args.id} (unknown id, or older than JETJOBS_STATUS_TTL)", file=sys.stderr)
        return 1
    print_json({"revision": revision, **msgspec.structs.asdict(record)})
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
        print_json({"seq": seq, **data})
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
        print_json(report)
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
        print_json([msgspec.to_builtins(beat) | {"leader": beat.id == leader} for beat in beats])
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
