"""The apps the benchmark's worker processes run."""

from __future__ import annotations

import time
from typing import Any

import anyio

from jetjobs import App, JobContext

app = App("bench")


@app.job("bench.noop")
async def noop(ctx: JobContext, payload: dict[str, Any]) -> None:
    """Does nothing: the benchmark measures the platform."""
    return


@app.job("bench.latency")
async def latency(ctx: JobContext, payload: dict[str, Any]) -> None:
    """Report publish→stored, →arrived and →started on `bench.latency` (same machine, same clock)."""
    started, sent = time.time(), payload["sent_at"]
    split = f"{ctx.stored_at - sent:.9f} {ctx.received_at - sent:.9f} {started - sent:.9f}"
    await ctx.publisher.nc.publish("bench.latency", split.encode())


@app.job("bench.hold")
async def hold(ctx: JobContext, payload: dict[str, Any]) -> None:
    """Announce the start (with the attempt) on `bench.started`, then hold the job for a long time."""
    await ctx.publisher.nc.publish("bench.started", f"{ctx.id} {ctx.attempt} {time.time():.6f}".encode())
    await anyio.sleep(payload.get("seconds", 120))
