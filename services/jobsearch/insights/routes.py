"""`/insights` and `/insights/<chart>.csv` on the review page (`jobsearch ui`).

The review page's app keeps a `Review` in `app.state.review`; these routes use its `run`, which
reads the state of record in a worker thread with that thread's own connection. Nothing here
writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol, TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from jetjobs.ui import templates
from jobsearch.insights.charts import CHART_KEYS, Chart, all_charts
from jobsearch.insights.csvfile import chart_csv, csv_name
from jobsearch.insights.queries import listing_count
from jobsearch.insights.render import STATIC, TEMPLATES
from jobsearch.store import Store

T = TypeVar("T")
_pages: Final = templates(TEMPLATES, globals_={"csv_name": csv_name})


class Reads(Protocol):
    """What the routes need of the review page's state: a read in a worker thread."""

    async def run(self, work: Callable[[Store], T]) -> T: ...


def _reads(request: Request) -> Reads:
    review: Reads = request.app.state.review
    return review


def _csv_href(chart: Chart) -> str:
    return f"/insights/{chart.key}.csv"


async def insights(request: Request) -> Response:
    """The charts of the search, each with its table and CSV link."""
    charts, listings = await _reads(request).run(lambda s: (all_charts(s.conn), listing_count(s.conn)))
    context: dict[str, Any] = {"charts": charts, "listings": listings, "csv_href": _csv_href}
    return _pages.TemplateResponse(request, "insights.html", context)


async def insights_csv(request: Request) -> Response:
    """One chart's figures as CSV, as a download."""
    key = request.path_params["chart"]
    if key not in CHART_KEYS:
        raise HTTPException(404, f"no chart {key!r}; one of {', '.join(CHART_KEYS)}")
    charts = await _reads(request).run(lambda s: all_charts(s.conn))
    chart = next(c for c in charts if c.key == key)
    return Response(
        chart_csv(chart).encode("utf-8-sig"),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{csv_name(chart)}"'},
    )


def insights_routes() -> list[BaseRoute]:
    """The routes to add to the review page: the page, the CSVs, the stylesheet."""
    return [
        Route("/insights", insights),
        Route("/insights/{chart}.csv", insights_csv),
        Mount("/insights-static", StaticFiles(directory=STATIC), name="insights-static"),
    ]


__all__ = ["insights_routes"]
