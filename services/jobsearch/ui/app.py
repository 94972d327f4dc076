"""The review page (`jobsearch ui`): the listings, one listing's text beside its drafts, statuses.

It reads the pipeline's SQLite (WAL: safe while a run writes) in worker threads, one connection
per thread, and reads and writes only through the state of record's public API
(`jobsearch.store.Store`), so the next export carries every change to the tracker. Re-drafting
is a `jobsearch.draft` job submitted through jetjobs like any other client's; the draft lands
through the export stage, and the page's drafts section, refreshed every few seconds, shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlencode, urlsplit

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from jetjobs import Ledger, Publisher, new_job_id
from jetjobs.ui import build_app, checked_form, templates
from jobsearch.jobs import DRAFT, QUEUES, STEPS, DraftJob, Step
from jobsearch.llm import PROVIDERS
from jobsearch.profile import Profile
from jobsearch.store import STATUSES, InvalidStatus, Store, UnknownListing
from jobsearch.tracker.sheet import salary_text
from jobsearch.ui.table import REVIEW_FILTERS, SORT_KEYS, Filters, ReviewFilter, listing_rows

T = TypeVar("T")
HERE = Path(__file__).parent
STEP_TITLES = {"cover_letter": "Cover letter", "connection_note": "Connection note"}


def web_link(url: str) -> str | None:
    """The URL if it is an http(s) address; None for anything else (`javascript:`, `data:`...)."""
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


_pages = templates(
    HERE / "templates" / "review",
    globals_={"quote": quote, "web_link": web_link, "STATUSES": STATUSES, "STEP_TITLES": STEP_TITLES,
              "PROVIDERS": PROVIDERS, "SORT_KEYS": SORT_KEYS, "salary_text": salary_text},
)  # fmt: skip


class Review:
    """The page's state: the database, and the platform client for re-drafts (if configured)."""

    def __init__(self, db_path: Path, *, publisher: Publisher | None, profile: Profile | None) -> None:
        self.db_path = db_path
        self.publisher = publisher
        self.profile = profile
        self.redrafts: dict[str, tuple[str, str]] = {}  # listing id: (job id, provider)
        self._store = Store.per_thread(db_path)
        self._limiter = anyio.CapacityLimiter(4)
        self._ledger: Ledger | None = None

    async def run(self, work: Callable[[Store], T]) -> T:
        """Run `work` with this thread's store in a worker thread (SQLite may wait for a writer)."""
        return await anyio.to_thread.run_sync(lambda: work(self._store()), limiter=self._limiter)

    async def job_state(self, job_id: str) -> str:
        """A submitted re-draft's state in the platform's ledger."""
        if self.publisher is None:
            return "unknown"
        if self._ledger is None:
            topology = self.publisher.topology
            self._ledger = Ledger(await topology.status_kv(self.publisher.js))
        record, _ = await self._ledger.get(job_id)
        return record.state if record else "submitted"


def _review(request: Request) -> Review:
    review: Review = request.app.state.review
    return review


def _render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    review = _review(request)
    context |= {"can_redraft": review.publisher is not None and review.profile is not None}
    return _pages.TemplateResponse(request, name, context, status_code=status_code)


def _review_filter(value: str) -> ReviewFilter:
    for known in REVIEW_FILTERS:
        if value == known:
            return known
    return ""


def _min_fit(value: str) -> int | None:
    """The `fit` filter: a whole number 0-100, else none."""
    return int(value) if value.isdigit() and int(value) <= 100 else None


def _filters(request: Request) -> Filters:
    q = request.query_params
    sort = q.get("sort", "fit")
    try:
        since = date.fromisoformat(q["since"]) if q.get("since") else None
    except ValueError:
        since = None
    return Filters(
        status=q.get("status", "") if q.get("status", "") in STATUSES else "",
        review=_review_filter(q.get("review", "")),
        company=q.get("company", "").strip(),
        board=q.get("board", "").strip(),
        found_since=since,
        text=q.get("q", "").strip(),
        min_fit=_min_fit(q.get("fit", "")),
        listed="open" if q.get("listed") == "open" else "closed" if q.get("listed") == "closed" else "",
        sort=sort if sort in SORT_KEYS else "fit",
        descending=q.get("dir", "desc" if sort in ("fit", "found", "posted", "salary") else "asc") == "desc",
    )


async def listings(request: Request) -> Response:
    """The table of listings with its filters."""
    return await _table(request, "listings.html")


async def listings_fragment(request: Request) -> Response:
    """The table alone, for the script's refresh."""
    return await _table(request, "_table.html")


async def _table(request: Request, name: str) -> Response:
    filters = _filters(request)
    review = _review(request)
    (rows, total), boards, counts = await review.run(
        lambda s: (listing_rows(s, filters), s.boards(), s.counts_by_status())
    )
    query = {k: v for k, v in request.query_params.items() if k not in ("sort", "dir") and v}
    return _render(request, name, rows=rows, total=total, boards=boards, counts=counts, filters=filters,
                   query=query, query_string=urlencode(dict(request.query_params)))  # fmt: skip


