"""The review page (`jobsearch ui`): the listings, one listing's text beside its drafts, statuses.

It reads the pipeline's SQLite (WAL: safe while a run writes) in worker threads, one connection
per thread, through the state of record's API (`jobsearch.store`), so the next export carries
every change to the tracker. The table's sort, filters and page live in the URL. Fragments are
refreshed only while a run goes on, answer `304` when nothing changed (`polling`), and every
answer is gzip-compressed. Edits are saved over the version they were made from (`edits`).
"Draft this" and "Re-draft" are `jobsearch.draft` jobs submitted through jetjobs (`drafting`);
the draft lands through the export stage, and the drafts section shows it without a reload.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlencode, urlsplit

import anyio
import anyio.to_thread
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from jetjobs import Ledger, Publisher
from jetjobs.ui import build_app, checked_form, templates
from jobsearch.insights.routes import insights_routes
from jobsearch.profile import Profile
from jobsearch.salary import format_salary
from jobsearch.store import STATUSES, ListingDetail, Store, UnknownListing
from jobsearch.store.review_edits import revisions
from jobsearch.ui import edits
from jobsearch.ui.drafting import (
    JobView,
    PageJob,
    configured_providers,
    job_view,
    ledger_record,
    newest_draft,
    submit,
)
from jobsearch.ui.polling import (
    IDLE_EVERY_MS,
    JOB_EVERY_MS,
    RUN_EVERY_MS,
    ChangeWatch,
    body_tag,
    not_modified,
    poll_headers,
    run_going_on,
    tag,
    unchanged,
)
from jobsearch.ui.table import REVIEW_FILTERS, SORT_KEYS, Filters, ReviewFilter, listing_page

T = TypeVar("T")
HERE = Path(__file__).parent
STEP_TITLES = edits.STEP_TITLES
# The sort's natural direction: newest, best and highest first; names in alphabetical order.
DESCENDING_FIRST = ("fit", "found", "posted", "salary")
TAGS_KEPT = 256


def web_link(url: str) -> str | None:
    """The URL if it is an http(s) address; None for anything else (`javascript:`, `data:`...)."""
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


_pages = templates(
    HERE / "templates" / "review",
    globals_={"quote": quote, "web_link": web_link, "STATUSES": STATUSES, "STEP_TITLES": STEP_TITLES,
              "SORT_KEYS": SORT_KEYS, "salary_text": format_salary, "DESCENDING_FIRST": DESCENDING_FIRST,
              "RUN_EVERY_MS": RUN_EVERY_MS, "IDLE_EVERY_MS": IDLE_EVERY_MS, "JOB_EVERY_MS": JOB_EVERY_MS},
)  # fmt: skip


class Review:
    """The page's state: the database, and the platform client for drafts (if configured)."""

    def __init__(
        self, db_path: Path, *, publisher: Publisher | None, profile: Profile | None, providers: list[str]
    ) -> None:
        self.db_path = db_path
        self.publisher = publisher
        self.profile = profile
        self.providers = providers
        self.jobs: dict[str, PageJob] = {}  # listing id: the newest draft job this page submitted
        self.table_tags: dict[str, tuple[int, str]] = {}  # a view's key: (change version, its tag)
        self.watch = ChangeWatch(db_path)
        self._store = Store.per_thread(db_path)
        self._limiter = anyio.CapacityLimiter(4)
        self._ledger: Ledger | None = None

    @property
    def can_draft(self) -> bool:
        """Whether the page can submit draft jobs (a platform client and a profile)."""
        return self.publisher is not None and self.profile is not None

    def remember(self, key: str, version: int, etag: str) -> None:
        """The tag a view's table had at a change version (a few hundred views at most)."""
        if len(self.table_tags) >= TAGS_KEPT:
            self.table_tags.clear()
        self.table_tags[key] = (version, etag)

    async def run(self, work: Callable[[Store], T]) -> T:
        """Run `work` with this thread's store in a worker thread (SQLite may wait for a writer)."""
        return await anyio.to_thread.run_sync(lambda: work(self._store()), limiter=self._limiter)

    async def job(self, listing_id: str, detail: ListingDetail) -> JobView | None:
        """The state of the newest draft job this page submitted for the listing, if any."""
        pending = self.jobs.get(listing_id)
        if pending is None or self.publisher is None:
            return None
        record, self._ledger = await ledger_record(self.publisher, self._ledger, pending.job_id)
        return job_view(pending, record, detail)


def _review(request: Request) -> Review:
    review: Review = request.app.state.review
    return review


def _render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    review = _review(request)
    context |= {"can_redraft": review.can_draft, "providers": review.providers}
    return _pages.TemplateResponse(request, name, context, status_code=status_code)


