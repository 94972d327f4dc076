"""A chart's figures as CSV (`/insights/<chart>.csv`), hardened as the tracker's CSV is.

Every text cell goes through `jobsearch.tracker.cells.safe_text`: a board name or a place that
starts with `= + - @` (or a tab, a CR or their full-width forms) gets a leading apostrophe, so no
spreadsheet program reads it as a formula; control characters are dropped. Numbers stay numbers.
"""

from __future__ import annotations

import csv
import io

from jobsearch.insights.charts import Chart
from jobsearch.tracker.cells import safe_text


def chart_csv(chart: Chart) -> str:
    """The chart's table as CSV text: its header, then one line per row."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow([safe_text(name) for name in chart.header])
    for row in chart.rows:
        writer.writerow([cell if isinstance(cell, int) else safe_text(cell) for cell in row])
    return out.getvalue()


def csv_name(chart: Chart) -> str:
    """The download's file name: `insights-<chart>.csv`."""
    return f"insights-{chart.key}.csv"
