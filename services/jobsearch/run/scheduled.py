"""`jobsearch.scheduled_run`: a whole run fired by a schedule, with nobody at a terminal.

`jobsearch schedule add` keeps a schedule in the server (`jobsearch.run.schedule_command`); each
firing is a `jobsearch.scheduled_run` job on `jobsearch-runs`, which `jobsearch serve runs` (one
of the services `jobsearch up` keeps running) takes one at a time:

```
firing ─▶ read the profile (now: an edit since `schedule add` counts)
   invalid ─▶ the run recorded `failed` with the reason ─▶ a digest saying what to fix
   valid   ─▶ `jobsearch.run.owner.RunOwner`: the same steps as a typed `jobsearch run`
              (owed drafts, search, drain, closings, render, summary, digest)
```

The run's id is the firing's job id, so a firing redelivered after this service stopped or died
(`jobsearch up` stopped mid-run) is the same run again, continued: its submissions are keyed by
the run id and the platform drops what was already submitted, and its row in `runs` is kept.
The stage services must be running (`jobsearch up`); a stage nobody serves is logged while the
run waits for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path
from typing import Any

import anyio
import msgspec
import structlog

from jetjobs import App, ConfigError, JobContext, Publisher, live_workers
from jobsearch.db import immediate
from jobsearch.digest import failure_digest
from jobsearch.jobs import QUEUES, SCHEDULED_RUN, SOURCE, STAGES, ScheduledRunJob
from jobsearch.profile import Digest, ProfileError
from jobsearch.run.owner import RunOwner, recorded
from jobsearch.run.progress import Progress, follow_ledger
from jobsearch.run.start import read_profile
from jobsearch.run.summary import WATCHED, RunSummary
from jobsearch.settings import PipelineSettings, load_pipeline_settings
from jobsearch.store import Store

log = structlog.get_logger("jobsearch.run")

# A whole run under one lease: the platform extends it while the handler runs; this is the most
# a scheduled run may take before the platform calls it lost and runs it again.
RUN_TIMEOUT = 4 * 3600.0
_DIGEST_KEY = "digest:schedule:"
_RUN_ID = re.compile(
    r"^[A-Za-z0-9_-]{1,64}$"
)  # `jobsearch.jobs.RunId`  # store_meta: the last valid [digest] of a schedule's profile


def run_id_of(job_id: str) -> str:
    """The run id of a firing: the firing's job id (`<schedule's job id>-<stream seq>`), the same
    on every redelivery of one firing and different for every firing; hashed if too long."""
    if _RUN_ID.match(job_id):
        return job_id
    return f"s{hashlib.sha256(job_id.encode()).hexdigest()[:32]}"


def remember_digest(db_path: Path, schedule: str, settings: Digest) -> None:
    """Keep a schedule's last valid [digest], to tell the person should its profile break."""
    with Store.open(db_path) as store, immediate(store.conn) as conn:
        conn.execute(
            "INSERT INTO store_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_DIGEST_KEY + schedule, msgspec.json.encode(settings).decode()),
        )


def remembered_digest(db_path: Path, schedule: str) -> Digest:
    """The schedule's last valid [digest] (none kept: a digest that goes nowhere)."""
    with Store.open(db_path) as store:
        row = store.conn.execute(
            "SELECT value FROM store_meta WHERE key = ?", (_DIGEST_KEY + schedule,)
        ).fetchone()
    if row is None:
        return Digest()
    try:
        return msgspec.json.decode(row[0], type=Digest)
    except msgspec.ValidationError:
        return Digest()


async def run_scheduled(publisher: Publisher, job: ScheduledRunJob, run_id: str) -> dict[str, Any]:
    """One scheduled run, start to finish; the summary as the runs table keeps it."""
    pipeline = load_pipeline_settings()
    progress = Progress(WATCHED)
    progress.keep_results = frozenset({SOURCE})
    owner = RunOwner(
        publisher,
        progress,
        pipeline,
        run_id,
        note=lambda line: log.info("run.note", run_id=run_id, note=line),
    )
    trigger = f"schedule:{job.schedule}"
    try:
        profile = await anyio.to_thread.run_sync(read_profile, job.profile_path)
    except (ProfileError, ConfigError, OSError) as exc:
        return await _refuse(owner, pipeline, job, trigger, str(exc))
    await anyio.to_thread.run_sync(remember_digest, pipeline.db_path, job.schedule, profile.digest)
    owner.start(profile=job.profile_path, trigger=trigger)
    log.info("run.scheduled_started", run_id=run_id, schedule=job.schedule, profile=job.profile_path)
    subscription = await follow_ledger(publisher, progress)
    try:
        for queue in QUEUES.values():
            await publisher.topology.ensure_queue(publisher.js, queue)
        await _say_unserved(publisher, owner)
        await owner.submit_search(profile)
        await owner.drain_and_render()
        summary = owner.summarise()
        summary.command = "run"
        await owner.send_digest(profile.digest, summary)
        owner.finish(outcome="ok" if summary.exit_code == 0 else "failed", summary=recorded(summary))
    except BaseException:  # the service stopping (the next delivery runs it again), or a fault
        owner.finish(outcome="interrupted", summary={"interrupted": "the runs service stopped"})
        raise
    finally:
        with contextlib.suppress(Exception), anyio.move_on_after(2, shield=True):
            await subscription.unsubscribe()
    log.info(
        "run.scheduled_finished",
        run_id=run_id,
        schedule=job.schedule,
        exit_code=summary.exit_code,
        new=summary.listings_new,
        digest=summary.digest,
        digest_error=summary.digest_error,
    )
    return recorded(summary)


async def _refuse(
    owner: RunOwner, pipeline: PipelineSettings, job: ScheduledRunJob, trigger: str, reason: str
) -> dict[str, Any]:
    """A profile that cannot run: recorded as a failed run, and told (with the last valid
    [digest] of this schedule's profile)."""
    owner.start(profile=job.profile_path, trigger=trigger)
    why = f"the profile {job.profile_path} cannot run: {reason}"
    refused: dict[str, Any] = {"refused": why}
    settings = await anyio.to_thread.run_sync(remembered_digest, pipeline.db_path, job.schedule)
    if settings.enabled:
        summary = RunSummary(run_id=owner.run_id, seconds=0.0, trigger=trigger)
        message = failure_digest(settings, run_id=owner.run_id, reason=why, schedule=job.schedule)
        await owner.deliver(message, settings, summary)
        refused["digest"] = summary.digest
        refused["digest_error"] = summary.digest_error
    owner.finish(outcome="failed", summary=refused)
    log.warning("run.scheduled_refused", run_id=owner.run_id, schedule=job.schedule, reason=why)
    return refused


async def _say_unserved(publisher: Publisher, owner: RunOwner) -> None:
    """Log the stages no live worker serves: the run waits for them (`jobsearch up` starts them)."""
    with contextlib.suppress(Exception):
        served = {q for beat in await live_workers(publisher.nc, publisher.settings) for q in beat.queues}
        missing = [stage for stage in STAGES if QUEUES[stage] not in served]
        if missing:
            owner.note(f"no live service for {', '.join(missing)}: the run waits for `jobsearch up`")


def register(app: App) -> None:
    """Add the `jobsearch.scheduled_run` handler to `app` (`jobsearch serve runs`)."""

    @app.job(SCHEDULED_RUN, payload=ScheduledRunJob)
    async def scheduled_run(ctx: JobContext, job: ScheduledRunJob) -> dict[str, Any]:
        return await run_scheduled(ctx.publisher, job, run_id_of(ctx.id))