def _review_filter(value: str) -> ReviewFilter:
    for known in REVIEW_FILTERS:
        if value == known:
            return known
    return ""


def _min_fit(value: str) -> int | None:
    """The `fit` filter: a whole number 0-100, else none."""
    return int(value) if value.isdigit() and int(value) <= 100 else None


def _filters(q: Mapping[str, str]) -> Filters:
    sort = q.get("sort", "fit")
    sort = sort if sort in SORT_KEYS else "fit"
    try:
        since = date.fromisoformat(q["since"]) if q.get("since") else None
    except ValueError:
        since = None
    page = q.get("page", "1")
    return Filters(
        status=q.get("status", "") if q.get("status", "") in STATUSES else "",
        review=_review_filter(q.get("review", "")),
        company=q.get("company", "").strip(),
        board=q.get("board", "").strip(),
        found_since=since,
        text=q.get("q", "").strip(),
        min_fit=_min_fit(q.get("fit", "")),
        listed="open" if q.get("listed") == "open" else "closed" if q.get("listed") == "closed" else "",
        sort=sort,
        descending=q.get("dir", "desc" if sort in DESCENDING_FIRST else "asc") == "desc",
        page=int(page) if page.isdigit() and 0 < int(page) < 1_000_000 else 1,
    )


def _view(filters: Filters) -> dict[str, str]:
    """The view's state as the URL keeps it: every filter that is set, the sort and the page."""
    view = {
        "q": filters.text, "status": filters.status,
        "fit": "" if filters.min_fit is None else str(filters.min_fit), "review": filters.review,
        "company": filters.company, "listed": filters.listed, "board": filters.board,
        "since": filters.found_since.isoformat() if filters.found_since else "",
        "sort": filters.sort, "dir": "desc" if filters.descending else "asc",
    }  # fmt: skip
    return {k: v for k, v in view.items() if v}


async def _table_state(review: Review) -> tuple[int, bool]:
    return await anyio.to_thread.run_sync(review.watch.version, limiter=None), await review.run(run_going_on)


async def listings(request: Request) -> Response:
    """The table of listings with its filters."""
    return await _table(request, fragment=False)


async def listings_fragment(request: Request) -> Response:
    """The table alone, for the script's refresh: `304` when it did not change."""
    return await _table(request, fragment=True)


async def _table(request: Request, *, fragment: bool) -> Response:
    """The table (or the whole page). Its tag is a hash of the table's HTML, remembered with the
    database's change version: while the version stays, a request holding the tag gets a 304
    without a read; when it moves (a run also writes tables the page does not show) the table is
    rendered again, and still answers 304 if it came out the same."""
    review = _review(request)
    filters = _filters(request.query_params)
    view = _view(filters)
    version, active = await _table_state(review)
    mode = "run" if active else "idle"
    key = tag(sorted(view.items()), filters.page)
    known = review.table_tags.get(key)
    if fragment and known is not None and known[0] == version and unchanged(request, known[1]):
        return not_modified(known[1], mode)
    table, boards, counts = await review.run(
        lambda s: (listing_page(s, filters), s.boards(), s.counts_by_status())
    )
    context: dict[str, Any] = {"table": table, "rows": table.rows, "total": table.total, "filters": filters,
                               "view": view}  # fmt: skip
    html = _pages.get_template("_table.html").render(context)
    etag = tag(review.watch.boot, html)
    review.remember(key, version, etag)
    if fragment:
        if unchanged(request, etag):
            return not_modified(etag, mode)
        return Response(html, media_type="text/html", headers=poll_headers(etag, mode))
    return _render(request, "listings.html", **context, boards=boards, counts=counts, mode=mode, etag=etag,
                   table_html=Markup(html),  # rendered above by the autoescaping template
                   fragment_url="/fragments/listings?" + urlencode(view | _page(table.page)))  # fmt: skip


def _page(page: int) -> dict[str, str]:
    return {"page": str(page)} if page > 1 else {}


async def listing(request: Request) -> Response:
    """One listing: the posting's text beside the drafts; status, notes, draft and re-draft."""
    listing_id = request.path_params["listing_id"]
    review = _review(request)
    try:
        detail, statuses, revs, active = await review.run(
            lambda s: (s.listing(listing_id), s.status_history(listing_id), revisions(s.conn, listing_id),
                       run_going_on(s))
        )  # fmt: skip
    except UnknownListing as exc:
        return _render(request, "message.html", status_code=404, text=str(exc))
    job = await review.job(listing_id, detail)
    return _render(request, "listing.html", d=detail, listing_id=listing_id, drafts=detail.drafts,
                   history=detail.history, statuses=statuses, review=detail.review, revs=revs,
                   job=job, mode=_drafts_mode(active, job),
                   saved=request.query_params.get("saved", ""))  # fmt: skip


