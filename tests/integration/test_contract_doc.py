"""docs/contract.md's raw-protocol examples, sent as written to a real nats-server.

A client in another language follows that page without reading Python: its byte counts must be
right, and what it sends must submit, deduplicate and delay a job.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from anyio.abc import ByteStream
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.headers import SCHEDULE, SCHEDULE_TARGET
from tests.support import running_worker

pytestmark = [pytest.mark.integration]


def doc_block(repo_root: Path, tag: str) -> list[str]:
    """The lines of the fenced block ```<tag> in docs/contract.md."""
    text = (repo_root / "docs/contract.md").read_text(encoding="utf-8")
    found = re.search(rf"```{tag}\n(.*?)\n```", text, re.DOTALL)
    assert found is not None, tag
    return found.group(1).split("\n")


def hpub(lines: list[str], namespace: str) -> tuple[bytes, str]:
    """Check the block's HPUB byte counts, then rebuild it for `namespace`; return it and its subject.

    The block is `SUB ...`, `HPUB subject reply hdr total`, the header lines, a blank line, the body.
    """
    sub, command, *rest = lines
    _, subject, reply, header_bytes, total_bytes = command.split(" ")
    blank = rest.index("")
    header = "".join(f"{line}\r\n" for line in rest[:blank]) + "\r\n"
    body = "\n".join(rest[blank + 1 :])
    assert int(header_bytes) == len(header.encode()), "header bytes in the doc"
    assert int(total_bytes) == len(header.encode()) + len(body.encode()), "total bytes in the doc"
    header = header.replace("jetjobs.", f"{namespace}.")
    subject = subject.replace("jetjobs.", f"{namespace}.")
    data = header.encode() + body.encode()
    wire = f"{sub}\r\nHPUB {subject} {reply} {len(header.encode())} {len(data)}\r\n".encode() + data + b"\r\n"
    return wire, subject


async def send_raw(settings: Settings, wire: bytes) -> dict[str, Any]:
    """Speak the protocol over TCP: CONNECT, the block, and read the JetStream ack it asked for."""
    url = settings.nats.url or ""
    host, port = url.removeprefix("nats://").rsplit(":", 1)
    stream: ByteStream
    async with await anyio.connect_tcp(host, int(port)) as stream:
        buffer = b""
        with anyio.fail_after(10):
            while b"\r\n" not in buffer:
                buffer += await stream.receive()
            assert buffer.startswith(b"INFO ")
            await stream.send(b'CONNECT {"headers":true,"verbose":false}\r\n' + wire)
            buffer = b""
            while (found := re.search(rb"MSG _INBOX\.ack 1 (\d+)\r\n", buffer)) is None or len(
                buffer
            ) < found.end() + int(found.group(1)):
                buffer += await stream.receive()
        size = int(found.group(1))
        reply: dict[str, Any] = json.loads(buffer[found.end() : found.end() + size])
        return reply


async def test_raw_submit_example_submits_and_deduplicates_a_job(
    nc: NATS, settings: Settings, repo_root: Path
) -> None:
    """The documented HPUB stores the job once (a resend is answered duplicate) and it runs once."""
    await Topology(settings).ensure_queue(nc.jetstream(), "default")
    wire, subject = hpub(doc_block(repo_root, "raw-submit"), settings.namespace)
    first = await send_raw(settings, wire)
    again = await send_raw(settings, wire)
    assert first["stream"] == Topology(settings).jobs_stream
    assert "duplicate" not in first
    assert again == {**first, "duplicate": True}

    app = App("contract", builtins=False)
    runs: list[tuple[str, dict[str, Any]]] = []

    @app.job("report.build")
    async def build(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append((ctx.id, payload))

    async with running_worker(app, nc, settings) as (_, outcomes):
        await outcomes.wait_for("0193a5b2c4d87e1f9a3b5c7d9e1f2a3b", "succeeded")
    assert runs == [("0193a5b2c4d87e1f9a3b5c7d9e1f2a3b", {"month": "2026-11"})]
    assert subject == Topology(settings).job_subject("default", "normal", "report.build")


async def test_raw_delay_example_stores_a_schedule_for_its_job(
    nc: NATS, settings: Settings, repo_root: Path
) -> None:
    """The documented schedules-subject HPUB is accepted and held as an `@at` schedule of the job."""
    topology = Topology(settings)
    await topology.ensure_queue(nc.jetstream(), "default")
    wire, subject = hpub(doc_block(repo_root, "raw-delay"), settings.namespace)
    ack = await send_raw(settings, wire)
    assert ack["stream"] == topology.jobs_stream
    job_id = "0193a5b2c4d87e1f9a3b5c7d9e1f2a3c"
    assert subject == topology.delayed_subject(job_id)
    held = await nc.jetstream().get_last_msg(topology.jobs_stream, subject)
    assert held.headers is not None
    assert held.headers[SCHEDULE] == "@at 2030-01-01T08:00:00Z"
    assert held.headers[SCHEDULE_TARGET] == topology.job_subject("default", "normal", "report.build")
    assert msgspec.json.decode(held.data or b"")["id"] == job_id
