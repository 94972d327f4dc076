"""The insights page as HTML: the same charts for the review page's `/insights` and for the
self-contained report (`jobsearch report --html`).

Both render `_charts.html` from `services/jobsearch/ui/templates/insights/` with autoescaping;
the page extends the review page's base (its stylesheet and header), the report inlines the
stylesheet and gives each CSV as a `data:` link, so the file refers to nothing outside itself.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Final
from urllib.parse import quote

import jinja2

from jobsearch.insights.charts import Chart, all_charts
from jobsearch.insights.csvfile import chart_csv, csv_name
from jobsearch.insights.queries import listing_count

TEMPLATES: Final = Path(__file__).resolve().parents[1] / "ui" / "templates" / "insights"
STATIC: Final = Path(__file__).resolve().parent / "static"  # insights.css, served at /insights-static


def csv_data_link(chart: Chart) -> str:
    """The chart's CSV as a `data:` address (the report's download link)."""
    return "data:text/csv;charset=utf-8," + quote(chart_csv(chart), safe="")


def report_html(conn: sqlite3.Connection, *, source: str, now: datetime | None = None) -> str:
    """The whole insights page as one HTML document: inline stylesheet, inline SVG, data: CSVs.

    Args:
        conn: the state of record.
        source: where the figures come from (the database's path), shown under the title.
        now: when the report was made (default now).
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True, undefined=jinja2.StrictUndefined
    )
    stylesheet = resources.files("jetjobs.ui").joinpath("static", "jetjobs.css").read_text(encoding="utf-8")
    stylesheet += "\n" + (STATIC / "insights.css").read_text(encoding="utf-8")
    charts = all_charts(conn)
    return env.get_template("report.html").render(
        charts=charts,
        listings=listing_count(conn),
        stylesheet=stylesheet,
        csv_href=csv_data_link,
        csv_name=csv_name,
        source=source,
        made=(now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC"),
    )
