"""The supervisor: notices dead workers and gives their jobs back at once.

It watches the heartbeat bucket. When a worker's key expires (the server's delete marker: the
process died or hung past `heartbeat_ttl`), the supervisor publishes `-NAK` to every delivery the
worker last reported holding, so JetStream redelivers them now rather than after `ack_wait`; it
marks those jobs `queued` in the ledger (fenced: only if still `running` on the dead worker), and
announces a WorkerDied event (log line, listeners, `<ns>.events.worker.died`).

Any number of supervisors may run (every worker runs one by default, `jetjobs supervisor` runs one
alone); one acts at a time, elected by holding the `leader` key of the bucket (create-if-absent,
renewed by compare-and-set, expiring with the same TTL as heartbeats). Whoever sees a heartbeat
expire records the death in the bucket (`dead.<id>.<last beat>`, holding that beat); the leader claims
each record by deleting it with compare-and-set, then recovers. So a death seen only by the losers
of an election, or while the leader itself was dying, is still recovered, and recovered once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import anyio
import anyio.abc
import msgspec
import nats.js.errors
import structlog
from anyio.abc import TaskStatus
from nats.aio.client import Client as NATS
from nats.js.kv import KeyValue

from jetjobs.envelope import WORKER_BEAT_DECODER, WorkerBeat, WorkerDied, utcnow
from jetjobs.ledger import Ledger
from jetjobs.orphans import snapshot, sweep_orphans
from jetjobs.outcome import describe
from jetjobs.settings import Settings
from jetjobs.topology import Topology

log = structlog.get_logger("jetjobs.supervisor")

_ENCODER = msgspec.json.Encoder()
LEADER_KEY = "leader"
DEATH_PREFIX = "dead."
# The server's "wrong last sequence" errors: a compare-and-set lost to another writer.
_WRONG_LAST_SEQUENCE = (10071, 10164)


class Supervisor:
    """Watches heartbeats; the elected one recovers the jobs of dead workers."""

    def __init__(self, nc: NATS, settings: Settings, *, supervisor_id: str) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.settings = settings
        self.id = supervisor_id
        self.topology = Topology(settings)
        self.is_leader = False
        self.alive: dict[str, WorkerBeat] = {}
        self._beat_arrived = anyio.Event()
        self._tg: anyio.abc.TaskGroup | None = None
        self.deaths: list[WorkerDied] = []
        self.listeners: list[Callable[[WorkerDied], None]] = []
        self._unrecovered: dict[str, tuple[WorkerBeat, int]] = {}  # death record key: beat, revision
        self._leadership_changed = anyio.Event()
        self._kv: KeyValue | None = None
        self._ledger: Ledger | None = None
        self._watch_scope: anyio.CancelScope | None = None
        self._watch_reconnects = 0
        self._watch_restart_reason = ""
        self._last_entry = 0.0

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Watch and campaign until cancelled; `started` once the initial state is read."""
        await self.topology.ensure_base(self.js)
        self._kv = await self.topology.workers_kv(self.js)
        self._ledger = Ledger(await self.topology.status_kv(self.js))
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(self._campaign)
                await self._watch(task_status)
        finally:
            with anyio.CancelScope(shield=True):
                await self._resign()

    async def _watch(self, task_status: TaskStatus[None]) -> None:
        """Follow the bucket; after a reconnect or a silence, start a new watch (`_campaign` checks).

        nats-py's watcher (an ordered consumer) notices that its consumer is gone with the server
        it lived on only after missing several idle heartbeats, 10-20 s, and deaths in that window
        would wait for `ack_wait`. A new watch starts with every key's latest value: the beats of
        live workers and the delete markers of the ones that expired meanwhile.
        """
        assert self._kv is not None
        started = False
        while True:
            self._watch_reconnects = self.nc.stats["reconnects"]
            self._last_entry = anyio.current_time()
            try:
                watcher = await self._kv.watch(">")  # heartbeats, death records, the leader key
            except Exception as exc:
                if not started:
                    raise
                # The bucket is electing a leader or the connection is down again: retry.
                log.warning("supervisor.watch_failed", error=describe(exc))
                await anyio.sleep(self.settings.heartbeat_interval)
                continue
            try:
                with anyio.CancelScope() as self._watch_scope:  # cancelled by _campaign's tick
                    async for entry in watcher:
                        self._last_entry = anyio.current_time()
                        if entry is None:  # the initial values have been delivered
                            if not started:
                                task_status.started()
                                started = True
                            continue
                        with anyio.CancelScope(shield=True):  # a restart must not cut a recovery short
                            await self._on_entry(entry)
            finally:
                with anyio.CancelScope(shield=True):
                    await watcher.stop()
            log.info("supervisor.watch_restarted", reason=self._watch_restart_reason)

    def _restart_watch_if_stale(self) -> None:
        """Restart the watch after a reconnect, or when it has been silent for 3 heartbeats.

        Silence is a broken watch, not a quiet bucket: the leader renews its key every heartbeat
        interval. (The consumer behind a watch lives on the stream's leader; when that node is
        lost, a client connected elsewhere sees no reconnect, only silence.)
        """
        if self._watch_scope is None:
            return
        reconnected = self.nc.stats["reconnects"] != self._watch_reconnects
        silent = anyio.current_time() - self._last_entry > 3 * self.settings.heartbeat_interval
        if reconnected or silent:
            self._watch_restart_reason = "reconnected" if reconnected else "silent"
            self._watch_scope.cancel()

    async def _on_entry(self, entry: KeyValue.Entry) -> None:
        if entry.key.startswith(DEATH_PREFIX):
            if entry.operation is None and entry.value:
                self._unrecovered[entry.key] = (WORKER_BEAT_DECODER.decode(entry.value), entry.revision or 0)
                if self.is_leader:
                    await self._recover_all()
            else:  # claimed by a leader, or expired unclaimed
                self._unrecovered.pop(entry.key, None)
            return
        if not entry.key.startswith("workers."):
            return
        worker_id = entry.key.removeprefix("workers.")
        if entry.operation is None and entry.value:
            self.alive[worker_id] = WORKER_BEAT_DECODER.decode(entry.value)
            self._beat_arrived.set()
            self._beat_arrived = anyio.Event()
            return
        beat = self.alive.pop(worker_id, None)
        if entry.operation == "DEL":
            log.info("worker.left", worker=worker_id)
            return
        if beat is None:  # expired before this supervisor saw it; one that saw it records it
            return
        # PURGE: the server's delete marker for an expired heartbeat. The worker is dead or hung.
        await self._record_death(beat)

    async def _record_death(self, beat: WorkerBeat) -> None:
        """Record the death for the leader, present or future; the first observer's write wins.

        The key names the last beat, so that every observer writes the same one; it is written
        only if the subject never had a message, so a record a leader has already claimed
        (deleted) is not written again by a slower observer (`KeyValue.create` would).
        """
        key = f"{DEATH_PREFIX}{beat.id}.{round(beat.beat_at.timestamp() * 1e6)}"
        try:
            await self.js.publish(
                f"$KV.{self.topology.workers_bucket}.{key}",
                _ENCODER.encode(beat),
                msg_ttl=int(self.settings.ack_wait) + 60,
                headers={"Nats-Expected-Last-Subject-Sequence": "0"},
            )
        except nats.js.errors.APIError as exc:
            if exc.err_code not in _WRONG_LAST_SEQUENCE:
                log.warning("supervisor.record_death_failed", worker=beat.id, error=describe(exc))
        except Exception as exc:  # disconnected: the dead worker's jobs come back after ack_wait
            log.warning("supervisor.record_death_failed", worker=beat.id, error=describe(exc))

    async def _recover_all(self) -> None:
        assert self._kv is not None
        horizon = utcnow() - timedelta(seconds=self.settings.ack_wait)
        for key, (beat, revision) in list(self._unrecovered.items()):
            try:  # claim the record: only one leader recovers a death, even across an election
                await self._kv.delete(key, last=revision)
            except nats.js.errors.APIError as exc:
                if exc.err_code not in _WRONG_LAST_SEQUENCE:
                    log.warning("supervisor.claim_failed", worker=beat.id, error=describe(exc))
                    continue
                self._unrecovered.pop(key, None)  # another leader claimed it
                continue
            except Exception as exc:
                log.warning("supervisor.claim_failed", worker=beat.id, error=describe(exc))
                continue
            self._unrecovered.pop(key, None)
            # Past ack_wait JetStream has redelivered by itself; a NAK now could hit a new holder.
            await self._recover(beat, nak=beat.beat_at >= horizon)

    async def _recover(self, beat: WorkerBeat, *, nak: bool = True) -> None:
        assert self._ledger is not None
        job_ids = []
        for held in beat.in_flight if nak else ():
            try:
                await self.nc.publish(held.reply, b"-NAK")
            except Exception as exc:
                log.warning("supervisor.nak_failed", error=describe(exc))
                continue
            if held.job_id:
                job_ids.append(held.job_id)
                await self._mark_queued(held.job_id, beat.id)
        await self.nc.flush()
        event = WorkerDied(
            worker=beat.id,
            host=beat.host,
            pid=beat.pid,
            last_beat_at=beat.beat_at,
            detected_at=utcnow(),
            recovered=len(beat.in_flight) if nak else 0,
            job_ids=job_ids,
            supervisor=self.id,
        )
        self.deaths.append(event)
        await self.nc.publish(self.topology.events_subject("worker.died"), _ENCODER.encode(event))
        log.warning(
            "worker.died",
            worker=beat.id,
            host=beat.host,
            pid=beat.pid,
            recovered=event.recovered,
            silent_for_s=(event.detected_at - beat.beat_at).total_seconds(),
        )
        for listener in self.listeners:
            listener(event)
        if nak and self._tg is not None:
            self._tg.start_soon(self._sweep, beat)

    async def _sweep(self, dead: WorkerBeat) -> None:
        """Hand back what the dead worker's last heartbeat could not list (see jetjobs.orphans).

        Snapshot the consumers' pending ranges, wait until every live worker has beaten since
        (each beat lists all it holds), then NAK what nobody holds.
        """
        assert self._ledger is not None
        try:
            windows = await snapshot(self.nc, self.topology, dead.queues)
            # Beats written after the snapshot (worker clocks: hosts are assumed NTP-synced).
            snapshot_at = utcnow()
            with anyio.move_on_after(3 * self.settings.heartbeat_interval):
                while any(b.beat_at <= snapshot_at for b in self.alive.values() if b.id != dead.id):
                    await self._beat_arrived.wait()
            # The dead worker's listed deliveries were NAKed already and may be running elsewhere
            # under a new delivery: count them as held.
            live = [b for b in self.alive.values() if b.id != dead.id] + [dead]
            await sweep_orphans(self.nc, self.topology, self._ledger, windows, live)
        except Exception as exc:
            log.warning("supervisor.sweep_failed", worker=dead.id, error=describe(exc))

    async def _mark_queued(self, job_id: str, dead_worker: str) -> None:
        assert self._ledger is not None
        record, revision = await self._ledger.get(job_id)
        if record is None or record.state != "running" or record.worker != dead_worker:
            return
        queued = msgspec.structs.replace(
            record,
            state="queued",
            worker=None,
            updated_at=utcnow(),
            error=f"worker {dead_worker} died during attempt {record.attempt}; redelivered",
        )
        await self._ledger.write(queued, revision)

    async def _campaign(self) -> None:
        """Hold the leader key while alive: take it when vacant, renew it by compare-and-set."""
        subject = f"$KV.{self.topology.workers_bucket}.{LEADER_KEY}"
        revision: int | None = None
        while True:
            try:
                if not self.is_leader:
                    revision = await self._vacant_revision()
                if revision is not None:
                    ack = await self.js.publish(
                        subject,
                        self.id.encode(),
                        msg_ttl=self.settings.heartbeat_ttl,
                        headers={"Nats-Expected-Last-Subject-Sequence": str(revision)},
                    )
                    revision = ack.seq
                    if not self.is_leader:
                        self._set_leader(True)
                        log.info("supervisor.elected", supervisor=self.id)
                        await self._recover_all()
            except Exception as exc:  # a lost CAS (someone else leads) or a lost connection
                if self.is_leader:
                    log.warning("supervisor.lost_leadership", supervisor=self.id, error=describe(exc))
                    self._set_leader(False)
                revision = None
            self._restart_watch_if_stale()
            await anyio.sleep(self.settings.heartbeat_interval)

    def _set_leader(self, leader: bool) -> None:
        self.is_leader = leader
        self._leadership_changed.set()
        self._leadership_changed = anyio.Event()

    async def wait_leadership(self, leader: bool = True) -> None:
        """Wait until this supervisor is (or, with `leader=False`, is not) the leader."""
        while self.is_leader != leader:
            await self._leadership_changed.wait()

    async def _vacant_revision(self) -> int | None:
        """The leader key's revision if nobody holds it (absent, deleted, expired), else None."""
        try:
            msg = await self.js.get_last_msg(
                f"KV_{self.topology.workers_bucket}", f"$KV.{self.topology.workers_bucket}.{LEADER_KEY}"
            )
        except nats.js.errors.NotFoundError:
            return 0
        headers = msg.headers or {}
        if headers.get("KV-Operation") in ("DEL", "PURGE") or "Nats-Marker-Reason" in headers:
            return msg.seq
        return None

    async def _resign(self) -> None:
        if self.is_leader and self._kv is not None:
            try:
                await self._kv.delete(LEADER_KEY)
            except Exception as exc:
                log.warning("supervisor.resign_failed", error=describe(exc))
            self._set_leader(False)


async def live_workers(nc: NATS, settings: Settings) -> list[WorkerBeat]:
    """The workers whose heartbeats have not expired, by id."""
    topology = Topology(settings)
    kv = await topology.workers_kv(nc.jetstream())
    try:
        keys = await kv.keys()
    except nats.js.errors.NoKeysError:
        return []
    beats = []
    for key in keys:
        if not key.startswith("workers."):
            continue
        try:
            entry = await kv.get(key)
        except nats.js.errors.KeyNotFoundError:
            continue
        if entry.value:
            beats.append(WORKER_BEAT_DECODER.decode(entry.value))
    return sorted(beats, key=lambda b: b.id)