def _drafts_mode(active: bool, job: JobView | None) -> str:
    return "job" if job is not None and job.pending else "run" if active else "idle"


async def drafts_fragment(request: Request) -> Response:
    """The drafts of one listing, for the script's refresh: `304` when they did not change."""
    listing_id = request.path_params["listing_id"]
    review = _review(request)
    try:
        detail, revs, active = await review.run(
            lambda s: (s.listing(listing_id), revisions(s.conn, listing_id), run_going_on(s))
        )
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    job = await review.job(listing_id, detail)
    mode = _drafts_mode(active, job)
    response = _render(request, "_drafts.html", listing_id=listing_id, drafts=detail.drafts,
                       review=detail.review, revs=revs, job=job)  # fmt: skip
    etag = body_tag(bytes(response.body))
    if unchanged(request, etag):
        return not_modified(etag, mode)
    response.headers.update(poll_headers(etag, mode))
    return response


async def save_status(request: Request) -> Response:
    """Set the listing's status (recorded with its history, source `ui`)."""
    return await edits.save_status(request, _review(request).run, _render)


async def save_notes(request: Request) -> Response:
    """Replace the listing's notes (the old text stays in the history)."""
    return await edits.save_notes(request, _review(request).run, _render)


async def save_draft(request: Request) -> Response:
    """Save a person's edit of the cover letter or the connection note (a new draft row)."""
    return await edits.save_draft(request, _review(request).run, _render)


async def redraft(request: Request) -> Response:
    """Submit a `jobsearch.draft` job pinned to a configured provider; the new draft lands via export."""
    form = await checked_form(request)
    provider = str(form.get("provider", ""))
    if provider not in _review(request).providers:
        configured = ", ".join(_review(request).providers)
        raise HTTPException(400, f"provider {provider!r} is not configured here; one of {configured}")
    return await _submit(request, provider)


async def draft_this(request: Request) -> Response:
    """Submit the listing's `jobsearch.draft` job, routed as the draft service's environment says."""
    await checked_form(request)
    return await _submit(request, None)


async def _submit(request: Request, provider: str | None) -> Response:
    listing_id = request.path_params["listing_id"]
    review = _review(request)
    if review.publisher is None or review.profile is None:
        raise HTTPException(409, "drafting needs the profile: start the page with --profile PATH")
    if not review.profile.drafting.enabled:  # as `jobsearch draft LISTING_ID` refuses
        raise HTTPException(409, "drafting is off in the profile ([drafting] enabled = false)")
    try:
        merged, detail = await review.run(lambda s: (s.merged_listing(listing_id), s.listing(listing_id)))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    review.jobs[listing_id] = await submit(
        review.publisher, review.profile, merged, provider=provider, before=newest_draft(detail)
    )
    return edits.back(listing_id, f"re-draft with {provider} submitted" if provider else "draft submitted")


def build_review_app(
    db_path: Path,
    *,
    publisher: Publisher | None = None,
    profile: Profile | None = None,
    token: str | None = None,
    loopback: bool = True,
    env: Mapping[str, str] | None = None,
) -> Starlette:
    """The review page over the SQLite state of record at `db_path`.

    Args:
        db_path: the pipeline's database (created with its tables if missing).
        publisher: a jetjobs publisher for drafts (with `profile`); without it, no drafting.
        profile: the profile a draft is written from.
        token: the access token, required when the server listens off loopback.
        loopback: the server listens on a loopback address only.
        env: the environment the draft service runs with (default this process's): which
            providers a re-draft may pin.
    """
    with Store.open(db_path):
        pass  # the file and its tables, before the change watch opens it read-only
    review = Review(db_path, publisher=publisher, profile=profile,
                    providers=configured_providers(os.environ if env is None else env))  # fmt: skip
    routes = [
        Route("/", listings),
        Route("/fragments/listings", listings_fragment),
        Route("/listings/{listing_id}", listing),
        Route("/listings/{listing_id}/drafts", drafts_fragment),
        Route("/listings/{listing_id}/status", save_status, methods=["POST"]),
        Route("/listings/{listing_id}/notes", save_notes, methods=["POST"]),
        Route("/listings/{listing_id}/drafts/{step}", save_draft, methods=["POST"]),
        Route("/listings/{listing_id}/redraft", redraft, methods=["POST"]),
        Route("/listings/{listing_id}/draft", draft_this, methods=["POST"]),
        Mount("/review-static", StaticFiles(directory=HERE / "static"), name="review-static"),
        *insights_routes(),  # /insights: the search as charts (`jobsearch.insights`)
    ]
    app = build_app(routes, title="jobsearch · review", token=token, loopback=loopback)
    app.add_middleware(GZipMiddleware, minimum_size=500)
    app.state.review = review
    return app


__all__ = ["build_review_app", "web_link"]
