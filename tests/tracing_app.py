"""Two-stage app for the cross-process tracing test: `trace.first` (queue first) submits
`trace.second` (queue second), which fails its first attempt."""

from __future__ import annotations

from typing import Any

import structlog

from jetjobs import App, JobContext

app = App("tracing")
log = structlog.get_logger("tests.tracing_app")


@app.job("trace.first")
async def first(ctx: JobContext, payload: dict[str, Any]) -> str:
    """Hand the item to the next stage, as a pipeline stage does."""
    log.info("stage.first", item=payload["item"])
    await ctx.enqueue("trace.second", payload, queue="second", key=f"{ctx.id}:second")
    return "handed on"


@app.job("trace.second")
async def second(ctx: JobContext, payload: dict[str, Any]) -> str:
    """Fail once, so that a retry shows up as a second consumer span of the same trace."""
    if ctx.attempt == 1:
        raise ConnectionError("flaky downstream")
    return "done"
