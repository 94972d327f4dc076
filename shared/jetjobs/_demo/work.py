"""The demo's job type, `demo.work`, whose every run records itself in an execution log.

The worker processes of `jetjobs demo kill-worker` and of the chaos tests run this App
(`jetjobs._demo.work:app`). Each handler first stores, durably and once per attempt, that it is
running (`record_execution`), so the audit (jetjobs._demo.audit) counts executions from a log, not
from guesses.
"""

from __future__ import annotations

import os
from datetime import datetime

import anyio
import msgspec
import nats.errors
import nats.js.errors

from jetjobs._runtime.app import App, JobContext
from jetjobs._settings import Settings
from jetjobs._wire.envelope import ENCODER, utcnow
from jetjobs._wire.headers import MSG_ID

app = App("demo")


class Execution(msgspec.Struct, kw_only=True, frozen=True):
    """One run of a handler, as the handler itself recorded it before doing its work."""

    job_id: str
    attempt: int
    worker: str
    pid: int
    at: datetime


EXECUTION_DECODER = msgspec.json.Decoder(Execution)


def exec_stream(settings: Settings) -> str:
    """The stream of execution records of a namespace."""
    return f"{settings.namespace.upper()}_DEMO_EXEC"


def events_stream(settings: Settings) -> str:
    """The stream that keeps a namespace's events (`<ns>.events.>`) for the audit."""
    return f"{settings.namespace.upper()}_DEMO_EVENTS"


async def record_execution(ctx: JobContext) -> None:
    """Store, durably and once per attempt, that this handler is running.

    The message id names job, attempt and worker, so a retried publish is not counted twice; the
    publish is retried while the server is unreachable, like the Publisher's.
    """
    record = Execution(job_id=ctx.id, attempt=ctx.attempt, worker=ctx.worker_id, pid=os.getpid(), at=utcnow())
    subject = f"{ctx.publisher.topology.ns}.demo.exec.{ctx.id}"
    headers = {MSG_ID: f"{ctx.id}:{ctx.attempt}:{ctx.worker_id}"}
    deadline = anyio.current_time() + ctx.publisher.settings.publish_retry_for
    while True:
        try:
            await ctx.publisher.js.publish(subject, ENCODER.encode(record), headers=headers)
            return
        except (
            nats.errors.TimeoutError,
            nats.errors.ConnectionReconnectingError,
            nats.errors.NoRespondersError,
            nats.js.errors.NoStreamResponseError,
            nats.js.errors.ServiceUnavailableError,
        ):
            if anyio.current_time() > deadline:
                raise
            await anyio.sleep(0.1)


class Work(msgspec.Struct):
    """Payload of demo.work."""

    n: int
    ms: float = 3.0


@app.job("demo.work", payload=Work)
async def work(ctx: JobContext, payload: Work) -> dict[str, int]:
    """Record the execution, then a few milliseconds of pretend I/O."""
    await record_execution(ctx)
    await anyio.sleep(payload.ms / 1000)
    return {"n": payload.n}
