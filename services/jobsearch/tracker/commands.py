"""`jobsearch export`, `jobsearch mark` and `jobsearch status`: the tracker and the state of record
from the command line. None of them needs NATS: they read and write the SQLite file (safely beside
a running pipeline) and the tracker file."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

from jobsearch.settings import load_pipeline_settings
from jobsearch.stdout import closed_pipe
from jobsearch.store import STATUSES, Store, StoreError, UnknownListing
from jobsearch.store.drafting import issue_counts, review_counts
from jobsearch.tracker import TrackerError, TrackerReport, export_csv, export_tracker, write_csv


def _report_lines(report: TrackerReport) -> list[str]:
    lines = [f"tracker: {report.path} ({report.rows} listings)"]
    if report.edits_applied:
        lines.append(f"  read back {report.edits_applied} edits from the tracker")
    for conflict in report.conflicts:
        lines.append(
            f"  conflict {conflict.listing_id} {conflict.field}: tracker {conflict.tracker_value!r}, "
            f"database {conflict.db_value!r}; kept {conflict.kept} (noted in its Notes)"
        )
    lines.extend(f"  problem: {problem}" for problem in report.problems)
    if report.person_columns or report.person_sheets:
        columns = ", ".join(report.person_columns) or "none"
        sheets = ", ".join(report.person_sheets) or "none"
        lines.append(f"  kept your columns ({columns}) and your sheets ({sheets})")
    return lines


def _waiting(message: str) -> None:
    print(f"jobsearch export: {message}", file=sys.stderr, flush=True)


def cmd_export(args: argparse.Namespace) -> int:
    """Render the tracker now (xlsx, reading edits back first), or a CSV with --csv."""
    paths = load_pipeline_settings()
    with Store.open(paths.db_path) as store:
        try:
            if args.csv == "-":
                return _csv_to_stdout(store)
            if args.csv is not None:
                target = Path(args.csv) if args.csv else paths.tracker_path.with_suffix(".csv")
                rows = export_csv(store, target, on_wait=_waiting)
                print(f"csv: {target} ({rows} listings)")
                return 0
            target = Path(args.output) if args.output else paths.tracker_path
            report = export_tracker(store, target, on_wait=_waiting)
        except TrackerError as exc:
            print(f"jobsearch export: {exc}", file=sys.stderr)
            return 1
    for line in _report_lines(report):
        print(line)
    return 0


def _csv_to_stdout(store: Store) -> int:
    """`export --csv -`: the CSV on standard output (UTF-8, no BOM), the count on standard error."""
    rows = store.tracker_rows()
    text = io.StringIO(newline="")
    write_csv(rows, text)
    data = memoryview(text.getvalue().encode("utf-8"))
    try:
        sys.stdout.flush()
        while data:  # a write cut short by a reader going away returns its count; the next raises
            data = data[sys.stdout.buffer.write(data) :]
        sys.stdout.buffer.flush()
    except BrokenPipeError:  # `jobsearch export --csv - | head`: the reader has what it wanted
        return closed_pipe()
    print(f"csv: standard output ({len(rows)} listings)", file=sys.stderr)
    return 0


def cmd_mark(args: argparse.Namespace) -> int:
    """Set a listing's status (and optionally add a note)."""
    paths = load_pipeline_settings()
    with Store.open(paths.db_path) as store:
        try:
            listing_id = store.resolve_id(args.id)
            previous, status = store.set_status(listing_id, args.status, source="mark")
            if args.note:
                current = store.conn.execute(
                    "SELECT notes FROM listings WHERE id = ?", (listing_id,)
                ).fetchone()["notes"]
                store.set_notes(listing_id, f"{current}\n{args.note}".strip(), source="mark")
        except UnknownListing as exc:  # not found: 1, as `jetjobs status ID` for an unknown job
            print(f"jobsearch mark: {exc}", file=sys.stderr)
            return 1
        except StoreError as exc:  # an ambiguous prefix or a status outside the list: bad input
            print(f"jobsearch mark: {exc}", file=sys.stderr)
            return 2
    print(f"{listing_id}: {previous} -> {status} (the tracker shows it at the next export)")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Counts by status, and the last run."""
    paths = load_pipeline_settings()
    if not paths.db_path.exists():
        print(f"no database yet at {paths.db_path}: run `jobsearch run --profile PROFILE` first")
        return 0
    with Store.open(paths.db_path) as store:
        counts = store.counts_by_status()
        run = store.last_run()
        review, issues = review_counts(store.conn), issue_counts(store.conn)
    total = sum(counts.values())
    print(f"listings: {total}  ({paths.db_path})")
    for status in STATUSES:
        print(f"  {status:<10} {counts[status]}")
    if review:
        by = ", ".join(f"{provider} {n}" for provider, n in review.items())
        print(f"drafts that need review: {sum(review.values())} ({by}); the Review column says why")
    if issues:
        kinds = ", ".join(f"{kind} {n}" for kind, n in issues.items())
        print(f"listings not drafted yet: {sum(issues.values())} ({kinds}); the next run drafts them again")
    if run is None:
        print("last run: none")
    else:
        finished = f"finished {run.finished_at:%Y-%m-%d %H:%M} UTC" if run.finished_at else "not finished"
        print(
            f"last run: {run.run_id}, started {run.started_at:%Y-%m-%d %H:%M} UTC, {finished}, "
            f"{run.outcome or 'running'}"
        )
        if run.summary:
            new, seen = run.summary.get("listings_new"), run.summary.get("listings_seen")
            print(f"  seen {seen}, new {new}; tracker {run.summary.get('tracker') or '-'}")
    print(f"tracker: {paths.tracker_path}")
    return 0


def add_tracker_commands(sub: Any) -> None:
    """Add `export`, `mark` and `status` to the `jobsearch` parser."""
    p = sub.add_parser(
        "export",
        help="render the tracker now (reads its status/notes edits back first)",
        description="Render tracker.xlsx from the database, after reading the person's status and "
        "notes edits in it back into the database. With --csv, write a CSV instead (not read back).",
    )
    p.add_argument("-o", "--output", help="the xlsx path (default: JOBSEARCH_TRACKER or the data dir)")
    p.add_argument(
        "--csv",
        nargs="?",
        const="",
        metavar="PATH",
        help="write CSV instead (default path: the tracker's, ending .csv; - for standard output)",
    )
    p.set_defaults(func=None, local=cmd_export)
    p = sub.add_parser(
        "mark",
        help="set a listing's status, e.g. `jobsearch mark 3f2a applied`",
        description="Set the status of the listing ID (or a unique prefix of it) to one of: "
        + ", ".join(STATUSES),
    )
    p.add_argument("id", metavar="ID", help="the listing's ID (the tracker's ID column), or a unique prefix")
    p.add_argument("status", metavar="STATUS", help="the new status (any case)")
    p.add_argument("--note", help="a line to add to the listing's notes")
    p.set_defaults(func=None, local=cmd_mark)
    p = sub.add_parser("status", help="counts by status and the last run")
    p.set_defaults(func=None, local=cmd_status)
