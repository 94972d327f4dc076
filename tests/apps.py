"""The jetjobs App that subprocess workers run in tests: `jetjobs worker tests.apps:app`."""

from __future__ import annotations

from typing import Any

import anyio

from jetjobs import App, JobContext

app = App("tests")


@app.job("jobs.slow")
async def slow(ctx: JobContext, payload: dict[str, Any]) -> dict[str, float]:
    """Work for `payload["seconds"]` seconds: long enough to be caught running by a SIGTERM."""
    await anyio.sleep(payload["seconds"])
    return {"slept": payload["seconds"]}


@app.job("jobs.fast")
async def fast(ctx: JobContext, payload: dict[str, Any]) -> dict[str, Any]:
    """Return the payload at once."""
    return payload
