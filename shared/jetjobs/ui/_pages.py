"""The page kit shared by every jetjobs page: templates, the vendored script and style, the app.

A page (the operations page here, the pipeline's review page in its own package) gives its
routes and its own template directory; `build_app` adds the base template, `/static` (one
script, one stylesheet, vendored: the page works offline and loads nothing from elsewhere), the
CSRF token and the access guard. Templates autoescape everything, so every string that comes
from outside (a job board, a handler's error, a message body) is shown as text.

Moments are written as `<time datetime=...>` (the `when` filter): the script shows them in the
browser's own time zone with their age ("07:31, 4 min ago") and keeps the age current, so a
fragment's HTML does not change as time passes and an unchanged section can be answered "304".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from jetjobs.ui._access import CSRF_FIELD, AccessGuard, new_secret

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"


def templates(*directories: Path, globals_: Mapping[str, Any] | None = None) -> Jinja2Templates:
    """Jinja2 templates from `directories` first, then jetjobs' own (`base.html`, `confirm.html`).

    Autoescape is on for every template, whatever its name.
    """
    loader = jinja2.FileSystemLoader([*map(str, directories), str(TEMPLATES)])
    env = jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)
    env.globals.update(globals_ or {})
    env.filters["age"] = seconds_text
    env.filters["clock"] = clock_text
    env.filters["when"] = when_html
    env.filters["bytes"] = bytes_text
    env.filters["count"] = count_text
    env.filters["number"] = number_text
    return Jinja2Templates(env=env, context_processors=[_page_context])


def _page_context(request: Request) -> dict[str, Any]:
    return {
        "csrf_field": CSRF_FIELD,
        "csrf_token": request.app.state.csrf_token,
        "page_title": request.app.state.page_title,
    }


def build_app(
    routes: Sequence[BaseRoute],
    *,
    title: str,
    token: str | None,
    loopback: bool,
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    """A Starlette app with the routes, `/static`, a fresh CSRF token and the access guard.

    Args:
        routes: the page's own routes.
        title: shown in the header of every page.
        token: the access token (required off loopback; None on loopback).
        loopback: whether the server listens on a loopback address only.
        lifespan: the page's own startup and shutdown, if any.
    """
    app = Starlette(
        routes=[
            *routes,
            Route("/favicon.ico", _favicon),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(AccessGuard, token=token, loopback=loopback)],
        lifespan=lifespan,
    )
    app.state.csrf_token = new_secret()
    app.state.page_title = title
    return app


async def _favicon(request: Request) -> FileResponse:
    """The icon, for clients that ask for /favicon.ico instead of reading the page's <link>."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


def when_html(moment: datetime | None, style: str = "ago") -> markupsafe.Markup:
    """A `<time>` the script shows in the browser's zone: `ago` "07:31, 4 min ago", `clock` "07:31".

    The text inside (for a browser without the script) is the UTC time.
    """
    if moment is None:
        return markupsafe.Markup("-")
    moment = moment.astimezone(UTC)
    iso = moment.isoformat(timespec="seconds").replace("+00:00", "Z")
    return markupsafe.Markup('<time datetime="{}" data-show="{}">{}</time>').format(
        iso, style, moment.strftime("%Y-%m-%d %H:%M UTC")
    )


def bytes_text(count: int) -> str:
    """`512 B`, `3.4 KB`, `12.0 MB`, `1.2 GB` (powers of 1024)."""
    size = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def number_text(count: int) -> str:
    """`1,204`: a count with thousands separators."""
    return f"{count:,}"


def count_text(count: int, noun: str, plural: str | None = None) -> str:
    """`1 worker`, `2 workers`, `1,204 dead letters`: a count and its noun, agreed."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def clock_text(moment: datetime) -> str:
    """`10:31:47` for today (UTC), `11-29 10:31` before: a time for a table cell."""
    now = datetime.now(UTC)
    if moment.date() == now.date():
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%m-%d %H:%M")


def seconds_text(seconds: float) -> str:
    """`4.2s`, `3m 10s`, `2h 05m`: an age or a duration for a table cell."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"
