"""An async handler run in a context of its own, under its job's timeout, without a task of its own.

Why not `asyncio.timeout` around `await handler(...)`: the handler's context variables (structlog
binds, library state) would leak into the runner's next job, and a task per job to isolate them
costs more than the rest of a no-op job's run. See `run_async_handler`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

from jetjobs._errors import JobTimeout


def run_async_handler(handler_call: Coroutine[Any, Any, Any], timeout: float | None) -> Awaitable[Any]:
    """Await an async handler in a context of its own, cancelled with JobTimeout after `timeout`.

    The handler's coroutine is stepped by the awaiting task (no task of its own: creating one and
    waking the runner when it ends cost more than the rest of a no-op job's run), each step inside
    a copy of the context: whatever context variables the handler sets (structlog binds, library
    state) end with the job instead of leaking into the runner's next one. The timeout is a loop
    timer cancelling the task at the handler's start plus `timeout`, armed only once the handler
    suspends (one that finishes in its first step never yields to a timer), and told apart from
    any other cancellation the way `asyncio.timeout` does; cancellation of the runner (shutdown)
    reaches the handler through the await.
    """
    return _Isolated(handler_call, timeout)


class _Isolated:
    __slots__ = ("_context", "_coro", "_timeout")

    def __init__(self, coro: Coroutine[Any, Any, Any], timeout: float | None) -> None:
        self._coro, self._timeout = coro, timeout
        self._context = contextvars.copy_context()

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, run = self._coro, self._context.run
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            yielded = run(coro.send, None)
        except StopIteration as done:
            return done.value
        if not self._timeout:
            return (yield from _steps(coro, run, yielded))
        timeout = self._timeout
        task = asyncio.current_task()
        assert task is not None, "a handler is awaited by a task"
        cancelling = task.cancelling()
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        timer = loop.call_at(started + timeout, expire)  # the deadline counts the first step
        try:
            return (yield from _steps(coro, run, yielded))
        except asyncio.CancelledError:
            if expired:
                expired = False  # the cancel it made is taken back here, once
                if task.uncancel() <= cancelling:
                    raise JobTimeout(f"handler ran longer than the job's timeout of {timeout}s") from None
            raise
        finally:
            timer.cancel()
            if expired:  # the handler swallowed the timeout's cancel and ended otherwise
                task.uncancel()


def _steps(coro: Coroutine[Any, Any, Any], run: Callable[..., Any], yielded: Any) -> Generator[Any, Any, Any]:
    """Go on stepping a suspended coroutine inside `run` (a context's `run`), as `yield from`
    would: what the task sends or throws goes to the coroutine, what it yields to the task."""
    step: Callable[[Any], Any]
    while True:
        try:
            sent = yield yielded
        except BaseException as exc:  # every throw goes to the handler (GeneratorExit included)
            step, sent = coro.throw, exc
        else:
            step = coro.send
        try:
            yielded = run(step, sent)
        except StopIteration as done:
            return done.value
