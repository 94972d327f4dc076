"""run_async_handler: its own task and context, a timeout that becomes JobTimeout, shutdown untouched."""

from __future__ import annotations

import anyio
import pytest
import structlog

from jetjobs._errors import JobTimeout
from jetjobs._runtime.execution import run_async_handler


async def test_result_is_returned() -> None:
    """A handler that finishes returns its value."""

    async def handler() -> int:
        return 42

    assert await run_async_handler(handler(), timeout=5) == 42


async def test_past_its_timeout_the_handler_is_cancelled_as_job_timeout() -> None:
    """The handler is cancelled at its deadline and the caller sees JobTimeout, not cancellation."""
    cancelled = anyio.Event()

    async def handler() -> None:
        try:
            await anyio.Event().wait()
        finally:
            cancelled.set()

    with pytest.raises(JobTimeout, match=r"timeout of 0\.01s"):
        await run_async_handler(handler(), timeout=0.01)
    assert cancelled.is_set()


async def test_cancelling_the_caller_cancels_the_handler_and_is_not_a_timeout() -> None:
    """Shutdown (the runner cancelled) propagates as cancellation into the handler's task."""
    started, cancelled = anyio.Event(), anyio.Event()
    outcome: list[str] = []

    async def handler() -> None:
        started.set()
        try:
            await anyio.Event().wait()
        finally:
            cancelled.set()

    async def runner() -> None:
        try:
            await run_async_handler(handler(), timeout=60)
        except JobTimeout:
            outcome.append("timeout")
            raise
        except anyio.get_cancelled_exc_class():
            outcome.append("cancelled")
            raise

    async with anyio.create_task_group() as tg:
        tg.start_soon(runner)
        await started.wait()
        tg.cancel_scope.cancel()
    assert outcome == ["cancelled"]
    assert cancelled.is_set()


async def test_context_the_handler_binds_stays_with_it() -> None:
    """Context variables set by the handler do not leak into the caller."""

    async def handler() -> None:
        structlog.contextvars.bind_contextvars(leaked="yes")

    await run_async_handler(handler(), timeout=None)
    assert "leaked" not in structlog.contextvars.get_contextvars()
