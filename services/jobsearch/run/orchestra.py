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
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import anyio
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings, live_workers
from jobsearch.jobs import QUEUES, SOURCE, STAGES, Service
from jobsearch.profile import Digest
from jobsearch.run.children import ServiceFailed, StageServices
from jobsearch.run.display import Display
from jobsearch.run.fingerprint import OtherSettings, check_services
from jobsearch.run.owner import RunOwner, recorded
from jobsearch.run.progress import Progress, follow_ledger, queues_idle
from jobsearch.run.server_watch import SERVER_LOST, ServerWatch, stop_when_lost
from jobsearch.run.summary import CANNOT_RUN, WATCHED, RunSummary
from jobsearch.run.summary_lines import format_summary, timings_lines
from jobsearch.settings import load_pipeline_settings

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
        self.display: Display | None = None
        # The work around the run, shared with scheduled runs (`jobsearch.run.owner`).
        self.owner = RunOwner(self.publisher, self.progress, self.pipeline, run_id, note=self._note)
        self.service_error: str | None = None
        self.services: StageServices | None = None
        self.other_settings = ""  # services that run with other settings, with --no-services
        self.digest: Digest | None = None  # the profile's [digest], sent after the summary

    def _note(self, line: str) -> None:
        if self.display is not None:
            self.display.note(line)

    async def run(self, submit: Callable[[], Awaitable[None]], *, sources: int = 0) -> RunSummary:
        """Start everything, `submit` the work, wait for the drain and the tracker; summarise."""
        subscription = await follow_ledger(self.publisher, self.progress)
        for queue in QUEUES.values():
            await self.publisher.topology.ensure_queue(self.publisher.js, queue)
        display = self.display = Display(self.progress, sources=sources)
        if self.other_settings:
            display.note(self.other_settings)
        summary: RunSummary | None = None
        try:
            async with anyio.create_task_group() as tg:
                digest = self.digest is not None and self.digest.enabled
                wanted: list[Service] = [*STAGES, "digest"] if digest else [*STAGES]
                services = self.services = StageServices(
                    [] if self.args.no_services else wanted,
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
                        await _first(self.owner.drain_and_render, services.failed.wait)
                        self.service_error = services.failure
                        summary = self.owner.summarise()
                        summary.service_error = self.service_error
                        if self.digest is not None and self.digest.enabled and self.service_error is None:
                            display.note("sending the digest")
                            await self.owner.send_digest(self.digest, summary)
                tg.cancel_scope.cancel()
        finally:
            # With the server gone this cannot be sent, and must not hide why the run ended.
            with contextlib.suppress(Exception), anyio.move_on_after(2, shield=True):
                await subscription.unsubscribe()
        if summary is None:  # the task group ended without one: only a cancellation gets here
            raise anyio.get_cancelled_exc_class()()
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
        orchestra.owner.finish(outcome="failed", summary={"refused": str(exc)})
        return CANNOT_RUN
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_on_signal, tg.cancel_scope, stopped_by)
            tg.start_soon(stop_when_lost, watch, tg.cancel_scope, lambda: orchestra.services)
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
        if summary is not None:
            outcome = "ok" if summary.exit_code == 0 else "failed"
            orchestra.owner.finish(outcome=outcome, summary=recorded(summary))
        else:
            lost = {"interrupted": "server lost"} if watch.lost.is_set() else {}
            orchestra.owner.finish(outcome=outcome, summary=lost)
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


async def stop_on_signal(scope: anyio.CancelScope, stopped_by: list[int]) -> None:
    """Cancel `scope` on the first SIGINT or SIGTERM, noting which it was in `stopped_by`."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            stopped_by.append(signum)
            scope.cancel()
            return
