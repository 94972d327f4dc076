"""The review page's saves: status, notes and drafts, each over the version it was made from.

Every edit form carries the revision it was rendered with (`base`). A save over a newer version
that differs (the tracker's status read back by an export, `jobsearch mark`, a re-draft that
landed, another tab) writes nothing and answers `409` with a page that shows both versions, the
person's still editable, and lets them choose: keep theirs (saved over the newer version, which
stays in the history) or take the newer one. See `jobsearch.store.review_edits`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from jetjobs.ui import checked_form
from jobsearch.jobs import STEPS, Step
from jobsearch.store import InvalidStatus, Store, UnknownListing
from jobsearch.store import review_edits as guarded

T = TypeVar("T")
STEP_TITLES = {"cover_letter": "Cover letter", "connection_note": "Connection note"}
SOURCES = {"tracker": "the tracker", "mark": "jobsearch mark", "ui": "this page (another tab)",
           "conflict": "a tracker conflict", "cli": "the command line", "pipeline": "the pipeline",
           "edit": "your edit (another tab)"}  # fmt: skip

Run = Callable[[Callable[[Store], T]], Any]
Render = Callable[..., Response]


def back(listing_id: str, saved: str) -> Response:
    """Back to the listing's page, saying what was saved."""
    return RedirectResponse(f"/listings/{quote(listing_id, safe='')}?" + urlencode({"saved": saved}), 303)


def _base(form: Any) -> int | None:
    raw = str(form.get("base", ""))
    return int(raw) if raw.isdigit() else None


def _when(at: str) -> str:
    try:
        return datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return at


def conflict(
    render: Render, request: Request, listing_id: str, newer: guarded.Version, mine: str
) -> Response:
    """The page that shows the newer version beside the person's, and lets them choose."""
    label = {"status": "Status", "notes": "Notes"}.get(newer.field) or STEP_TITLES[newer.field]
    action = {"status": "status", "notes": "notes"}.get(newer.field) or f"drafts/{newer.field}"
    return render(
        request, "conflict.html", status_code=409, listing_id=listing_id, label=label, field=newer.field,
        action=f"/listings/{quote(listing_id, safe='')}/{action}", newer=newer, mine=mine,
        source=SOURCES.get(newer.source, newer.source), when=_when(newer.at),
    )  # fmt: skip


async def save_status(request: Request, run: Run[Any], render: Render) -> Response:
    """Set the listing's status (source `ui`) unless a different one was set since the page showed it."""
    listing_id = request.path_params["listing_id"]
    form = await checked_form(request)
    status = str(form.get("status", ""))
    base = _base(form)
    try:
        outcome = await run(lambda s: _status(s, listing_id, status, base))
    except (InvalidStatus, UnknownListing) as exc:
        raise HTTPException(400, str(exc)) from None
    if isinstance(outcome, guarded.Version):
        return conflict(render, request, listing_id, outcome, status)
    previous, new = outcome
    return back(listing_id, f"status {previous} → {new}" if previous != new else f"status {new} (unchanged)")


def _status(
    store: Store, listing_id: str, status: str, base: int | None
) -> tuple[str, str] | guarded.Version:
    if base is None:  # a form without a revision (a script's POST): the plain write
        return store.set_status(listing_id, status, source="ui")
    return guarded.save_status(store.conn, listing_id, status, base=base)


async def save_notes(request: Request, run: Run[Any], render: Render) -> Response:
    """Replace the listing's notes unless different notes were written since the page showed them."""
    listing_id = request.path_params["listing_id"]
    form = await checked_form(request)
    notes = str(form.get("notes", "")).replace("\r\n", "\n")
    base = _base(form)
    try:
        newer = await run(lambda s: _notes(s, listing_id, notes, base))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    if newer is not None:
        return conflict(render, request, listing_id, newer, notes)
    return back(listing_id, "notes saved")


def _notes(store: Store, listing_id: str, notes: str, base: int | None) -> guarded.Version | None:
    if base is None:
        store.set_notes(listing_id, notes, source="ui")
        return None
    return guarded.save_notes(store.conn, listing_id, notes, base=base)


async def save_draft(request: Request, run: Run[Any], render: Render) -> Response:
    """Save a person's edit of a draft unless a different draft was recorded since the page showed it."""
    listing_id = request.path_params["listing_id"]
    step = request.path_params["step"]
    if step not in STEPS:
        raise HTTPException(404, f"no draft step {step!r}")
    chosen: Step = step
    form = await checked_form(request)
    text = str(form.get("text", "")).replace("\r\n", "\n")
    base = _base(form)
    try:
        newer = await run(lambda s: _draft(s, listing_id, chosen, text, base))
    except UnknownListing as exc:
        raise HTTPException(404, str(exc)) from None
    if newer is not None:
        return conflict(render, request, listing_id, newer, text)
    return back(listing_id, f"{STEP_TITLES[step].lower()} saved")


def _draft(store: Store, listing_id: str, step: Step, text: str, base: int | None) -> guarded.Version | None:
    if base is None:
        store.save_draft_edit(listing_id, step, text)
        return None
    return guarded.save_draft(store.conn, listing_id, step, text, base=base)


__all__ = ["STEP_TITLES", "back", "conflict", "save_draft", "save_notes", "save_status"]
