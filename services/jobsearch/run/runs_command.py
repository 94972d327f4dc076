"""`jobsearch runs`: the history of runs from the state of record, so that a scheduled run that
ran at 07:30 while nobody watched can be checked afterwards; `jobsearch runs show RUN_ID` prints
one run's whole summary. No NATS: it reads the SQLite file (safely beside a running pipeline).

```
2026-11-30 08:30  20261130T063000-4d5e6f  schedule:morning failed            3s  refused: stage ...
2026-11-30 07:30  20261130T053000-1a2b3c  schedule:morning ok            4m 12s  new 3, updated 1, ...
```
Started in local time, to the minute; then the id (for `runs show`), the trigger, the outcome, the
duration, and the counts: new, updated, drafted, need review, not drafted, closed, failures, and
the digest's outcome when it has one.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

import msgspec

from jobsearch.run.summary import RunSummary
from jobsearch.run.summary_lines import format_summary
from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store
from jobsearch.store.run_history import PastRun, past_run, past_runs

NOT_FOUND = 1  # as `jobsearch mark` for an unknown listing
BAD_INPUT = 2  # an ambiguous prefix, as `jobsearch mark`
_JSON = msgspec.json.Encoder()
# Stored summaries that are a reason, not a RunSummary (`run.orchestra`, `run.scheduled`).
_REASONS = ("refused", "interrupted")


def cmd_runs(args: argparse.Namespace) -> int:
    """Print the most recent runs, newest first: when, what started it, how it ended, what it found."""
    db_path = load_pipeline_settings().db_path
    if not db_path.exists():  # reading must not create the data dir's database
        runs: list[PastRun] = []
    else:
        with Store.open(db_path) as store:
            runs = past_runs(store.conn, limit=args.limit)
    if args.json:
        sys.stdout.write(_JSON.encode(runs).decode() + "\n")
        return 0
    if not runs:
        print(f"no runs yet in {db_path}: `jobsearch run --profile PROFILE` starts one")
        return 0
    now = datetime.now(UTC)
    for run in runs:
        print(run_line(run, now=now))
    more = f" (the newest {args.limit}; --limit N for more)" if len(runs) == args.limit else ""
    print(f"\n{len(runs)} run(s){more} in {db_path}; `jobsearch runs show RUN_ID` prints one in full")
    return 0


def cmd_runs_show(args: argparse.Namespace) -> int:
    """Print one run (its id, or a unique prefix of it) with its whole summary."""
    db_path = load_pipeline_settings().db_path
    run: PastRun | None = None
    if db_path.exists():
        with Store.open(db_path) as store:
            try:
                run = past_run(store.conn, args.run_id)
            except ValueError as exc:
                print(f"jobsearch runs show: {exc}", file=sys.stderr)
                return BAD_INPUT
    if run is None:
        print(
            f"jobsearch runs show: no run has the id {args.run_id!r} in {db_path} "
            "(`jobsearch runs` lists them)",
            file=sys.stderr,
        )
        return NOT_FOUND
    if args.json:
        sys.stdout.write(_JSON.encode(run).decode() + "\n")
        return 0
    for line in show_lines(run, now=datetime.now(UTC)):
        print(line)
    return 0


def run_line(run: PastRun, *, now: datetime) -> str:
    """One run on one line: started (local time), id, trigger, outcome, duration, what it did."""
    outcome = run.outcome or "running"
    head = f"{_local(run.started_at)}  {run.run_id}  {_text(run.trigger):<16} {outcome:<11}"
    return f"{head} {_duration(run, now):>8}  {numbers(run.summary)}".rstrip()


def numbers(summary: dict[str, Any]) -> str:
    """`new 3, updated 1, drafted 3, 1 need review, closed 2; digest sent: email (4 listings)`,
    or the reason a run stored instead of a summary (`refused: ...`)."""
    reasons = [f"{key}: {_text(str(summary[key]))}" for key in _REASONS if key in summary]
    if reasons:
        # A refused scheduled run may still have told the person, with a failure digest.
        return "; ".join(reasons) + _digest(summary)
    if "run_id" not in summary:  # not a RunSummary: its keys as they are (an empty one: nothing)
        return "; ".join(f"{key}: {_value(v)}" for key, v in summary.items() if v is not None)
    sources = f"sources {_count(summary, 'sources_ok')} ok"
    if summary.get("sources_failed"):
        sources += f"/{len(summary.get('sources_failed') or [])} failed"
    parts = [
        sources,
        f"new {_count(summary, 'listings_new')}",
        f"updated {_count(summary, 'listings_updated')}",
    ]
    drafted = _count(summary, "drafted_listings") or sum(
        _count(usage, "drafts") for usage in summary.get("drafts") or [] if isinstance(usage, dict)
    )
    parts.append(f"drafted {drafted}")
    optional = (
        (_count(summary, "needs_review"), "{} need review"),
        (sum(_counts(summary.get("draft_issues"))), "{} not drafted"),
        (_count(summary, "listings_closed"), "closed {}"),
        (_count(summary, "listings_stale"), "stale {}"),
        (_count(summary, "listings_reopened"), "reopened {}"),
        (_count(summary, "failed_jobs"), "jobs failed {}"),
    )
    parts.extend(template.format(n) for n, template in optional if n)
    usages = [usage for usage in summary.get("drafts") or [] if isinstance(usage, dict)]
    tokens = sum(_count(usage, "tokens_in") + _count(usage, "tokens_out") for usage in usages)
    cost = sum(
        float(usage.get("cost_usd") or 0)
        for usage in usages
        if isinstance(usage.get("cost_usd"), int | float)
    )
    if tokens:
        parts.append(f"{tokens:,} tokens" + (f" ${cost:.2f}" if cost else ""))
    if summary.get("tracker_error"):
        parts.append("tracker NOT written")
    if summary.get("service_error"):
        parts.append("a service failed")
    return ", ".join(parts) + _digest(summary)


def _digest(summary: dict[str, Any]) -> str:
    """`; digest sent: email (4 listings)`, `; digest failed: ...`, or nothing (no [digest])."""
    said = ""
    if summary.get("digest"):
        said += f"; digest {_text(str(summary['digest']))}"
    if summary.get("digest_error"):
        said += f"; digest failed: {_text(str(summary['digest_error']))}"
    return said


def show_lines(run: PastRun, *, now: datetime) -> list[str]:
    """`jobsearch runs show`: the run's record, then its summary as `jobsearch run` printed it (or
    its stored keys, one a line, when the summary is a reason or predates today's shape)."""
    finished = f"; finished {_local(run.finished_at)}" if run.finished_at else ""
    lines = [
        f"run {run.run_id}",
        f"  started    {_local(run.started_at)} (local time){finished}; {_duration(run, now).strip()}",
        f"  trigger    {_text(run.trigger)}",
        f"  profile    {_text(run.profile) or '-'}",
        f"  outcome    {run.outcome or 'running'}",
    ]
    if not run.summary:
        lines.append("  summary    none stored" + (" yet" if run.outcome is None else ""))
        return lines
    try:
        summary = msgspec.convert(run.summary, RunSummary)
    except msgspec.ValidationError:
        lines.extend(f"  {key}: {_value(value)}" for key, value in run.summary.items() if value is not None)
        return lines
    shown = [_text(line) for line in format_summary(summary)]
    lines.extend(shown)
    # format_summary ends with the tracker; the digest is said after it (unless a newer
    # format_summary says it already).
    if not any(line.startswith("  digest") for line in shown):
        if summary.digest:
            lines.append(f"  digest     {_text(summary.digest)}")
        if summary.digest_error:
            lines.append(f"  digest     failed: {_text(summary.digest_error)}")
    return lines


