"""One run's machinery, shared by `jobsearch run`, `replay` and `draft`: start the stage services,
follow the ledger, submit, wait for the drain, render the tracker, record and print the summary.

```
ledger follower ─▶ 4 x `jobsearch serve STAGE` ─▶ submit ─▶ wait until drained
 ─▶ record dead draft jobs as their listings' issues ─▶ `jobsearch.close_listings` (what the boards
 took down) ─▶ submit `jobsearch.tracker` (render)
 ─▶ wait for it ─▶ summary, exit code
```

Beside it all the whole time: SIGINT/SIGTERM (exit 128 + signal) and the server going away
(`jobsearch.run.server_watch`, exit 3), each stopping the services and recording the run
`interrupted`.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import anyio
import msgspec
from nats.aio.client import Client as NATS

from jetjobs import (
    Ledger,
    Publisher,
    Settings,
    StatusRecord,
    live_workers,
)
from jobsearch.dedupe.report import run_outcomes
from jobsearch.jobs import (
    CLOSE_LISTINGS,
    DRAFT,
    QUEUES,
    SOURCE,
    STAGES,
    TRACKER,
    CloseListingsJob,
    TrackerJob,
)
from jobsearch.run.children import ServiceFailed, StageServices
from jobsearch.run.display import Display
from jobsearch.run.fingerprint import OtherSettings, check_services
from jobsearch.run.owed import record_dead_drafts
from jobsearch.run.progress import Progress, follow_ledger, queues_idle, wait_drained
from jobsearch.run.server_watch import SERVER_LOST, ServerWatch
from jobsearch.run.summary import (
    CANNOT_RUN,
    WATCHED,
    RunSummary,
    format_summary,
    summarise,
    timings_lines,
)
from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store

_TICK = 2.0
# With --no-services, how often the run looks for a stage queue that waits and no worker serves.
_UNSERVED_CHECK = 3.0


def new_run_id() -> str:
    """A run id that sorts by time: `20261130T101500-1a2b3c`."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


async def _first(*waits: Callable[[], Awaitable[Any]]) -> None:
    """Wait until the first of `waits` returns; cancel the others."""
    async with anyio.create_task_group() as tg:

        async def one(wait: Callable[[], Awaitable[Any]]) -> None:
            await wait()
            tg.cancel_scope.cancel()

        for wait in waits:
            tg.start_soon(one, wait)


async def _wait_settled(
    publisher: Publisher, progress: Progress, job_id: str, on_retry: Callable[[str], None]
) -> StatusRecord | None:
    """The job's final ledger entry, from the follower (or a direct read, should its news be late).

    `on_retry` hears each new error of the job while it is being retried (a locked tracker).
    """
    settled = progress.watch(job_id)
    ledger = Ledger(await publisher.topology.status_kv(publisher.js))
    told = ""
    while True:
        with anyio.move_on_after(_TICK):
            await settled.wait()
            return progress.records[job_id]
        error = progress.errors.get(job_id, "")
        if error and error != told:
            on_retry(error)
            told = error
        try:
            record, _ = await ledger.get(job_id)  # (None, 0): not written yet
        except Exception:  # the server is away for now: ask again next tick
            continue
        if record is not None and record.state in ("succeeded", "dead", "cancelled"):
            return record


async def _refresh(display: Display, progress: Progress) -> None:
    while True:
        await progress.next_change().wait()
        display.refresh()
        await anyio.sleep(0.1)  # at most 10 redraws a second: the bars, not a synchronisation


