"""The four stage services of `jobsearch run`, as child processes.

Each child is exactly what a person would start by hand, `jobsearch serve STAGE`, with this
process's environment passed through unchanged: with `NATS_URL` unset it joins the embedded
server this process started (`server.url` in the shared store directory). It runs tethered to
this process (`python -m jobsearch.run.tethered serve STAGE`, see `jobsearch.run.lifeline`): when
this process ends, however it ends (`kill -9` included), every child stops as on SIGTERM (handing
back its jobs) and is gone within its grace period, so no service outlives its run to take jobs
with an old environment. A child counts as started when it logs `worker.started` (its consumers
are bound). A child that dies during the run (killed, crashed) is started again, a few times at
most: its unacknowledged jobs are redelivered to the new one, so nothing is lost.

(jetjobs.testing.WorkerPool runs `jetjobs worker APP` processes with every setting pinned in their
environment; here the children must be the user-facing command with the environment as it is.
Each is read as jetjobs reads a worker process, `jetjobs.testing.WorkerProcess`.)
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from types import TracebackType

import anyio
import anyio.abc
import structlog

from jetjobs.testing import WorkerProcess
from jobsearch.jobs import Service
from jobsearch.run.lifeline import Lifeline

log = structlog.get_logger("jobsearch.run")

MAX_RESTARTS = 3
# `jobsearch up` restarts a service however often it dies, waiting longer each time (seconds).
_BACKOFF_FIRST = 1.0
_BACKOFF_MOST = 60.0


class ServiceFailed(Exception):
    """A stage service would not start, or kept dying."""


class StageProcess(WorkerProcess):
    """One `jobsearch serve STAGE` child: a worker process (its started/exited events, worker id
    and last log lines, read from its log as jetjobs reads a worker's) of one stage."""

    def __init__(self, stage: Service, process: anyio.abc.Process) -> None:
        super().__init__(process, index=0)
        self.stage = stage

    def describe(self) -> str:
        """`draft (pid 123, exited 1)` and its last log lines, for an error message."""
        state = "running" if self.alive else f"exited {self.returncode}"
        lines = "\n    ".join(list(self.tail)[-20:])
        return f"{self.stage} service (pid {self.pid}, {state}); its last log lines:\n    {lines}"


class StageServices:
    """The stage services (and for `jobsearch up` the runs and digest services): started
    together, restarted if one dies, stopped on exit.

    Use as an async context manager; `failure` is set (with a reason) when a service cannot be
    kept running, and the run stops waiting. With `max_restarts=None` (`jobsearch up`) a service
    is restarted however often it dies, after a pause that doubles each time up to a minute.
    """

    def __init__(
        self,
        stages: Sequence[Service],
        *,
        concurrency: int,
        on_restart: Callable[[Service, int], None] = lambda _stage, _count: None,
        startup_timeout: float = 60.0,
        stop_timeout: float = 30.0,
        max_restarts: int | None = MAX_RESTARTS,
    ) -> None:
        self.stages = list(stages)
        self.concurrency = concurrency
        self.on_restart = on_restart
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.max_restarts = max_restarts
        self.current: dict[Service, StageProcess] = {}
        self.restarts: dict[Service, int] = dict.fromkeys(self.stages, 0)
        self.failure: str | None = None
        self.failed = anyio.Event()
        self._stopping = False
        self._tg: anyio.abc.TaskGroup | None = None
        self._lifeline = Lifeline()

    def command(self, stage: Service) -> list[str]:
        """The child's command line: `jobsearch serve STAGE`, tethered to this process."""
        return self._lifeline.command(["--log-format", "json", "serve", stage, "-c", str(self.concurrency)])

    async def __aenter__(self) -> StageServices:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            async with anyio.create_task_group() as tg:
                for stage in self.stages:
                    tg.start_soon(self._start, stage)
        except BaseException as exc:
            # Stop what did start, then leave the watchers' group (outside the shield: a cancel
            # scope must be exited in the order it was entered).
            with anyio.CancelScope(shield=True):
                await self.stop()
            self._tg.cancel_scope.cancel()
            try:
                await self._tg.__aexit__(type(exc), exc, exc.__traceback__)
            finally:
                self._lifeline.close()
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        with anyio.CancelScope(shield=True):
            await self.stop()
        assert self._tg is not None
        try:
            return await self._tg.__aexit__(exc_type, exc, tb)
        finally:
            self._lifeline.close()  # no child left to tether

    async def _start(self, stage: Service) -> StageProcess:
        assert self._tg is not None
        process = await anyio.open_process(
            self.command(stage),
            stdin=None,
            stdout=-3,  # subprocess.DEVNULL
            stderr=-1,  # subprocess.PIPE
            env=self._lifeline.env(os.environ),
            pass_fds=self._lifeline.pass_fds,
        )
        child = StageProcess(stage, process)
        self.current[stage] = child
        self._tg.start_soon(self._watch, child)
        with anyio.move_on_after(self.startup_timeout):
            await child.started.wait()
        if child.worker_id is None:
            if child.process.returncode is None:
                child.process.kill()
            raise ServiceFailed(f"the {child.describe()}\ndid not start")
        log.debug("run.service_started", stage=stage, pid=child.pid, worker=child.worker_id)
        return child

    async def _watch(self, child: StageProcess) -> None:
        await child.read_log()
        if self._stopping or child.worker_id is None:
            return
        stage = child.stage
        self.restarts[stage] += 1
        log.warning(
            "run.service_died", stage=stage, returncode=child.returncode, restarts=self.restarts[stage]
        )
        if self.max_restarts is not None and self.restarts[stage] > self.max_restarts:
            self._fail(f"the {child.describe()}\ndied {self.restarts[stage]} times")
            return
        if self.max_restarts is None:
            await self._restart_after_pause(stage)
            return
        self.on_restart(stage, self.restarts[stage])
        try:
            await self._start(stage)
        except ServiceFailed as exc:
            self._fail(str(exc))

    async def _restart_after_pause(self, stage: Service) -> None:
        """Start `stage` again after a pause that doubles with each death; never give up."""
        while not self._stopping:
            pause = min(_BACKOFF_MOST, _BACKOFF_FIRST * 2 ** (self.restarts[stage] - 1))
            await anyio.sleep(pause)  # a restart's backoff, not a synchronisation
            if self._stopping:
                return
            self.on_restart(stage, self.restarts[stage])
            try:
                await self._start(stage)
                return
            except ServiceFailed as exc:
                log.warning("run.service_not_started", stage=stage, error=str(exc)[:500])
                self.restarts[stage] += 1

    def _fail(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason
        self.failed.set()

    async def stop(self) -> None:
        """SIGTERM every service (they finish or hand back their jobs), SIGKILL stragglers.

        Waits on the processes themselves, not on the log readers, which a cancelled run has
        already stopped.
        """
        self._stopping = True
        live = [child for child in self.current.values() if child.process.returncode is None]
        for child in live:
            child.process.send_signal(signal.SIGTERM)
        with anyio.move_on_after(self.stop_timeout):
            for child in live:
                await child.process.wait()
        for child in live:
            if child.process.returncode is None:
                child.process.kill()
                await child.process.wait()
