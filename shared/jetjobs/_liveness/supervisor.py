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
(The leader key: jetjobs._liveness.election; the death records: jetjobs._liveness.death_records.)

An outage is not a death. When the server restarts or pauses, or this supervisor's own connection
drops, every worker's heartbeat goes quiet at once and the server may expire all their keys. So
after a reconnect, or a silence of the whole bucket, a supervisor first hears a full heartbeat TTL
of fresh beats: a worker whose key expired meanwhile is dead only if it has not beaten again by
then (`worker.silent_in_outage`, then `worker.back` or `worker.died`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import anyio
import anyio.abc
import nats.js.errors
import structlog
from anyio.abc import TaskStatus
from nats.aio.client import Client as NATS
from nats.js.kv import KeyValue

from jetjobs._errors import WRONG_LAST_SEQUENCE_CODES, describe_error
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.death_records import DEATH_PREFIX, record_death
from jetjobs._liveness.election import LEADER_KEY, current_leader, hold_leader, vacant_revision
from jetjobs._liveness.orphans import snapshot, sweep_orphans
from jetjobs._liveness.recovery import hand_back
from jetjobs._liveness.roster import live_workers
from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import ENCODER, WORKER_BEAT_DECODER, WorkerBeat, WorkerDied, utcnow

# live_workers lives in jetjobs._liveness.roster, LEADER_KEY and current_leader in .election,
# DEATH_PREFIX in .death_records; they are still imported from here.
__all__ = ["DEATH_PREFIX", "LEADER_KEY", "Supervisor", "current_leader", "live_workers", "served_queues"]

log = structlog.get_logger("jetjobs.supervisor")


class Supervisor:
    """Watches heartbeats; the elected one recovers the jobs of dead workers."""

    def __init__(
        self, nc: NATS, settings: Settings, *, supervisor_id: str, topology: Topology | None = None
    ) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.settings = settings
        self.id = supervisor_id
        self.topology = topology or Topology(settings)
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
        # Outages: since when this supervisor has heard the bucket without a gap, and the workers
        # whose keys expired before it had heard a full TTL since (judged once it has).
        self._hearing_since = 0.0
        self._seen_reconnects = 0
        self._suspects: dict[str, WorkerBeat] = {}

    async def run(
        self,
        *,
        ledger: Ledger | None = None,
        workers: KeyValue | None = None,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Watch and campaign until cancelled; `started` once the initial state is read.

        `ledger`: the status ledger to mark recovered jobs in; `workers`: the heartbeat bucket (a
        worker shares both of its own).
        """
        self._hearing_since = float("-inf")  # a start is not an outage
        self._seen_reconnects = self.nc.stats["reconnects"]
        await self.topology.ensure_base(self.js)
        self._kv = workers or await self.topology.workers_kv(self.js)
        self._ledger = ledger or Ledger(await self.topology.status_kv(self.js))
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
                log.warning("supervisor.watch_failed", error=describe_error(exc))
                await anyio.sleep(self.settings.heartbeat_interval)
                continue
            try:
                with anyio.CancelScope() as self._watch_scope:  # cancelled by _campaign's tick
                    async for entry in watcher:
                        self._note_gap()
                        self._last_entry = anyio.current_time()
                        if entry is None:  # the initial values have been delivered
                            if not started:
                                task_status.started()
                                started = True
                            continue
                        with anyio.CancelScope(shield=True):  # a restart must not cut a recovery short
                            await self._on_entry(entry)
                        self._last_entry = anyio.current_time()  # a long recovery is not a silence
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
            self._hearing_since = anyio.current_time()

    def _note_gap(self) -> None:
        """Start a new hearing period after a reconnect, a disconnection or a silent bucket.

        The bucket is never quiet for long while this supervisor hears it: the leader renews its
        key every heartbeat interval, and every live worker beats as often.
        """
        now = anyio.current_time()
        reconnects = self.nc.stats["reconnects"]
        if (
            reconnects != self._seen_reconnects
            or not self.nc.is_connected
            or now - self._last_entry > 2 * self.settings.heartbeat_interval
        ):
            self._seen_reconnects = reconnects
            self._hearing_since = now

    def _in_outage(self) -> bool:
        """Whether this supervisor has heard the bucket for less than a heartbeat TTL."""
        self._note_gap()
        return anyio.current_time() - self._hearing_since < self.settings.heartbeat_ttl

    async def _judge_suspects(self) -> None:
        """After a full TTL of hearing: a suspect that beat again is back; one that did not died."""
        if not self._suspects or self._in_outage():
            return
        for worker_id, beat in list(self._suspects.items()):
            del self._suspects[worker_id]
            back = self.alive.get(worker_id)
            if back is not None and back.beat_at > beat.beat_at:
                gap = (back.beat_at - beat.beat_at).total_seconds()
                log.info("worker.back", worker=worker_id, silent_for_s=gap)
                continue
            await self._record_death(beat)

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
            if self._suspects.pop(worker_id, None) is not None:
                log.info("worker.back", worker=worker_id)
            self._beat_arrived.set()
            self._beat_arrived = anyio.Event()
            return
        beat = self.alive.pop(worker_id, None)
        if entry.operation == "DEL":
            self._suspects.pop(worker_id, None)
            log.info("worker.left", worker=worker_id)
            return
        if beat is None:  # expired before this supervisor saw it; one that saw it records it
            return
        # PURGE: the server's delete marker for an expired heartbeat. The worker is dead or hung,
        # or the server (or this supervisor's connection) was away and every key expired at once.
        if self._in_outage():
            self._suspects[worker_id] = beat
            judged_at = self._hearing_since + self.settings.heartbeat_ttl
            log.info(
                "worker.silent_in_outage",
                worker=worker_id,
                silent_for_s=(utcnow() - beat.beat_at).total_seconds(),
                judged_in_s=round(judged_at - anyio.current_time(), 2),
            )
            return
        await self._record_death(beat)

    async def _record_death(self, beat: WorkerBeat) -> None:
        """Record the death for the leader, present or future (jetjobs._liveness.death_records)."""
        await record_death(self.js, self.topology.workers_bucket, self.settings, beat)

    async def _recover_all(self) -> None:
        assert self._kv is not None
        for key, (beat, revision) in list(self._unrecovered.items()):
            try:  # claim the record: only one leader recovers a death, even across an election
                await self._kv.delete(key, last=revision)
            except nats.js.errors.APIError as exc:
                if exc.err_code not in WRONG_LAST_SEQUENCE_CODES:
                    log.warning("supervisor.claim_failed", worker=beat.id, error=describe_error(exc))
                    continue
                self._unrecovered.pop(key, None)  # another leader claimed it
                continue
            except Exception as exc:
                log.warning("supervisor.claim_failed", worker=beat.id, error=describe_error(exc))
                continue
            self._unrecovered.pop(key, None)
            now_beat = self.alive.get(beat.id)
            if now_beat is not None and now_beat.beat_at > beat.beat_at:
                # Recorded by an observer in an outage of its own; the worker has beaten since.
                log.info("worker.back", worker=beat.id, recorded_by_observer=True)
                continue
            await self._recover(beat)

    async def _recover(self, beat: WorkerBeat) -> None:
        """Hand back the dead worker's deliveries (jetjobs._liveness.recovery), announce the death,
        then sweep for the deliveries its last beat could not list."""
        assert self._ledger is not None
        recovered, job_ids = await hand_back(
            self.nc, self.js, topology=self.topology, settings=self.settings, ledger=self._ledger, beat=beat
        )
        event = WorkerDied(
            worker=beat.id,
            host=beat.host,
            pid=beat.pid,
            last_beat_at=beat.beat_at,
            detected_at=utcnow(),
            recovered=recovered,
            job_ids=job_ids,
            supervisor=self.id,
        )
        self.deaths.append(event)
        await self.nc.publish(self.topology.events_subject("worker.died"), ENCODER.encode(event))
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
        if self._tg is not None:
            self._tg.start_soon(self._sweep, beat)

    async def _sweep(self, dead: WorkerBeat) -> None:
        """Hand back what the dead worker's last heartbeat could not list (see jetjobs._liveness.orphans).

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
            log.warning("supervisor.sweep_failed", worker=dead.id, error=describe_error(exc))

    async def _campaign(self) -> None:
        """Hold the leader key while alive: take it when vacant, renew it by compare-and-set."""
        bucket = self.topology.workers_bucket
        revision: int | None = None
        while True:
            try:
                if not self.is_leader:
                    revision = await vacant_revision(self.js, bucket)
                if revision is not None:
                    revision = await hold_leader(
                        self.js, bucket, self.id, revision=revision, ttl=self.settings.heartbeat_ttl
                    )
                    if not self.is_leader:
                        self._set_leader(True)
                        log.info("supervisor.elected", supervisor=self.id)
                        await self._recover_all()
            except Exception as exc:  # a lost CAS (someone else leads) or a lost connection
                if self.is_leader:
                    log.warning("supervisor.lost_leadership", supervisor=self.id, error=describe_error(exc))
                    self._set_leader(False)
                revision = None
            self._restart_watch_if_stale()
            with anyio.CancelScope(shield=True):  # like the watch's handling of an entry
                await self._judge_suspects()
            await anyio.sleep(self.settings.heartbeat_interval)

    def _set_leader(self, leader: bool) -> None:
        self.is_leader = leader
        self._leadership_changed.set()
        self._leadership_changed = anyio.Event()

    async def wait_leadership(self, leader: bool = True) -> None:
        """Wait until this supervisor is (or, with `leader=False`, is not) the leader."""
        while self.is_leader != leader:
            await self._leadership_changed.wait()

    async def _resign(self) -> None:
        if self.is_leader and self._kv is not None:
            try:
                await self._kv.delete(LEADER_KEY)
            except Exception as exc:
                log.warning("supervisor.resign_failed", error=describe_error(exc))
            self._set_leader(False)


def served_queues(beats: Iterable[WorkerBeat]) -> set[str]:
    """The queues that these workers serve."""
    return {queue for beat in beats for queue in beat.queues}