class Orchestra:
    """One run's moving parts: the services, the ledger follower, the display, the store."""

    def __init__(self, args: argparse.Namespace, settings: Settings, nc: NATS, run_id: str) -> None:
        self.args = args
        self.command: str = getattr(args, "command", None) or "run"  # `run` or `replay`
        self.settings = settings
        self.nc = nc
        self.run_id = run_id
        self.publisher = Publisher(nc, settings)
        self.progress = Progress(WATCHED)
        self.progress.keep_results = frozenset({SOURCE})
        self.pipeline = load_pipeline_settings()
        self.started = time.monotonic()
        self.drafts_since: str | None = None  # a replay counts the drafts recorded since it began
        self.tracker: dict[str, Any] | None = None
        self.tracker_error: str | None = None
        self.service_error: str | None = None
        self.display: Display | None = None
        self.drafts_owed = 0  # listings owed a draft by earlier runs that this run submitted
        self.services: StageServices | None = None
        self.other_settings = ""  # services that run with other settings, with --no-services
        # `jobsearch run` closes what its whole reads no longer list (a profile's stale_after_days).
        self.close_after_days: int | None = None
        self.closings: dict[str, int] = {}

    async def run(self, submit: Callable[[], Awaitable[None]], *, sources: int = 0) -> RunSummary:
        """Start everything, `submit` the work, wait for the drain and the tracker; summarise."""
        subscription = await follow_ledger(self.publisher, self.progress)
        for queue in QUEUES.values():
            await self.publisher.topology.ensure_queue(self.publisher.js, queue)
        display = self.display = Display(self.progress, sources=sources)
        if self.other_settings:
            display.note(self.other_settings)
        try:
            async with anyio.create_task_group() as tg:
                services = self.services = StageServices(
                    [] if self.args.no_services else STAGES,
                    concurrency=self.args.concurrency,
                    on_restart=lambda stage, n: display.note(
                        f"the {stage} service exited; restarted it ({n}); its jobs are redelivered"
                    ),
                )
                async with services:
                    with display:
                        tg.start_soon(_refresh, display, self.progress)
                        if self.args.no_services:
                            tg.start_soon(self._warn_unserved, display)
                        await submit()
                        await _first(self._drain_and_render, services.failed.wait)
                        self.service_error = services.failure
                tg.cancel_scope.cancel()
        finally:
            # With the server gone this cannot be sent, and must not hide why the run ended.
            with contextlib.suppress(Exception), anyio.move_on_after(2, shield=True):
                await subscription.unsubscribe()
        with Store.open(self.pipeline.db_path) as store:
            numbers = store.run_numbers(self.run_id, drafts_since=self.drafts_since)
        outcomes = run_outcomes(self.pipeline.db_path, self.run_id)
        summary = summarise(
            self.run_id,
            time.monotonic() - self.started,
            self.progress,
            numbers,
            self.tracker,
            outcomes=outcomes,
        )
        summary.tracker_error = self.tracker_error
        summary.drafts_owed = self.drafts_owed
        summary.service_error = self.service_error
        summary.listings_closed = self.closings.get("closed", 0)
        summary.listings_reopened = self.closings.get("reopened", 0)
        summary.listings_stale = self.closings.get("stale", 0)
        return summary

    async def _warn_unserved(self, display: Display) -> None:
        """Say once per stage when its queue holds jobs and no live worker serves it.

        With `--no-services` the run relies on services started elsewhere; a missing one would
        otherwise look like a run that hangs.
        """
        told: set[str] = set()
        while len(told) < len(STAGES):
            await anyio.sleep(_UNSERVED_CHECK)  # a periodic look, not a synchronisation
            served = {queue for beat in await live_workers(self.nc, self.settings) for queue in beat.queues}
            for stage in STAGES:
                queue = QUEUES[stage]
                if queue in served or queue in told:
                    continue
                if not await queues_idle(self.publisher.js, self.publisher, [queue]):
                    display.note(
                        f"waiting: jobs are queued on {queue} and no live worker serves it "
                        f"(start `jobsearch serve {stage}`)"
                    )
                    told.add(queue)

    async def _close_listings(self, stale_after_days: int) -> None:
        """What the run's whole reads no longer list: closed, stale, reopened (recorded by the
        export stage before the render)."""
        job = await self.publisher.enqueue(
            CLOSE_LISTINGS,
            CloseListingsJob(run_id=self.run_id, stale_after_days=stale_after_days),
            queue=QUEUES["dedupe"],
            key=f"close:{self.run_id}",
        )
        record = await _wait_settled(self.publisher, self.progress, job.id, lambda _: None)
        if record is not None and record.state == "succeeded" and isinstance(record.result, dict):
            self.closings = {k: int(v) for k, v in record.result.items() if isinstance(v, int)}
        # Its listing states, on the export queue, are recorded before the tracker renders.
        await wait_drained(self.publisher, self.progress, [QUEUES["export"]])

    async def _drain_and_render(self) -> None:
        await wait_drained(self.publisher, self.progress, [QUEUES[stage] for stage in STAGES])
        # A draft job dead-lettered anyway (its worker lost on the last attempt) is its listing's
        # issue, like any failed draft: shown in the Review cell, drafted again by the next run.
        dead_drafts = [record for record in self.progress.dead if record.type == DRAFT]
        if dead_drafts:
            db_path = self.pipeline.db_path
            await anyio.to_thread.run_sync(
                record_dead_drafts, db_path, self.run_id, dead_drafts, self.progress.runs
            )
        if self.close_after_days is not None:
            await self._close_listings(self.close_after_days)
        job = await self.publisher.enqueue(
            TRACKER,
            TrackerJob(run_id=self.run_id),
            queue=QUEUES["export"],
            key=f"tracker:{self.run_id}",
            max_attempts=30,
            timeout=600.0,
        )

        def on_retry(error: str) -> None:
            if self.display is not None:
                self.display.note(f"tracker: {error.removeprefix('Retry: ')} (retrying)")

        record = await _wait_settled(self.publisher, self.progress, job.id, on_retry)
        if record is not None and record.state == "succeeded" and isinstance(record.result, dict):
            self.tracker = record.result
        else:
            self.tracker_error = (record.error if record else None) or "the render job did not finish"


