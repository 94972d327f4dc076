"""The worker: fetch deliveries from the queue consumers, run them with bounded concurrency.

```
 fetcher(queue, high)  ─┐
 fetcher(queue, normal)─┼─▶ PriorityBuffer ──▶ `concurrency` runner tasks ──▶ Executor
 fetcher(queue, low)   ─┘         ▲ leases of everything buffered or running extended by LeaseKeeper

Each fetcher keeps one pull request open on its consumer (jetjobs._transport.pull) and hands deliveries on
in bursts as they arrive. The runners are long-lived: no task is started per job.
```

Shutdown (SIGTERM/SIGINT, or `stop()`): fetchers stop; buffered deliveries are NAKed at once;
running jobs get `grace_period` seconds to finish; the rest are cancelled and NAKed, so another
worker gets them immediately instead of after `ack_wait`.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Sequence
from datetime import timedelta

import anyio
import msgspec
import structlog
from anyio.abc import TaskStatus
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from jetjobs._errors import ConfigError, describe_error
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.heartbeat import Heartbeat
from jetjobs._liveness.orphans import held_sequence
from jetjobs._liveness.supervisor import Supervisor
from jetjobs._observability.metrics import WorkerMetrics
from jetjobs._runtime.app import App
from jetjobs._runtime.execution import Executor
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.priority import PriorityBuffer
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.pull import PullConsumer
from jetjobs._transport.requests import Requester
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import CANCEL_REQUEST_DECODER, PRIORITIES, Priority, utcnow

log = structlog.get_logger("jetjobs.worker")


def new_worker_id() -> str:
    """A readable unique worker id: host, pid and a random suffix."""
    return f"{socket.gethostname()}-{os.getpid()}-{os.urandom(2).hex()}"


class Worker:
    """Runs an App's handlers for the jobs of some queues."""

    def __init__(
        self,
        app: App,
        nc: NATS,
        settings: Settings,
        *,
        queues: Sequence[str] = ("default",),
        concurrency: int = 10,
        worker_id: str | None = None,
        supervise: bool = True,
        metrics_port: int | None = None,
    ) -> None:
        if concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {concurrency}")
        if not app.handlers:
            raise ConfigError(f"app {app.name!r} has no job handlers registered")
        self.app = app
        self.nc = nc
        self.js: JetStreamContext = nc.jetstream()
        self.settings = settings
        self.queues = list(queues)
        self.concurrency = concurrency
        self.id = worker_id or new_worker_id()
        self.topology = Topology(settings)
        self.publisher = Publisher(nc, settings, topology=self.topology)
        self.lease = LeaseKeeper(settings.ack_wait)
        weights: dict[Priority, int] = {
            "high": settings.weight_high,
            "normal": settings.weight_normal,
            "low": settings.weight_low,
        }
        self.buffer: PriorityBuffer[Msg] = PriorityBuffer(weights, capacity=concurrency)
        self._running = 0
        self._idle = anyio.Event()
        self._stop = anyio.Event()
        self.executor: Executor | None = None
        self.heartbeat: Heartbeat | None = None
        self.supervisor = Supervisor(nc, settings, supervisor_id=self.id) if supervise else None
        self.metrics = WorkerMetrics()
        self.metrics.track(self)
        self.metrics_port = metrics_port

    @property
    def in_flight(self) -> int:
        """Jobs running now."""
        return self._running

    def _held_by(self, worker_id: str | None, stream_seq: int) -> bool:
        """Whether a live worker's current heartbeat lists a delivery of this stream sequence."""
        if self.supervisor is None or worker_id is None:
            return False
        beat = self.supervisor.alive.get(worker_id)
        # Only a current beat counts: after a node loss the watch can lag for seconds, and a stale
        # beat may list a delivery its worker gave up (its ledger write failed) long ago.
        fresh_after = utcnow() - timedelta(seconds=self.settings.heartbeat_ttl)
        return (
            beat is not None
            and beat.beat_at >= fresh_after
            and any(
                (pair := held_sequence(held.reply)) is not None and pair[1] == stream_seq
                for held in beat.in_flight
            )
        )

    def _live_queues(self) -> set[str] | None:
        """The queues that live workers serve, as this process's supervisor sees them."""
        if self.supervisor is None:
            return None
        return {queue for beat in self.supervisor.alive.values() for queue in beat.queues}

    def liveness_counts(self) -> dict[str, int]:
        """Lease extensions, heartbeats and dead workers seen, for the metrics endpoint."""
        return {
            "lease_extensions": self.lease.extensions,
            "heartbeats": self.heartbeat.beats if self.heartbeat else 0,
            "dead_workers_detected": len(self.supervisor.deaths) if self.supervisor else 0,
        }

    def stop(self) -> None:
        """Begin a graceful shutdown (safe to call more than once)."""
        self._stop.set()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Provision, then run until `stop()`; signals `task_status.started()` once fetching."""
        for queue in self.queues:
            await self.topology.ensure_queue(self.js, queue)
        ledger = Ledger(
            await self.topology.status_kv(self.js),
            requester=Requester(self.nc),
            bucket=self.topology.status_bucket,
        )
        self.executor = Executor(
            app=self.app,
            settings=self.settings,
            ledger=ledger,
            dead_letters=DeadLetters(self.js, self.topology, ledger),
            publisher=self.publisher,
            lease=self.lease,
            worker_id=self.id,
            concurrency=self.concurrency,
            metrics=self.metrics,
            held_by=self._held_by,
        )
        # The ledger says `cancelled` first; this tells a handler running here (cooperative).
        cancels = await self.nc.subscribe(self.topology.control_subject("cancel"), cb=self._on_cancel)
        consumers = [
            (
                priority,
                PullConsumer(
                    self.nc,
                    stream=self.topology.jobs_stream,
                    durable=self.topology.consumer_name(queue, priority),
                ),
            )
            for queue in self.queues
            for priority in PRIORITIES
        ]
        for _, consumer in consumers:
            await consumer.start()
        log.info(
            "worker.started",
            worker=self.id,
            queues=self.queues,
            concurrency=self.concurrency,
            handlers=sorted(self.app.handlers),
        )
        self.heartbeat = Heartbeat(
            self.nc,
            self.topology.workers_bucket,
            worker_id=self.id,
            queues=self.queues,
            concurrency=self.concurrency,
            interval=self.settings.heartbeat_interval,
            ttl=self.settings.heartbeat_ttl,
            in_flight=self.lease.in_flight,
        )
        await self.topology.workers_kv(self.js)
        async with anyio.create_task_group() as keeper:
            keeper.start_soon(self.lease.run)
            await keeper.start(self.heartbeat.run)
            if self.supervisor is not None:
                await keeper.start(self.supervisor.run)
            if self.metrics_port is not None:
                self.metrics_port = self.metrics.serve(self.metrics_port)
                keeper.start_soon(
                    self.metrics.refresh_lag, self.js, self.topology, self.queues, self._live_queues
                )
                log.info("worker.metrics", url=f"http://127.0.0.1:{self.metrics_port}/metrics")
            async with anyio.create_task_group() as jobs:
                for _ in range(self.concurrency):
                    jobs.start_soon(self._runner)
                async with anyio.create_task_group() as intake:
                    for priority, consumer in consumers:
                        intake.start_soon(self._fetch, priority, consumer)
                    task_status.started()
                    await self._stop.wait()
                    self.buffer.close()
                    intake.cancel_scope.cancel()
                late_until = anyio.current_time() + self.settings.fetch_timeout
                await self._release_unstarted([consumer for _, consumer in consumers])
                async with anyio.create_task_group() as closing:
                    # Pull requests sent before the stop stay open on the server until they
                    # expire; whatever they still deliver is handed back at once.
                    for _, consumer in consumers:
                        closing.start_soon(self._release_late, consumer, late_until)
                    with anyio.move_on_after(self.settings.grace_period):
                        while self._running:
                            await self._idle.wait()
                jobs.cancel_scope.cancel()
            keeper.cancel_scope.cancel()
        self.metrics.close()
        for _, consumer in consumers:
            await consumer.close()
        await cancels.unsubscribe()
        log.info("worker.stopped", worker=self.id, counts=self.executor.counts)

    async def _on_cancel(self, msg: Msg) -> None:
        try:
            request = CANCEL_REQUEST_DECODER.decode(msg.data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.warning("worker.bad_cancel_request", error=describe_error(exc))
            return
        if self.executor is not None and self.executor.cancel_running(request.job_id):
            log.info("job.cancel_requested", job_id=request.job_id, reason=request.reason)

    async def _fetch(self, priority: Priority, consumer: PullConsumer) -> None:
        while True:
            room = await self.buffer.wait_room(priority)
            try:
                request = await consumer.pull(room, self.settings.fetch_timeout)
            except Exception as exc:  # disconnected: nats-py reconnects; try again shortly
                log.warning("worker.fetch_failed", priority=priority, error=describe_error(exc))
                await anyio.sleep(0.5)
                continue
            while burst := await request.next_burst():
                # Shielded: a stop arriving here must not leave a burst neither buffered (to be
                # NAKed at shutdown) nor listed.
                with anyio.CancelScope(shield=True):
                    for msg in burst:
                        self.lease.hold(msg)
                    if self.heartbeat is not None:
                        await self._beat_now()  # listed before any of them can start
                    for msg in burst:
                        self.buffer.put(priority, msg)
            if not request.ended.startswith(("408", "filled")):
                # 409 (consumer deleted, leadership change), 503 (no stream leader), lost: the
                # stream is unavailable for now; ask again shortly rather than in a tight loop.
                log.warning("worker.fetch_failed", priority=priority, error=request.ended)
                await anyio.sleep(0.5)

    async def _beat_now(self) -> None:
        assert self.heartbeat is not None
        try:
            await self.heartbeat.held_more()
        except Exception as exc:  # disconnected: the next periodic beat lists them
            log.warning("heartbeat.failed", error=describe_error(exc))

    async def _runner(self) -> None:
        """One of `concurrency` tasks: take the next delivery by priority, run it, repeat."""
        assert self.executor is not None
        while (picked := await self.buffer.get()) is not None:
            msg = picked[1]
            if self._running == 0:
                self._idle = anyio.Event()
            self._running += 1
            try:
                await self.executor.process(msg)
            except Exception as exc:
                # Dead-lettering an undecodable message failed (connection lost); a decoded job's
                # failures are logged by the executor, with its job_id. The delivery comes back.
                self.lease.release(msg)
                log.error(
                    "job.process_failed", stream_seq=msg.metadata.sequence.stream, error=describe_error(exc)
                )
            finally:
                self._running -= 1
                if self._running == 0:
                    self._idle.set()

    async def _release_unstarted(self, consumers: list[PullConsumer]) -> None:
        """NAK what was fetched but not started, so other workers get it now."""
        pending = self.buffer.drain()
        for consumer in consumers:
            pending.extend(consumer.take())  # arrived while the fetcher was being cancelled
        await self._nak(pending)

    async def _release_late(self, consumer: PullConsumer, until: float) -> None:
        """NAK deliveries that arrive for pull requests made before the stop, until they expire."""
        while (left := until - anyio.current_time()) > 0:
            if await consumer.wait(left):
                consumer.take_status()
                await self._nak(consumer.take(), late=True)

    async def _nak(self, msgs: list[Msg], *, late: bool = False) -> None:
        for msg in msgs:
            self.lease.release(msg)
            try:
                await msg.nak()
            except Exception as exc:
                log.warning("worker.nak_failed", error=describe_error(exc))
        if msgs:
            log.info("worker.released", count=len(msgs), late=late)


async def run_worker(
    app: App,
    nc: NATS,
    settings: Settings,
    *,
    queues: Sequence[str],
    concurrency: int,
    metrics_port: int | None = None,
) -> None:
    """Run a worker until SIGTERM or SIGINT, then shut it down gracefully."""
    worker = Worker(app, nc, settings, queues=queues, concurrency=concurrency, metrics_port=metrics_port)
    async with anyio.create_task_group() as tg:

        async def on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for signum in signals:
                    log.info("worker.signal", signal=signal.Signals(signum).name)
                    worker.stop()
                    return

        tg.start_soon(on_signal)
        await worker.run()
        tg.cancel_scope.cancel()
