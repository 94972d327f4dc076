"""Graceful shutdown of a real `jetjobs worker` process: SIGTERM loses nothing and delays nothing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Collection
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from nats.aio.client import Client as NATS
from nats.js.kv import KeyValue

from jetjobs import App, JobContext, Publisher, Settings
from jetjobs.envelope import STATUS_DECODER
from jetjobs.ledger import Ledger
from jetjobs.topology import Topology
from tests.support import running_worker

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

CONCURRENCY = 4
WORKER_COMMAND = [
    sys.executable,
    "-m",
    "jetjobs.cli",
    "--log-format",
    "json",
    "worker",
    "tests.apps:app",
    "-c",
    str(CONCURRENCY),
]


class WorkerProcess:
    """A `jetjobs worker` subprocess and the JSON log lines it has written to stderr so far."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self.events: list[dict[str, Any]] = []
        self._changed = anyio.Event()

    async def read_log(self) -> None:
        """Collect stderr line by line until the process closes it."""
        assert self.process.stderr is not None
        stream = BufferedByteReceiveStream(self.process.stderr)
        while True:
            try:
                line = await stream.receive_until(b"\n", 1 << 20)
            except (anyio.EndOfStream, anyio.IncompleteRead):
                break
            self.lines.append(line.decode(errors="replace"))
            with contextlib.suppress(json.JSONDecodeError):
                self.events.append(json.loads(line))
            self._changed.set()
        self._changed.set()

    def logged(self, event: str) -> list[dict[str, Any]]:
        """Every log line of this event name."""
        return [line for line in self.events if line.get("event") == event]

    async def wait_for_log(self, event: str, timeout: float = 15.0) -> dict[str, Any]:
        """Wait until the worker logs `event`; return that line."""
        with anyio.move_on_after(timeout):
            while not (found := self.logged(event)):
                self._changed = changed = anyio.Event()
                await changed.wait()
            return found[0]
        tail = "".join(self.lines[-20:])
        pytest.fail(f"the worker did not log {event!r} within {timeout}s; its stderr ends:\n{tail}")


@contextlib.asynccontextmanager
async def worker_process(env: dict[str, str], cwd: Path) -> AsyncIterator[WorkerProcess]:
    """Run `jetjobs worker tests.apps:app` as a subprocess; killed if still running at the end."""
    async with await anyio.open_process(
        WORKER_COMMAND, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=cwd, env=env
    ) as process:
        worker = WorkerProcess(process)
        async with anyio.create_task_group() as tg:
            tg.start_soon(worker.read_log)
            try:
                yield worker
            finally:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()


async def wait_running(kv: KeyValue, job_ids: Collection[str], count: int, timeout: float = 15.0) -> set[str]:
    """Watch the ledger until `count` of `job_ids` are running; return those."""
    states: dict[str, str] = {}
    watcher = await kv.watchall()
    try:
        with anyio.fail_after(timeout):
            async for entry in watcher:
                if entry is None or not entry.value:  # the end of the initial values, or a delete
                    continue
                record = STATUS_DECODER.decode(entry.value)
                states[record.id] = record.state
                running = {job_id for job_id in job_ids if states.get(job_id) == "running"}
                if len(running) >= count:
                    return running
    finally:
        await watcher.stop()
    raise AssertionError("the ledger watch ended")


async def test_sigterm_hands_every_job_back_at_once(nc: NATS, settings: Settings, repo_root: Path) -> None:
    """SIGTERM: the worker process stops fetching, NAKs what it holds and exits 0 within seconds.

    Another worker then finishes every job long before `ack_wait` (30 s) could have brought any
    back, and each job succeeds exactly once: the ones completed before the signal are not run
    again, the interrupted ones run once more, as attempt 2.
    """
    shared = msgspec.structs.replace(settings, ack_wait=30.0, grace_period=1.0)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NATS_", "JETJOBS_"))}
    env |= {
        "NATS_URL": settings.nats.url or "",
        "JETJOBS_NAMESPACE": shared.namespace,
        "JETJOBS_STORAGE": shared.storage,
        "JETJOBS_ACK_WAIT": str(shared.ack_wait),
        "JETJOBS_GRACE_PERIOD": str(shared.grace_period),
    }
    publisher = Publisher(nc, shared)
    ledger = Ledger(await Topology(shared).status_kv(nc.jetstream()))

    async with worker_process(env, repo_root) as worker:
        started = await worker.wait_for_log("worker.started")
        fast = [(await publisher.enqueue("jobs.fast", {"n": n})).id for n in range(5)]
        slow = [(await publisher.enqueue("jobs.slow", {"seconds": 30})).id for _ in range(20)]
        interrupted = await wait_running(ledger.kv, slow, CONCURRENCY)
        worker.process.send_signal(signal.SIGTERM)
        with anyio.fail_after(10):
            returncode = await worker.process.wait()
    assert returncode == 0, "".join(worker.lines[-20:])
    assert len(worker.logged("job.interrupted")) == CONCURRENCY
    assert worker.logged("worker.stopped")
    for job_id in interrupted:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert (record.state, record.attempt, record.worker) == ("queued", 1, None)

    app = App()
    runs: list[str] = []

    @app.job("jobs.slow")
    async def slow_done(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    @app.job("jobs.fast")
    async def fast_done(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    async with running_worker(app, nc, shared, concurrency=CONCURRENCY) as (_, outcomes):
        await outcomes.wait(lambda: outcomes.count("succeeded") == len(slow), timeout=10)
    assert sorted(runs) == sorted(slow), "a job ran twice, or a completed one ran again"
    assert sum(len(o) for o in outcomes.by_job.values()) == len(slow), dict(outcomes.by_job)
    for job_id in fast:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert (record.state, record.attempt, record.worker) == ("succeeded", 1, started["worker"])
    attempts = {}
    for job_id in slow:
        record, _ = await ledger.get(job_id)
        assert record is not None
        assert record.state == "succeeded"
        attempts[job_id] = record.attempt
    assert all(attempts[job_id] == 2 for job_id in interrupted), attempts
    assert set(attempts.values()) <= {1, 2}, attempts
    jobs = await nc.jetstream().consumer_info(
        Topology(shared).jobs_stream, f"{shared.namespace}_default_normal"
    )
    assert (jobs.num_pending, jobs.num_ack_pending) == (0, 0)