async def listing(request: Request) -> Response:
    """One listing: the posting's text beside the drafts; status, notes, re-draft."""
    listing_id = request.path_params["listing_id"]
    review = _review(request)
    try:
        detail, statuses = await review.run(lambda s: (s.listing(listing_id), s.status_history(listing_id)))
    except UnknownListing as exc:
        return _render(request, "message.html", status_code=404, text=str(exc))
    return _render(request, "listing.html", d=detail, listing_id=listing_id, drafts=detail.drafts,
                   history=detail.history, statuses=statuses, review=detail.review,
                   redraft=await _redraft_state(review, listing_id),
                   saved=request.query_params.get("saved", ""))  # fmt: skip


async def _redraft_state(review: Review, listing_id: str) -> dict[str, str] | None:
    pending = review.redrafts.get(listing_id)
    if pending is None:
        return None
    job_id, provider = pending
    return {"job_id": job_id, "provider": provider, "state": await review.job_state(job_id)}


async def drafts_fragment(request: Request) -> Response:
    """The drafts of one listing, for the script's refresh (a re-draft shows when it lands)."""
    listing_id = request.path_params["listing_id"]
    review = _review(request)
    try:
        detail = await review.run(lambda s: s.listing(listing_id))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    return _render(request, "_drafts.html", listing_id=listing_id, drafts=detail.drafts, review=detail.review,
                   redraft=await _redraft_state(review, listing_id))  # fmt: skip


def _back(listing_id: str, saved: str) -> Response:
    return RedirectResponse(f"/listings/{quote(listing_id, safe='')}?" + urlencode({"saved": saved}), 303)


async def save_status(request: Request) -> Response:
    """Set the listing's status (recorded with its history, source `ui`)."""
    listing_id = request.path_params["listing_id"]
    form = await checked_form(request)
    status = str(form.get("status", ""))
    try:
        previous, new = await _review(request).run(lambda s: s.set_status(listing_id, status, source="ui"))
    except (InvalidStatus, UnknownListing) as exc:
        raise HTTPException(400, str(exc)) from None
    return _back(listing_id, f"status {previous} → {new}" if previous != new else f"status {new} (unchanged)")


async def save_notes(request: Request) -> Response:
    """Replace the listing's notes (the old text stays in the history)."""
    listing_id = request.path_params["listing_id"]
    form = await checked_form(request)
    notes = str(form.get("notes", "")).replace("\r\n", "\n")
    try:
        await _review(request).run(lambda s: s.set_notes(listing_id, notes, source="ui"))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    return _back(listing_id, "notes saved")


async def save_draft(request: Request) -> Response:
    """Save a person's edit of the cover letter or the connection note (a new draft row)."""
    listing_id = request.path_params["listing_id"]
    step = request.path_params["step"]
    if step not in STEPS:
        raise HTTPException(404, f"no draft step {step!r}")
    form = await checked_form(request)
    text = str(form.get("text", "")).replace("\r\n", "\n")
    chosen: Step = step
    try:
        await _review(request).run(lambda s: s.save_draft_edit(listing_id, chosen, text))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    return _back(listing_id, f"{STEP_TITLES[step].lower()} saved")


async def redraft(request: Request) -> Response:
    """Submit a `jobsearch.draft` job pinned to another provider; the new draft lands via export."""
    listing_id = request.path_params["listing_id"]
    form = await checked_form(request)
    review = _review(request)
    provider = str(form.get("provider", ""))
    if review.publisher is None or review.profile is None:
        raise HTTPException(409, "re-drafting needs the profile: start the page with --profile PATH")
    if provider not in PROVIDERS:
        raise HTTPException(400, f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")
    try:
        merged = await review.run(lambda s: s.merged_listing(listing_id))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    job = DraftJob(run_id=f"review-{new_job_id()}", listing=merged, profile=review.profile, provider=provider)
    submitted = await review.publisher.enqueue(DRAFT, job, queue=QUEUES["draft"])
    review.redrafts[listing_id] = (submitted.id, provider)
    return _back(listing_id, f"re-draft with {provider} submitted")


def build_review_app(
    db_path: Path,
    *,
    publisher: Publisher | None = None,
    profile: Profile | None = None,
    token: str | None = None,
    loopback: bool = True,
) -> Starlette:
    """The review page over the SQLite state of record at `db_path`.

    Args:
        db_path: the pipeline's database (created with its tables if missing).
        publisher: a jetjobs publisher for re-drafts (with `profile`); without it, no re-draft.
        profile: the profile a re-draft writes from.
        token: the access token, required when the server listens off loopback.
        loopback: the server listens on a loopback address only.
    """
    review = Review(db_path, publisher=publisher, profile=profile)
    routes = [
        Route("/", listings),
        Route("/fragments/listings", listings_fragment),
        Route("/listings/{listing_id}", listing),
        Route("/listings/{listing_id}/drafts", drafts_fragment),
        Route("/listings/{listing_id}/status", save_status, methods=["POST"]),
        Route("/listings/{listing_id}/notes", save_notes, methods=["POST"]),
        Route("/listings/{listing_id}/drafts/{step}", save_draft, methods=["POST"]),
        Route("/listings/{listing_id}/redraft", redraft, methods=["POST"]),
    ]
    app = build_app(routes, title="jobsearch · review", token=token, loopback=loopback)
    app.state.review = review
    return app


__all__ = ["PROVIDERS", "build_review_app", "web_link"]
