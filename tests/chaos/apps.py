"""The app that chaos-test worker processes run: `jetjobs worker tests.chaos.apps:app`.

Every handler first records its execution (jetjobs._demo.work.record_execution), so the audit can count
how many times each job ran and on which worker, whatever happened to the process afterwards.
"""

from __future__ import annotations

import os
from typing import Any

import anyio

from jetjobs import App, JobContext
from jetjobs._demo.work import Work, record_execution, work

app = App("chaos")
app.job("demo.work", payload=Work)(work)


@app.job("chaos.slow")
async def slow(ctx: JobContext, payload: dict[str, Any]) -> dict[str, float]:
    """Work for `payload["seconds"]`: longer than ack_wait, so only lease extension keeps the job."""
    await record_execution(ctx)
    await anyio.sleep(payload["seconds"])
    return {"slept": payload["seconds"]}


@app.job("chaos.poison")
async def poison(ctx: JobContext, payload: dict[str, Any]) -> None:
    """Fail every attempt."""
    await record_execution(ctx)
    raise ValueError(f"poison: attempt {ctx.attempt} fails like every other")


@app.job("chaos.crash")
async def crash(ctx: JobContext, payload: dict[str, Any]) -> None:
    """Take the whole worker process down, every attempt (a segfault, an OOM kill)."""
    await record_execution(ctx)
    os._exit(1)