def _print_summary(summary: RunSummary, *, timings: bool = False) -> None:
    for line in format_summary(summary):
        print(line)
    if timings:
        for line in timings_lines(summary):
            print(line)


async def conclude(orchestra: Orchestra, submit: Callable[[], Awaitable[None]], *, sources: int = 0) -> int:
    """Run, record the outcome in the store, print the summary; SIGINT/SIGTERM stop it cleanly
    (the services hand back their jobs, the run is recorded `interrupted`), and so does the server
    going away (one line, exit 3: `jobsearch.run.server_watch`)."""
    outcome = "interrupted"
    summary: RunSummary | None = None
    stopped_by: list[int] = []
    watch = ServerWatch(orchestra.nc, embedded=not orchestra.settings.nats.url)
    try:
        # Services left running with other settings (an old provider or key) would take this
        # run's jobs: refused before any of this run's own starts, or, with --no-services, said.
        starting = not orchestra.args.no_services
        orchestra.other_settings = (
            await check_services(orchestra.nc, orchestra.settings, starting_services=starting) or ""
        )
    except OtherSettings as exc:
        print(f"jobsearch: {exc}", file=sys.stderr)
        with Store.open(orchestra.pipeline.db_path) as store:
            store.finish_run(orchestra.run_id, outcome="failed", summary={"refused": str(exc)})
        return CANNOT_RUN
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_stop_on_signal, tg.cancel_scope, stopped_by)
            tg.start_soon(_stop_when_lost, watch, tg.cancel_scope, orchestra)
            summary = await orchestra.run(submit, sources=sources)
            summary.command = orchestra.command
            tg.cancel_scope.cancel()
    except ServiceFailed as exc:
        if not await watch.confirm():  # a service that could not reach a server that is gone
            print(f"jobsearch: a stage service did not start: {exc}", file=sys.stderr)
            outcome = "failed"
            return CANNOT_RUN
    except Exception:
        if not await watch.confirm():  # an error of its own, not the server's going away
            raise
    finally:
        with Store.open(orchestra.pipeline.db_path) as store:
            if summary is not None:
                outcome = "ok" if summary.exit_code == 0 else "failed"
            recorded: dict[str, Any] = {"interrupted": "server lost"} if watch.lost.is_set() else {}
            if summary is not None:
                recorded = msgspec.to_builtins(summary)
            store.finish_run(orchestra.run_id, outcome=outcome, summary=recorded)
    if watch.lost.is_set() and summary is None:
        await watch.close()
        print(watch.message(orchestra.run_id), file=sys.stderr)
        return SERVER_LOST
    if summary is None:
        signum = stopped_by[0] if stopped_by else signal.SIGINT
        print(
            f"jobsearch: run {orchestra.run_id} stopped by {signal.Signals(signum).name}; what was "
            "recorded is kept, and the jobs still queued run with the next `jobsearch run`",
            file=sys.stderr,
        )
        return 128 + signum
    _print_summary(summary, timings=getattr(orchestra.args, "timings", False))
    return summary.exit_code


async def _stop_when_lost(watch: ServerWatch, scope: anyio.CancelScope, orchestra: Orchestra) -> None:
    await watch.watch()
    if orchestra.services is not None:
        # Nothing can be handed back to a server that is gone: do not wait long for the services.
        orchestra.services.stop_timeout = min(orchestra.services.stop_timeout, 5.0)
    scope.cancel()


async def _stop_on_signal(scope: anyio.CancelScope, stopped_by: list[int]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            stopped_by.append(signum)
            scope.cancel()
            return
