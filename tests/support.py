"""Test helpers: run a worker inside the test, and wait for job outcomes as events (no sleeps)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import msgspec
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs import App, NatsSettings, Publisher, Settings, Worker
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, InFlight, StatusRecord, WorkerBeat, utcnow

# Liveness in seconds rather than minutes: a beat every 0.5 s, expiry after 2 s, a 5 s lease, and
# slower retries and fetches. For tests that kill workers (chaos, the pipeline's stages).
FAST_LIVENESS: dict[str, Any] = {
    "ack_wait": 5.0,
    "heartbeat_interval": 0.5,
    "heartbeat_ttl": 2,
    "backoff_max": 0.5,
    "fetch_timeout": 1.0,
}


def fast_settings(namespace: str, url: str, **overrides: Any) -> Settings:
    """Settings for tests: memory storage, a 2 s lease, fast backoff, short fetches; `overrides` on top."""
    base = Settings(
        namespace=namespace,
        nats=NatsSettings(url=url),
        storage="memory",
        ack_wait=2.0,
        backoff_base=0.05,
        backoff_max=0.2,
        grace_period=5.0,
        fetch_timeout=0.25,
    )
    return msgspec.structs.replace(base, **overrides)


class Changes:
    """Something a test waits on: `notify()` after each change, `wait(predicate)` until it holds.

    Any number of tasks may wait at once: they share one event, renewed only after it fired
    (a waiter replacing it would strand the others on an event nobody sets).
    """

    def __init__(self) -> None:
        self._event = anyio.Event()

    def notify(self) -> None:
        """Wake the waiters to check their predicates again."""
        self._event.set()

    async def wait(self, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
        """Wait until `predicate()` holds (failing the test after `timeout` seconds)."""
        with anyio.fail_after(timeout):
            while not predicate():
                if self._event.is_set():
                    self._event = anyio.Event()
                await self._event.wait()


class Outcomes:
    """Every outcome the worker reported, by job id, with a way to wait for one."""

    def __init__(self) -> None:
        self.by_job: dict[str, list[str]] = defaultdict(list)
        self._changes = Changes()

    def __call__(self, outcome: str, job_id: str) -> None:
        self.by_job[job_id].append(outcome)
        self._changes.notify()

    def count(self, outcome: str) -> int:
        """How many times `outcome` was reported, over all jobs."""
        return sum(outcomes.count(outcome) for outcomes in self.by_job.values())

    async def wait(self, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
        """Wait until `predicate()` holds; re-checked after every reported outcome."""
        await self._changes.wait(predicate, timeout)

    async def wait_for(self, job_id: str, outcome: str, timeout: float = 30.0) -> None:
        """Wait until `job_id` reported `outcome`."""
        await self.wait(lambda: outcome in self.by_job.get(job_id, ()), timeout)


@contextlib.asynccontextmanager
async def running_worker(
    app: App,
    nc: NATS,
    settings: Settings,
    *,
    queues: Sequence[str] = ("default",),
    concurrency: int = 10,
) -> AsyncIterator[tuple[Worker, Outcomes]]:
    """A worker running in this event loop; stopped gracefully when the block ends."""
    worker = Worker(app, nc, settings, queues=queues, concurrency=concurrency)
    outcomes = Outcomes()
    async with anyio.create_task_group() as tg:
        await tg.start(worker.run)
        assert worker.executor is not None
        worker.executor.listeners.append(outcomes)
        try:
            yield worker, outcomes
        finally:
            worker.stop()


def clean_env(**variables: str) -> dict[str, str]:
    """This process's environment without any jetjobs, NATS or OTel setting, plus `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JETJOBS_", "NATS_", "OTEL_"))}
    return env | variables


def cli_env_of(settings: Settings) -> dict[str, str]:
    """The environment of a CLI process on `settings`' server and namespace (storage and
    ack_wait as in `settings`, so that an in-process worker finds the same topology)."""
    return clean_env(
        NATS_URL=settings.nats.url or "",
        JETJOBS_NAMESPACE=settings.namespace,
        JETJOBS_STORAGE=settings.storage,
        JETJOBS_ACK_WAIT=str(settings.ack_wait),
    )


