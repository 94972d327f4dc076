"""`jobsearch report --html out.html`: the insights page as one file, to keep or to send.

No server needed: it reads the data dir's SQLite (or `--db`) and writes one HTML document with
its stylesheet, its SVG charts and each chart's CSV (as a `data:` link) inside: the file refers
to nothing outside itself and opens offline, in any browser, from any place it is copied to.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store


def cmd_report(args: argparse.Namespace) -> int:
    """Write the insights page as one self-contained HTML file."""
    # The page's stack (jinja2, the charts) loads only for this command.
    from jobsearch.insights.render import report_html  # noqa: PLC0415

    db_path: Path = args.db or load_pipeline_settings().db_path
    out: Path = args.html
    try:
        with Store.open(db_path) as store:
            html = report_html(store.conn, source=str(db_path))
    except (OSError, sqlite3.Error) as exc:
        print(f"jobsearch: error: cannot read {db_path}: {exc}", file=sys.stderr)
        return 2
    try:
        temporary = out.with_name(f".{out.name}.tmp")
        temporary.write_text(html, encoding="utf-8")
        temporary.replace(out)  # a reader never sees half a report
    except OSError as exc:
        print(f"jobsearch: error: cannot write {out}: {exc}", file=sys.stderr)
        return 2
    print(f"report: {out} ({len(html.encode()) // 1024} KB, from {db_path})")
    return 0


def add_report_command(sub: Any) -> None:
    """Add `report --html PATH` to the `jobsearch` parser."""
    p = sub.add_parser(
        "report",
        help="write the insights page (charts of the search) as one self-contained HTML file",
        description="The review page's /insights as one file: its stylesheet, SVG charts and CSVs "
        "inside, no reference to anything outside it (docs/web.md).",
    )
    p.add_argument("--html", type=Path, required=True, metavar="PATH", help="the HTML file to write")
    p.add_argument("--db", type=Path, help="the SQLite state of record (default $JOBSEARCH_DB)")
    p.set_defaults(func=None, local=cmd_report)
