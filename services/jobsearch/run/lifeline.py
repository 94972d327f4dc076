"""A pipe whose end of file tells a child process that the process which started it has ended.

The parent keeps the write end and writes nothing; each child gets the read end (its number in
`JOBSEARCH_LIFELINE_FD`) and runs as `python -m jobsearch.run.tethered ARGS` (that is, `jobsearch
ARGS`), which watches it. The kernel closes the write end when the parent ends, however it ends
(`kill -9` included), and only then: it is not inheritable, so no other child holds a copy. The
child reads end of file and stops as if told SIGTERM (a stage service hands back its jobs), and
ends for good if that takes much longer than its grace period.

Why a pipe and not Linux's parent-death signal for these children: that signal comes when the
parent *thread* that forked the child ends, and which thread forks a child is a detail of
anyio/asyncio (the event loop's today; a worker thread's, which ends when idle, tomorrow); the
pipe is the parent *process*'s, on every POSIX system. The nats-server, which cannot watch a
pipe, gets the signal instead (`jetjobs.EmbeddedServer`).

Usable by every command that starts long-lived children (`jobsearch run` today):

```python
lifeline = Lifeline()
process = await anyio.open_process(lifeline.command(["serve", "draft"]), pass_fds=lifeline.pass_fds,
                                   env=lifeline.env(os.environ))
```
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from types import TracebackType

ENV = "JOBSEARCH_LIFELINE_FD"


class Lifeline:
    """The parent's side: one pipe for all the children of this process. Close it to let them go."""

    def __init__(self) -> None:
        # os.pipe() descriptors are not inheritable: only pass_fds hands the read end on.
        self.read_fd, self._write_fd = os.pipe()

    @property
    def pass_fds(self) -> tuple[int]:
        """The descriptors to pass to a child (`pass_fds=` of the process call)."""
        return (self.read_fd,)

    def command(self, args: Sequence[str]) -> list[str]:
        """`jobsearch ARGS`, watching the lifeline (run as `python -m`, no console script needed)."""
        return [sys.executable, "-m", "jobsearch.run.tethered", *args]

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with the lifeline's descriptor number for the child."""
        return {**base, ENV: str(self.read_fd)}

    def close(self) -> None:
        """Close both ends (idempotent): the children still running read end of file."""
        for fd in (self.read_fd, self._write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.read_fd = self._write_fd = -1

    def __enter__(self) -> Lifeline:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
