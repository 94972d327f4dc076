"""JSON Schemas of the wire messages, generated from the Structs, with example messages.

`jetjobs schemas schemas/` writes them; a test fails when the committed files are stale. Here at
the top of the house, beside the command that writes them, because it reads rooms from the bottom
(the wire, the settings) to above the runtime (the built-ins' payloads).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from jetjobs._builtins import PAYLOADS
from jetjobs._builtins.payloads import DataTransform, EmailSend, Filter, Map, Rename, Select, WebhookCall
from jetjobs._settings import Settings
from jetjobs._transport.topology import HEADER_ALLOWANCE
from jetjobs._wire.envelope import (
    ENCODER,
    CancelRequest,
    DeadLetter,
    Job,
    JobDuplicate,
    JobEvent,
    StatusRecord,
    WorkerBeat,
    WorkerDied,
)
from jetjobs._wire.headers import MSG_ID

_WHEN = datetime(2026, 11, 30, 8, 0, 0, tzinfo=UTC)

EXAMPLE_JOB = Job(
    id="0193a5b2c4d87e1f9a3b5c7d9e1f2a3b",
    type="email.send",
    payload={"to": ["ada@example.com"], "subject": "Welcome", "text": "Hello Ada"},
    queue="default",
    priority="high",
    created_at=_WHEN,
    key="welcome-email:ada@example.com",
    max_attempts=5,
    timeout=60.0,
)

EXAMPLES: dict[str, Any] = {
    "job.json": EXAMPLE_JOB,
    "status.json": StatusRecord(
        id=EXAMPLE_JOB.id,
        type="email.send",
        state="succeeded",
        attempt=1,
        worker="host-4242-a1b2",
        updated_at=_WHEN,
        result={"message_id": "<0193a5b2@jetjobs>"},
    ),
    "dead_letter.json": DeadLetter(
        job_id=EXAMPLE_JOB.id,
        type="email.send",
        queue="default",
        reason="exhausted",
        error="SMTPServerDisconnected: Connection unexpectedly closed",
        attempts=5,
        worker="host-4242-a1b2",
        failed_at=_WHEN,
        enqueued_at=_WHEN,
        original_subject="jetjobs.jobs.default.high.email.send",
        original_headers={MSG_ID: "welcome-email:ada@example.com"},
        original=ENCODER.encode(EXAMPLE_JOB),
        stream_seq=1,
    ),
}

SCHEMAS: dict[str, Any] = {
    "job.schema.json": Job,
    "status.schema.json": StatusRecord,
    "dead_letter.schema.json": DeadLetter,
    "worker_beat.schema.json": WorkerBeat,
    "worker_died.schema.json": WorkerDied,
    "job_event.schema.json": JobEvent,
    "job_duplicate.schema.json": JobDuplicate,
    "cancel_request.schema.json": CancelRequest,
}

# The payloads of the built-in job types (jetjobs._builtins): `payloads/<type>.schema.json`, and an
# example of each under `examples/payloads/<type>.json`.
PAYLOAD_EXAMPLES: dict[str, msgspec.Struct] = {
    "email.send": EmailSend(
        to=["Ada Lovelace <ada@example.com>"],
        cc=["grace@example.com"],
        bcc=["audit@example.com"],
        subject="Your receipt for order 1001",
        text="Thank you for your order.",
        html="<p>Thank you for your order.</p>",
    ),
    "webhook.call": WebhookCall(
        url="https://hooks.example.com/orders",
        headers={"X-Source": "shop"},
        body={"order_id": 1001, "status": "paid"},
        timeout=10.0,
    ),
    "data.transform": DataTransform(
        data={"people": [{"name": "Ada", "age": 36, "address": {"city": "London"}}]},
        steps=[
            Select("people"),
            Filter("age > `30`"),
            Map("{name: name, city: address.city}"),
            Rename({"name": "fullName"}),
        ],
    ),
}
SCHEMAS.update({f"payloads/{job_type}.schema.json": struct for job_type, struct in PAYLOADS.items()})
EXAMPLES.update({f"payloads/{job_type}.json": example for job_type, example in PAYLOAD_EXAMPLES.items()})


# nats-server's default `max_payload` (1 MiB): the largest message any connection may send.
SERVER_MAX_PAYLOAD = 1024 * 1024


def job_limits() -> dict[str, Any]:
    """The size limits a job message meets on its way, with the default settings."""
    max_job_bytes = Settings().max_job_bytes
    return {
        "max_job_bytes": {
            "default": max_job_bytes,
            "setting": "JETJOBS_MAX_JOB_BYTES",
            "meaning": "the largest JSON body a worker (and the Python publisher) accepts; "
            "a larger body is dead-lettered `invalid`",
        },
        "stream_max_msg_size": {
            "default": max_job_bytes + HEADER_ALLOWANCE,
            "meaning": f"the JOBS stream's max_msg_size: max_job_bytes + {HEADER_ALLOWANCE} for "
            "subject and headers; the server refuses a larger publish",
        },
        "server_max_payload": {
            "default": SERVER_MAX_PAYLOAD,
            "meaning": "nats-server's max_payload: the largest message a connection may send at all",
        },
    }


def _job_schema(schema: dict[str, Any]) -> None:
    limits = job_limits()
    job = schema["$defs"]["Job"]
    job["description"] = (
        f"{job['description']} Size limits (defaults): a body of at most "
        f"{limits['max_job_bytes']['default']} bytes (JETJOBS_MAX_JOB_BYTES); the stream stores "
        f"messages up to {limits['stream_max_msg_size']['default']} bytes with headers; the "
        f"server's max_payload is {limits['server_max_payload']['default']} bytes. An id names "
        "one job forever: a second message with the id of a finished job is acked without "
        "running (a `duplicate`). Contract: docs/contract.md."
    )
    job["x-jetjobs-limits"] = limits


def render() -> dict[str, str]:
    """Every file of `schemas/`: relative path → content."""
    files: dict[str, str] = {}
    for name, struct in SCHEMAS.items():
        schema = msgspec.json.schema(struct)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        if struct is Job:
            _job_schema(schema)
        files[name] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    for name, example in EXAMPLES.items():
        files[f"examples/{name}"] = json.dumps(msgspec.to_builtins(example), indent=2) + "\n"
    return files


def write_schemas(directory: Path) -> None:
    """Write every schema and example under `directory`."""
    for name, content in render().items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def check_schemas(directory: Path) -> list[str]:
    """The names of files under `directory` that are missing or differ from the Structs."""
    stale = []
    for name, content in render().items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            stale.append(name)
    return stale