async def run_cli(
    env: dict[str, str], *args: str, cwd: Path | None = None, stdout: int = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m jetjobs ARGS...` in `env` to its end (killed, failing the test, after 30 s)."""
    with anyio.fail_after(30):
        return await anyio.run_process(
            [sys.executable, "-m", "jetjobs", *args], env=env, cwd=cwd, stdout=stdout, check=False
        )


async def run_jetjobs(settings: Settings, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m jetjobs ARGS...` on `settings`' server and namespace, to its end (≤ 30 s)."""
    return await run_cli(cli_env_of(settings), *args)


async def status_of(nc: NATS, settings: Settings, job_id: str) -> StatusRecord:
    """The job's ledger entry (it must exist)."""
    record, _ = await Ledger(await Topology(settings).status_kv(nc.jetstream())).get(job_id)
    assert record is not None
    return record


async def dead_letter_of(nc: NATS, settings: Settings, job_id: str) -> DeadLetter:
    """The job's dead letter (it must exist)."""
    topology = Topology(settings)
    ledger = Ledger(await topology.status_kv(nc.jetstream()))
    found = await DeadLetters(nc.jetstream(), topology, ledger).show(job_id)
    assert found is not None
    return found[1]


async def ghost_worker(
    ledger: Ledger, held: Sequence[Msg], ids: Sequence[str], *, claimed: int, listed: int
) -> WorkerBeat:
    """Play a worker `ghost` that holds `held` (the deliveries of `ids`, in order): it claimed the
    first `claimed` jobs in the ledger (`running`, attempt 1) and its heartbeat lists the first
    `listed` deliveries. Returns the beat, for the test to publish (and let expire) as it needs."""
    for job_id in ids[:claimed]:
        _, revision = await ledger.get(job_id)
        running = StatusRecord(
            id=job_id, type="echo", state="running", attempt=1, worker="ghost", updated_at=utcnow()
        )
        assert await ledger.write(running, revision) is not None
    return WorkerBeat(
        id="ghost",
        host="elsewhere",
        pid=4242,
        queues=["default"],
        concurrency=len(held),
        version="0",
        started_at=utcnow(),
        beat_at=utcnow(),
        in_flight=[
            InFlight(reply=m.reply or "", attempt=1, job_id=ids[i]) for i, m in enumerate(held[:listed])
        ],
    )


class LogLines:
    """structlog lines of this process, kept while the block runs, with a wait for one of them."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self._changes = Changes()

    def __call__(self, _logger: object, method: str, event: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(event | {"log_level": method})
        self._changes.notify()
        raise structlog.DropEvent

    def named(self, name: str) -> list[dict[str, Any]]:
        """Every kept line of this event name."""
        return [line for line in self.lines if line["event"] == name]

    async def wait(self, name: str, text: str = "", timeout: float = 30) -> dict[str, Any]:
        """The first line named `name` (whose error has `text`), waiting for it if need be."""

        def found() -> list[dict[str, Any]]:
            return [line for line in self.named(name) if text in line.get("error", "")]

        await self._changes.wait(lambda: bool(found()), timeout)
        return found()[0]


@contextlib.contextmanager
def log_lines() -> Iterator[LogLines]:
    """Capture structlog lines, with their bound context, for the duration of the block."""
    lines = LogLines()
    previous = structlog.get_config()
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, lines], cache_logger_on_first_use=False
    )
    try:
        yield lines
    finally:
        structlog.configure(**previous)


async def enqueued_and_bound(
    nc: NATS, settings: Settings, job_type: str, count: int, **options: Any
) -> tuple[list[str], Any]:
    """`count` jobs of `job_type` (payloads `{"n": i}`, `options` as `enqueue` takes them), and a
    pull subscription bound to their default/normal consumer: the test fetches from it to play
    a worker holding deliveries (one that dies, hands them back, or never starts them)."""
    publisher = Publisher(nc, settings)
    ids = [(await publisher.enqueue(job_type, {"n": i}, **options)).id for i in range(count)]
    topology = Topology(settings)
    sub = await nc.jetstream().pull_subscribe_bind(
        durable=topology.consumer_name("default", "normal"), stream=topology.jobs_stream
    )
    return ids, sub


async def processes_ended(pids: Sequence[int]) -> None:
    """Wait until each of `pids` has exited: a pidfd is readable once its process has ended, zombie
    or not, even for a process that is not ours to reap. The caller bounds the wait."""
    for pid in pids:
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            await anyio.wait_readable(pidfd)
        finally:
            os.close(pidfd)
