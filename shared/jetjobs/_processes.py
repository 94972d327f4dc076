"""Worker processes for demos and chaos tests: start, signal, restart, and read their logs.

Each worker is `python -m jetjobs --log-format json worker APP -c N` with every jetjobs
setting pinned in its environment, so that it agrees with the process that started it. A worker
counts as started when it logs `worker.started` (its consumers are bound), which also names its
worker id; no sleeping, no polling.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
import anyio.abc

from jetjobs._settings import Settings


def worker_env(settings: Settings, url: str) -> dict[str, str]:
    """The environment of a worker process: this one's, with every top-level setting pinned.

    Sections (`smtp`, `webhook`, ...) are inherited as they are in this process's environment.
    An empty `url` means this process's embedded server: the workers join it as every jetjobs
    process of the user does, through its store directory (address and token are kept there).
    """
    env = dict(os.environ)
    if url:
        env.pop("NATS_STORE_DIR", None)
        env["NATS_URL"] = url
    else:
        env.pop("NATS_URL", None)
        if settings.nats.store_dir:
            env["NATS_STORE_DIR"] = settings.nats.store_dir
    for name in Settings.__struct_fields__:
        value = getattr(settings, name)
        if isinstance(value, str | int | float):
            env[f"JETJOBS_{name.upper()}"] = str(value)
    return env


class WorkerProcess:
    """One `jetjobs worker` subprocess, its id (from its `worker.started` log line) and exit."""

    def __init__(self, process: anyio.abc.Process, index: int, *, keep_log: bool = False) -> None:
        self.process = process
        self.index = index
        self.pid = process.pid
        self.worker_id: str | None = None
        self.started = anyio.Event()
        self.exited = anyio.Event()
        self.returncode: int | None = None
        self.killed = False  # we sent SIGKILL
        self.counts: dict[str, int] = {}  # the executor's tally, from `worker.stopped`
        self.tail: deque[str] = deque(maxlen=40)
        self.keep_log = keep_log
        self.events: list[dict[str, Any]] = []  # every JSON log line, when keep_log
        self.not_json: list[str] = []  # stderr lines that are not JSON (tracebacks), when keep_log

    @property
    def alive(self) -> bool:
        """Running (not yet exited)."""
        return not self.exited.is_set()

    @property
    def crashed(self) -> bool:
        """Exited with an error that we did not cause with SIGKILL."""
        return not self.alive and not self.killed and self.returncode != 0

    def send(self, signum: int) -> None:
        """Send a signal (SIGKILL, SIGTERM, SIGSTOP, SIGCONT) if the process still runs."""
        if self.alive:
            self.killed |= signum == signal.SIGKILL
            self.process.send_signal(signal.Signals(signum))

    async def read_log(self) -> None:
        """Follow stderr to its end: note the worker id and final counts, keep the last lines."""
        assert self.process.stderr is not None
        pending = b""
        async for chunk in self.process.stderr:
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._on_line(line)
        self.returncode = await self.process.wait()
        self.exited.set()
        self.started.set()  # wake a start() that waits for a process that died first

    def logged(self, event: str) -> list[dict[str, Any]]:
        """Every kept log line of this event name (needs keep_log)."""
        return [entry for entry in self.events if entry.get("event") == event]

    def _on_line(self, line: bytes) -> None:
        self.tail.append(line.decode(errors="replace"))
        if not self.keep_log and b'"worker.st' not in line:
            return
        try:
            entry = json.loads(line)
        except ValueError:
            if self.keep_log:
                self.not_json.append(line.decode(errors="replace"))
            return
        if self.keep_log:
            self.events.append(entry)
        if entry.get("event") == "worker.started":
            self.worker_id = entry.get("worker")
            self.started.set()
        elif entry.get("event") == "worker.stopped":
            self.counts = entry.get("counts") or {}

    def describe(self) -> str:
        """A one-line description for reports and assertion messages."""
        state = "running" if self.alive else f"exited {self.returncode}"
        return f"worker #{self.index} pid {self.pid} ({self.worker_id}, {state})"


class WorkerPool:
    """Subprocess workers of one app and namespace: start, kill, restart, stop them all.

    Use as an async context manager; leaving it stops every worker still running (SIGTERM, then
    SIGKILL after `stop_timeout`). With `respawn=True`, a worker that exits on its own (a crash)
    is replaced at once, as a process supervisor (systemd, Kubernetes) would.
    """

    def __init__(
        self,
        app_spec: str,
        settings: Settings,
        url: str,
        *,
        concurrency: int = 10,
        queues: Sequence[str] = ("default",),
        env: Mapping[str, str] | None = None,
        keep_log: bool = False,
        cwd: Path | str | None = None,
        respawn: bool = False,
        startup_timeout: float = 30.0,
        stop_timeout: float = 30.0,
        command: Sequence[str] | None = None,
    ) -> None:
        """`command`: another process to run instead of `jetjobs worker APP_SPEC` (a service built
        on jetjobs that logs `worker.started` as a worker does); `app_spec` is then unused."""
        self.command = list(command) if command is not None else [
            sys.executable, "-m", "jetjobs", "--log-format", "json",
            "worker", app_spec, "-c", str(concurrency), "-Q", ",".join(queues),
        ]  # fmt: skip
        self.concurrency = concurrency
        self.env = worker_env(settings, url) | dict(env or {})
        self.keep_log = keep_log
        self.cwd = cwd
        self.respawn = respawn
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.processes: list[WorkerProcess] = []
        self._stopping = False
        self._tg: anyio.abc.TaskGroup | None = None

    @property
    def live(self) -> list[WorkerProcess]:
        """The processes still running."""
        return [p for p in self.processes if p.alive]

    def by_worker_id(self) -> dict[str, WorkerProcess]:
        """Every process started so far, by its worker id."""
        return {p.worker_id: p for p in self.processes if p.worker_id}

    def crashed(self) -> list[WorkerProcess]:
        """Processes that exited with an error nobody asked for (see `WorkerProcess.crashed`)."""
        return [p for p in self.processes if p.crashed]

    async def __aenter__(self) -> WorkerPool:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        with anyio.CancelScope(shield=True):
            await self.stop_all()
        assert self._tg is not None
        return await self._tg.__aexit__(exc_type, exc, tb)

    async def start(self, count: int = 1) -> list[WorkerProcess]:
        """Start `count` workers at once; return when each has logged `worker.started`.

        Raises:
            RuntimeError: a worker exited before it started (with its last log lines).
            TimeoutError: a worker did not start within `startup_timeout`.
        """
        started: list[WorkerProcess] = []

        async def one() -> None:
            started.append(await self._start_one())

        async with anyio.create_task_group() as tg:
            for _ in range(count):
                tg.start_soon(one)
        return started

    async def _start_one(self) -> WorkerProcess:
        assert self._tg is not None, "use WorkerPool as an async context manager"
        process = await anyio.open_process(
            self.command, stdin=None, stdout=-3, stderr=-1, cwd=self.cwd, env=self.env
        )  # -3: subprocess.DEVNULL, -1: subprocess.PIPE
        worker = WorkerProcess(process, len(self.processes), keep_log=self.keep_log)
        self.processes.append(worker)
        self._tg.start_soon(self._follow, worker)
        with anyio.fail_after(self.startup_timeout):
            await worker.started.wait()
        if worker.worker_id is None:
            tail = "\n".join(worker.tail)
            raise RuntimeError(f"{worker.describe()} exited before it started:\n{tail}")
        return worker

    async def _follow(self, worker: WorkerProcess) -> None:
        await worker.read_log()
        if self.respawn and not self._stopping and not worker.killed and worker.worker_id:
            await self._start_one()

    async def restart(self, worker: WorkerProcess) -> WorkerProcess:
        """Wait for `worker` to be gone, then start a replacement."""
        await worker.exited.wait()
        return await self._start_one()

    async def kill(self, worker: WorkerProcess) -> None:
        """SIGKILL a worker and wait until it is gone."""
        worker.send(signal.SIGKILL)
        await worker.exited.wait()

    async def stop_all(self) -> None:
        """SIGTERM every running worker, wait for them to exit; SIGKILL stragglers."""
        self._stopping = True
        live = self.live
        for worker in live:
            worker.send(signal.SIGCONT)  # a stopped process cannot act on SIGTERM
            worker.send(signal.SIGTERM)
        with anyio.move_on_after(self.stop_timeout):
            for worker in live:
                await worker.exited.wait()
        for worker in self.live:
            worker.send(signal.SIGKILL)
            await worker.exited.wait()
