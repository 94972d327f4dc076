"""The kill-worker proof's ledger: the numbers that prove (or disprove) its claim, as text lines.

Built from the audit (jetjobs._demo.audit) and the facts of the run (`KillRun`): what was killed
and when, how its jobs came back (the supervisor's NAK, or `ack_wait`), what ran twice and why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from jetjobs._demo.audit import Audit
from jetjobs._processes import WorkerPool, WorkerProcess
from jetjobs._settings import Settings
from jetjobs._wire.envelope import TERMINAL_STATES, WorkerDied


@dataclass
class KillRun:
    """The facts of one kill-worker run, besides the audit."""

    settings: Settings
    pool: WorkerPool
    victim: WorkerProcess
    was_leader: bool
    done_at_kill: int
    started: float  # monotonic: first submit
    killed_at: float  # monotonic
    killed_wall: datetime
    submitted_in: float
    drained_at: float
    undrained: int
    deaths: list[tuple[float, WorkerDied]]


def ledger_lines(audit: Audit, run: KillRun) -> list[str]:
    """The demo's ledger: the numbers that prove (or disprove) the claim."""
    s, victim = run.settings, run.victim
    lines = [
        "",
        "jetjobs demo kill-worker: ledger",
        f"  namespace               {s.namespace}",
        f"  workers                 {len(run.pool.processes)} x concurrency {run.pool.concurrency} "
        f"(ack_wait {s.ack_wait:g} s, heartbeat every {s.heartbeat_interval:g} s, ttl {s.heartbeat_ttl} s)",
        f"  submitted               {audit.submitted} (published in {run.submitted_in:.2f} s)",
        f"  killed                  {victim.describe()}"
        + (", the elected supervisor," if run.was_leader else "")
        + f" with SIGKILL after {run.done_at_kill} completions",
    ]
    died = [(at, event) for at, event in run.deaths if event.worker == victim.worker_id]
    if died:
        at, event = died[0]
        lines.append(
            f"  worker died event       {at - run.killed_at:.2f} s after the kill (from supervisor "
            f"{event.supervisor}; it NAKed the {event.recovered} deliveries of the last heartbeat)"
        )
    else:
        lines.append("  worker died event       none received")
    lines += [
        f"  completed               {audit.completed} (succeeded {audit.states['succeeded']}, "
        f"dead {audit.states['dead']})",
        f"  lost                    {len(audit.lost)}"
        + (f" ({run.undrained} not finished when the wait ended)" if run.undrained else ""),
        f"  duplicate completions   {len(audit.duplicate_completions)}",
        f"  handler executions      {audit.executions}",
        f"  duplicate executions    {len(audit.duplicate_executions)} job(s) ran twice",
    ]
    lines += [f"      {count:>5}  {why}" for why, count in audit.reasons.most_common()]
    lines += _recovery_lines(audit, run)
    counts: Counter[str] = Counter()
    for p in run.pool.processes:
        if p is not victim:
            counts.update(p.counts)
    if counts["skipped"]:
        lines.append(
            f"  redelivered, skipped    {counts['skipped']} (completed in the ledger by the killed worker, "
            "its ack unsent: acked without running)"
        )
    if audit.missing_events:
        lines.append(
            f"  events not published    {len(audit.missing_events)} (the killed worker completed them "
            "but died before announcing; the ledger has them)"
        )
    crashed = run.pool.crashed()
    lines.append(f"  workers crashed         {len(crashed)}")
    lines += [f"      {p.describe()}" for p in crashed]
    elapsed = run.drained_at - run.started
    before = run.killed_at - run.started
    lines.append(
        f"  throughput              {run.done_at_kill / before:.0f} jobs/s before the kill "
        f"({len(run.pool.processes)} workers); {audit.completed / elapsed:.0f} jobs/s overall "
        f"({audit.completed} in {elapsed:.2f} s)"
    )
    ok = audit.ok and not crashed
    lines.append(
        "  verdict                 " + ("OK: nothing lost, nothing completed twice" if ok else "FAILED")
    )
    return lines


def _recovery_lines(audit: Audit, run: KillRun) -> list[str]:
    """How the killed worker's jobs came back: by the supervisor's NAK, or after ack_wait."""
    # demo.work never fails, so a job that finished on a later attempt was redelivered.
    finished = {
        job_id: (record.updated_at - run.killed_wall).total_seconds()
        for job_id, record in audit.records.items()
        if record.attempt > 1 and record.state in TERMINAL_STATES
    }
    if not finished:
        return ["  recovered jobs          0"]
    late_after = run.settings.ack_wait / 2
    fast = [t for t in finished.values() if t < late_after]
    late = [t for t in finished.values() if t >= late_after]
    lines = [
        f"  recovered jobs          {len(finished)} (delivered to the killed worker, finished elsewhere); "
        f"the last {max(finished.values()):.2f} s after the kill"
    ]
    if fast:
        lines.append(
            f"      {len(fast):>5}  NAKed by the supervisor, redelivered at once: "
            f"the last finished {max(fast):.2f} s after the kill"
        )
    if late:
        lines.append(
            f"      {len(late):>5}  fetched after its last heartbeat, so back only after ack_wait: "
            f"the last finished {max(late):.2f} s after the kill"
        )
    return lines
