"""`jobsearch run` and `jobsearch replay`: what each submits to a run (`jobsearch.run.orchestra`).

```
run:    the drafts owed from earlier runs (`jobsearch.run.owed`), then the profile's search
replay: the platform's replay of one stage's recent jobs
draft:  the drafts owed only (`jobsearch.run.draft_command`)
```
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import structlog
from nats.aio.client import Client as NATS

from jetjobs import (
    ReplayPlan,
    ReplayReport,
    Settings,
    plan_replay,
    replay,
)
from jobsearch.jobs import (
    DRAFT,
    EXPORT,
    LISTING_BATCH,
    SOURCE,
    STAGES,
    Stage,
)
from jobsearch.profile_location import profile_path
from jobsearch.run.draft_command import add_draft_command
from jobsearch.run.orchestra import Orchestra, conclude, new_run_id
from jobsearch.run.start import checked_profile
from jobsearch.run.summary import CANNOT_RUN
from jobsearch.store.clock import utcnow_exact

log = structlog.get_logger("jobsearch.run")

# The job type each stage's queue runs, for `replay --stage`.
STAGE_JOB: dict[Stage, str] = {"fetch": SOURCE, "dedupe": LISTING_BATCH, "draft": DRAFT, "export": EXPORT}


async def cmd_run(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    """`jobsearch run --profile PROFILE`."""
    args.profile = str(profile_path(args.profile, "run"))
    profile = checked_profile(args.profile, "run")
    if profile is None:
        return CANNOT_RUN
    orchestra = Orchestra(args, settings, nc, new_run_id())
    orchestra.digest = profile.digest
    orchestra.owner.start(profile=str(Path(args.profile).resolve()), trigger="typed")  # noqa: ASYNC240 - once, at start

    async def submit() -> None:
        await orchestra.owner.submit_search(profile)

    return await conclude(orchestra, submit, sources=len(profile.sources))


async def cmd_replay(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    """`jobsearch replay --since 1h --stage draft`: run one stage's recent jobs again, end to end."""
    stage: Stage = args.stage
    plan = plan_replay(args.since, until=args.until, job_type=STAGE_JOB[stage], again=args.again)
    # The platform's rules (replays are not replayed; what another replay replayed is left alone
    # unless --again) decide what runs: count first, so that a repeat starts nothing and says why.
    preview = await replay(nc, settings, plan, dry_run=True)
    count = preview.to_publish
    # What runs is what was counted: jobs stored after the count are not part of this replay.
    plan = msgspec.structs.replace(plan, through_seq=preview.end_seq)
    if args.dry_run:
        print(f"replay {plan.replay_id}: would run {count} {stage} jobs again")
        if count == 0:
            print(nothing_to_replay(stage, plan, preview))
        return 0
    if count == 0:
        print(nothing_to_replay(stage, plan, preview))
        return 0
    orchestra = Orchestra(args, settings, nc, new_run_id())
    orchestra.owner.drafts_since = utcnow_exact()
    orchestra.owner.start(profile=f"replay --stage {stage} --since {args.since}", trigger="replay")

    async def submit() -> None:
        report = await replay(nc, settings, plan)
        log.info("run.replayed", replay_id=plan.replay_id, published=report.published, matched=report.matched)

    return await conclude(orchestra, submit)


def nothing_to_replay(stage: Stage, plan: ReplayPlan, report: ReplayReport) -> str:
    """Why a replay of `stage` would run nothing, and what to type instead."""
    window = f"since {_utc(plan.since)}" + (f" until {_utc(plan.until)}" if plan.until else "")
    if report.replayed_before:
        return (
            f"nothing to replay: the {report.replayed_before} {stage} jobs {window} were replayed "
            "before (add --again to run them once more)"
        )
    if report.already_replayed:
        return f"nothing to replay: this replay ({window}) ran before, {report.already_replayed} jobs"
    if report.skipped_replays:
        return (
            f"nothing to replay: the {report.skipped_replays} {stage} jobs {window} are replays "
            "themselves (a replay runs the originals)"
        )
    return f"nothing to replay: no {stage} job ran {window}"


def _utc(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def add_run_commands(sub: Any) -> None:
    """Add `run` and `replay` to the `jobsearch` parser."""
    p = sub.add_parser(
        "run",
        help="run a search end to end and update the tracker",
        description="Start the four stage services, submit the profile's search, show progress, wait "
        "until the pipeline drains, render the tracker and print a summary. Exit status: 0 all went "
        "well, 1 something failed (named in the summary), 2 the run could not start, 3 the NATS server "
        "went away mid-run.",
    )
    p.add_argument(
        "--profile",
        metavar="PROFILE",
        help="the profile TOML file (default $JOBSEARCH_PROFILE, else ~/.config/jobsearch/profile.toml)",
    )
    p.add_argument(
        "--timings", action="store_true", help="also print each job type's count, busy time and rate"
    )
    _add_service_options(p)
    p.set_defaults(func=cmd_run)
    p = sub.add_parser(
        "replay",
        help="run one stage's recent jobs again (e.g. re-draft after switching provider)",
        description="Replay the jobs STAGE ran since --since (the platform's replay: new jobs that "
        "name their origin), run the pipeline from there and render the tracker. The same command "
        "typed twice adds nothing and says why: replays are not replayed, and jobs an earlier "
        "replay ran are left alone unless --again.",
    )
    p.add_argument("--stage", required=True, choices=STAGES, help="the stage whose jobs to run again")
    p.add_argument("--since", required=True, help="how far back: a duration (1h, 30m) or an RFC 3339 time")
    p.add_argument("--until", help="the end of the window (default: now)")
    p.add_argument("--dry-run", action="store_true", help="count what would be replayed; run nothing")
    p.add_argument(
        "--again",
        action="store_true",
        help="also run the jobs an earlier replay already ran again (default: a repeat adds nothing)",
    )
    _add_service_options(p)
    p.set_defaults(func=cmd_replay)
    add_draft_command(sub, _add_service_options)


def _add_service_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-c", "--concurrency", type=int, default=10, help="jobs each stage service runs at once (default 10)"
    )
    p.add_argument(
        "--no-services",
        action="store_true",
        help="start no stage services: use the `jobsearch serve STAGE` services already running",
    )