def _local(moment: datetime) -> str:
    return f"{moment.astimezone():%Y-%m-%d %H:%M}"


def _duration(run: PastRun, now: datetime) -> str:
    seconds = run.summary.get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        # No stored duration (a refused or interrupted run): from the record's own times.
        end = run.finished_at or (now if run.outcome is None else None)
        if end is None:
            return "-"
        seconds = (end - run.started_at).total_seconds()
    text = _span(max(float(seconds), 0.0))
    return f"{text} so far" if run.outcome is None else text


def _span(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def _count(values: dict[str, Any], key: str) -> int:
    value = values.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _counts(value: object) -> list[int]:
    if not isinstance(value, dict):
        return []
    return [n for n in value.values() if isinstance(n, int) and not isinstance(n, bool)]


def _value(value: object) -> str:
    return _text(value if isinstance(value, str) else _JSON.encode(value).decode())


def _text(text: str) -> str:
    # Reasons and failures may carry a board's text: printed as data, control characters escaped.
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def add_runs_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `runs` (and `runs show RUN_ID`) to the `jobsearch` parser."""
    p = subparsers.add_parser(
        "runs",
        help="the history of runs: when, what started it, how it ended, what it found",
        description="The most recent runs, newest first, from the pipeline's SQLite file "
        "(JOBSEARCH_DATA_DIR, JOBSEARCH_DB): when each started (local time), what started it "
        "(typed, schedule:<name>, replay, draft), how it ended, how long it took and what it found. "
        "`jobsearch runs show RUN_ID` prints one run's whole summary.",
    )
    p.add_argument("--limit", type=_positive, default=20, metavar="N", help="the newest N runs (default 20)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON (run_id, started_at, finished_at, trigger, outcome, profile, summary)",
    )
    p.set_defaults(func=None, local=cmd_runs)
    actions = p.add_subparsers(dest="runs_action")  # optional: `jobsearch runs` alone lists
    show = actions.add_parser(
        "show", help="one run with its whole summary", description=cmd_runs_show.__doc__
    )
    show.add_argument("run_id", metavar="RUN_ID", help="the run's id, or a unique prefix of it")
    # SUPPRESS: `runs --json show ID` keeps the --json given before `show` (a subparser's own
    # default would overwrite it).
    show.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    show.set_defaults(func=None, local=cmd_runs_show)
