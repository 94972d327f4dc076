"""The run: a claimed job's handler, called under the job's timeout while its lease is kept.

The lease of every held delivery is extended by the worker's one ticker (jetjobs._runtime.lease)
from its arrival to its settle, so nothing here touches it. An async handler is awaited in a
context of its own (jetjobs._runtime.isolation); a sync one runs in a thread, at most
`concurrency` at once. A cancel for a job running here (`jetjobs cancel`) sets its context's
`cancelled` event; one that arrived before the job started is remembered and set when it starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import anyio

from jetjobs._errors import JobTimeout
from jetjobs._runtime.app import Handler, JobContext
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.isolation import run_async_handler
from jetjobs._submit.publisher import Publisher
from jetjobs._wire.envelope import Job

# How many cancels of jobs not (yet) running here are remembered.
_REMEMBERED_CANCELS = 1024


class Runs:
    """The handlers running in one worker, by job id."""

    def __init__(
        self,
        *,
        publisher: Publisher,
        worker_id: str,
        concurrency: int,
        running: dict[str, JobContext],
        arm: Callable[[Delivery, Job], asyncio.TimerHandle | None],
    ) -> None:
        """`publisher` is handed to handlers (`JobContext.publisher`), for follow-up jobs; `running`
        is kept here and read by the claim; `arm` starts a late claim's timer as the handler starts
        (jetjobs._runtime.claim)."""
        self.publisher = publisher
        self.worker_id = worker_id
        self.arm = arm
        self.threads = anyio.CapacityLimiter(concurrency)
        self.running = running
        # Cancels that arrived for jobs not running here (yet): checked when a handler starts.
        self._cancels: dict[str, None] = {}

    def cancel(self, job_id: str) -> bool:
        """Tell the handler running `job_id` here, if any, that its job was cancelled."""
        ctx = self.running.get(job_id)
        if ctx is None:
            self._cancels[job_id] = None
            while len(self._cancels) > _REMEMBERED_CANCELS:
                del self._cancels[next(iter(self._cancels))]
            return False
        ctx.cancelled.set()
        return True

    async def run(self, handler: Handler, d: Delivery, job: Job, payload: Any) -> Any:
        """The handler's result.

        Raises:
            JobTimeout: it ran longer than the job's timeout.
            Exception: whatever the handler raised.
        """
        ctx = JobContext(
            job=job,
            attempt=d.attempt,
            worker_id=self.worker_id,
            publisher=self.publisher,
            headers=dict(d.msg.headers or {}),
            stored_at=d.stored_at,
            received_at=d.received_at,
        )
        self.running[job.id] = ctx
        if job.id in self._cancels:  # the cancel arrived between the claim and now
            del self._cancels[job.id]
            ctx.cancelled.set()
        timer = self.arm(d, job)
        try:
            if handler.is_async:
                return await run_async_handler(handler.fn(ctx, payload), job.timeout)
            with anyio.move_on_after(job.timeout) if job.timeout else nullcontext():
                return await anyio.to_thread.run_sync(
                    handler.fn, ctx, payload, abandon_on_cancel=True, limiter=self.threads
                )
            # Only reached when the timeout cancelled the wait for the thread.
            raise JobTimeout(f"handler ran longer than the job's timeout of {job.timeout}s")
        finally:
            if timer is not None:
                timer.cancel()
            if self.running.get(job.id) is ctx:
                del self.running[job.id]
