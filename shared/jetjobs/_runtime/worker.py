"""The worker: fetch deliveries from the queue consumers, run them with bounded concurrency.

```
 fetcher(queue, high)  ─┐
 fetcher(queue, normal)─┼─▶ PriorityBuffer ──▶ `concurrency` runner tasks ──▶ Executor
 fetcher(queue, low)   ─┘         ▲ leases of everything buffered or running extended by LeaseKeeper

Each fetcher keeps one pull request open on its consumer (jetjobs._transport.pull) and hands deliveries on
in bursts as they arrive. The runners are long-lived: no task is started per job.
```

Per burst, before any of it can start: leases held, envelopes decoded (`Delivery`), a heartbeat
listing them, and one batch read of their ledger entries sent (each claim awaits its answer).
One Topology, Requester, Outbound and Ledger serve the whole process: the publisher handed to
handlers, the executor, the dead letters and the supervisor.

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
from functools import partial

import anyio
import anyio.abc
import msgspec
import structlog
from anyio.abc import TaskStatus
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.kv import KeyValue

from jetjobs._errors import ConfigError, describe_error
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._liveness.heartbeat import Heartbeat
from jetjobs._liveness.orphans import held_sequence
from jetjobs._liveness.supervisor import Supervisor, served_queues
from jetjobs._runtime.app import App
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.execution import Executor
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.metrics import WorkerMetrics
from jetjobs._runtime.priority import PriorityBuffer
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.outbound import Outbound
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
        # One of each per worker process, shared by the publisher handed to handlers, the ledger,
        # the executor and the supervisor: one reply subscription for every ledger request.
        self.topology = Topology(settings)
        self.outbound = Outbound(nc)
        self.requester = Requester(nc, outbound=self.outbound)
        self.publisher = Publisher(nc, settings, topology=self.topology, requester=self.requester)
        self.lease = LeaseKeeper(settings.ack_wait)
        weights: dict[Priority, int] = {
            "high": settings.weight_high,
            "normal": settings.weight_normal,
            "low": settings.weight_low,
        }
        self.buffer: PriorityBuffer[Delivery] = PriorityBuffer(weights, capacity=concurrency)
        self._running = 0
        self._idle = anyio.Event()
        self._stop = anyio.Event()
        self.executor: Executor | None = None
        self.workers: KeyValue | None = None  # the heartbeat bucket, once provisioned
        self.heartbeat: Heartbeat | None = None
        self.supervisor = (
            Supervisor(nc, settings, supervisor_id=self.id, topology=self.topology) if supervise else None
        )
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
        return served_queues(self.supervisor.alive.values())

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
        consumers = await self._provision()
        # The ledger says `cancelled` first; this tells a handler running here (cooperative).
        cancels = await self.nc.subscribe(self.topology.control_subject("cancel"), cb=self._on_cancel)
        async with anyio.create_task_group() as keeper:
            await self._start_liveness(keeper)
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
                await self._drain([consumer for _, consumer in consumers])
                jobs.cancel_scope.cancel()
            keeper.cancel_scope.cancel()
        self.metrics.close()
        for _, consumer in consumers:
            await consumer.close()
        await cancels.unsubscribe()
        assert self.executor is not None
        log.info("worker.stopped", worker=self.id, counts=self.executor.counts)

    async def _provision(self) -> list[tuple[Priority, PullConsumer]]:
        """Streams, consumers and buckets; the executor; one pull consumer per queue and priority."""
        for queue in self.queues:
            await self.topology.ensure_queue(self.js, queue)
        ledger = await self.publisher.status_ledger()
        self.executor = Executor(
            app=self.app,
            settings=self.settings,
            topology=self.topology,
            nc=self.nc,
            requester=self.requester,
            outbound=self.outbound,
            ledger=ledger,
            dead_letters=DeadLetters(self.js, self.topology, ledger),
            publisher=self.publisher,
            lease=self.lease,
            worker_id=self.id,
            concurrency=self.concurrency,
            metrics=self.metrics,
            held_by=self._held_by,
        )
        self.workers = await self.topology.workers_kv(self.js)
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
        return consumers

    async def _start_liveness(self, keeper: anyio.abc.TaskGroup) -> None:
        """Lease extension, the first heartbeat, the supervisor and the metrics endpoint."""
        assert self.executor is not None
        self.heartbeat = Heartbeat(
            self.nc,
            self.topology.workers_bucket,
            worker_id=self.id,
            queues=self.queues,
            concurrency=self.concurrency,
            interval=self.settings.heartbeat_interval,
            ttl=self.settings.heartbeat_ttl,
            in_flight=self.lease.in_flight,
            fingerprint=self.app.fingerprint,
        )
        keeper.start_soon(self.lease.run)
        await keeper.start(self.heartbeat.run)
        if self.supervisor is not None:
            supervise = partial(self.supervisor.run, ledger=self.executor.ledger, workers=self.workers)
            await keeper.start(supervise)
        if self.metrics_port is not None:
            self.metrics_port = self.metrics.serve(self.metrics_port)
            keeper.start_soon(
                self.metrics.refresh_lag, self.js, self.topology, self.queues, self._live_queues
            )
            log.info("worker.metrics", url=f"http://127.0.0.1:{self.metrics_port}/metrics")

    async def _drain(self, consumers: list[PullConsumer]) -> None:
        """After the stop: hand back what never started, and give running jobs `grace_period`."""
        late_until = anyio.current_time() + self.settings.fetch_timeout
        await self._release_unstarted(consumers)
        async with anyio.create_task_group() as closing:
            # Pull requests sent before the stop stay open on the server until they expire;
            # whatever they still deliver is handed back at once.
            for consumer in consumers:
                closing.start_soon(self._release_late, consumer, late_until)
            with anyio.move_on_after(self.settings.grace_period):
                while self._running:
                    await self._idle.wait()

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
                    deliveries = await self._arrive(burst)
                    for delivery in deliveries:
                        self.buffer.put(priority, delivery)
            if not request.ended.startswith(("408", "filled")):
                # 409 (consumer deleted, leadership change), 503 (no stream leader), lost: the
                # stream is unavailable for now; ask again shortly rather than in a tight loop.
                log.warning("worker.fetch_failed", priority=priority, error=request.ended)
                await anyio.sleep(0.5)

    async def _arrive(self, burst: list[Msg]) -> list[Delivery]:
        """Hold a burst's leases, decode it, list it in a heartbeat and ask the ledger for its
        entries (one request for the burst; each claim awaits the answer when it needs it)."""
        max_job_bytes = self.settings.max_job_bytes
        deliveries = [Delivery.arrive(msg, max_job_bytes) for msg in burst]
        for delivery in deliveries:
            self.lease.hold(delivery.msg, delivery.job.id if delivery.job else None, count=delivery.count)
        if self.heartbeat is not None:
            await self._beat_now()  # listed before any of them can start
        job_ids = [delivery.job.id for delivery in deliveries if delivery.job is not None]
        if job_ids:
            assert self.executor is not None
            try:
                reads = await self.executor.ledger.send_get_many(job_ids)
            except Exception as exc:  # disconnected: each claim reads its own entry
                log.warning("worker.ledger_read_failed", error=describe_error(exc))
            else:
                for delivery in deliveries:
                    delivery.reads = reads
        return deliveries

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
            delivery = picked[1]
            if self._running == 0:
                self._idle = anyio.Event()
            self._running += 1
            try:
                await self.executor.process(delivery)
            except Exception as exc:
                # Dead-lettering an undecodable message failed (connection lost); a decoded job's
                # failures are logged by the executor, with its job_id. The delivery comes back.
                self.lease.release(delivery.msg)
                log.error("job.process_failed", stream_seq=delivery.seq, error=describe_error(exc))
            finally:
                self._running -= 1
                if self._running == 0:
                    self._idle.set()

    async def _release_unstarted(self, consumers: list[PullConsumer]) -> None:
        """NAK what was fetched but not started, so other workers get it now."""
        pending = [delivery.msg for delivery in self.buffer.drain()]
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
