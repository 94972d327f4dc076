"""run_async_handler: its own context, a timeout that becomes JobTimeout, shutdown untouched."""

from __future__ import annotations

import asyncio
import time

import anyio
import pytest
import structlog

from jetjobs._errors import JobTimeout
from jetjobs._runtime.isolation import run_async_handler


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


async def test_context_of_a_handler_that_suspends_stays_with_it_across_steps() -> None:
    """Every step of a suspending handler runs in the handler's context, none in the caller's."""
    seen: list[object] = []

    async def handler() -> str:
        structlog.contextvars.bind_contextvars(step="bound")
        await asyncio.sleep(0)  # a bare yield to the loop
        await anyio.sleep(0.001)  # a future
        seen.append(structlog.contextvars.get_contextvars().get("step"))
        return "done"

    structlog.contextvars.bind_contextvars(caller="kept")
    try:
        assert await run_async_handler(handler(), timeout=5) == "done"
        assert seen == ["bound"]
        assert structlog.contextvars.get_contextvars() == {"caller": "kept"}
    finally:
        structlog.contextvars.unbind_contextvars("caller")


async def test_errors_raised_before_or_after_suspending_reach_the_caller() -> None:
    """A handler's exception is the caller's, whether it comes in the first step or a later one."""

    async def at_once() -> None:
        raise ValueError("first step")

    async def later() -> None:
        await asyncio.sleep(0)
        raise KeyError("later step")

    with pytest.raises(ValueError, match="first step"):
        await run_async_handler(at_once(), timeout=5)
    with pytest.raises(KeyError, match="later step"):
        await run_async_handler(later(), timeout=5)


async def test_a_timeout_leaves_the_awaiting_task_uncancelled() -> None:
    """The timeout's cancel is taken back: the task that awaited goes on awaiting normally."""

    async def handler() -> None:
        await anyio.Event().wait()

    task = asyncio.current_task()
    assert task is not None
    with pytest.raises(JobTimeout):
        await run_async_handler(handler(), timeout=0.01)
    assert task.cancelling() == 0
    await anyio.sleep(0.001)  # not cancelled

    async def swallows() -> str:
        try:
            await anyio.Event().wait()
        except asyncio.CancelledError:
            return "swallowed"
        return "unreachable"

    assert await run_async_handler(swallows(), timeout=0.01) == "swallowed"
    assert task.cancelling() == 0
    await anyio.sleep(0.001)


async def test_a_handler_may_use_cancel_scopes_and_task_groups() -> None:
    """anyio's scopes and task groups inside a handler work as in any coroutine of the task."""

    async def handler() -> list[str]:
        done: list[str] = []
        with anyio.move_on_after(0.01):
            await anyio.Event().wait()
        done.append("moved on")
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.sleep, 0.001)
            tg.start_soon(anyio.sleep, 0.002)
        done.append("joined")
        return done

    assert await run_async_handler(handler(), timeout=5) == ["moved on", "joined"]


async def test_the_deadline_counts_from_the_handlers_start() -> None:
    """A handler that spends its whole timeout before it first suspends is cancelled as soon as
    it suspends, not a full timeout later: a timer armed at the suspension would let it yield to
    the loop a hundred times first."""
    yields = 0

    async def handler() -> None:
        nonlocal yields
        time.sleep(0.25)  # noqa: ASYNC251 - a first step that blocks past the timeout
        for _ in range(100):
            await asyncio.sleep(0)
            yields += 1

    with pytest.raises(JobTimeout):
        await run_async_handler(handler(), timeout=0.2)
    assert yields < 100
