"""The page kit shared by every jetjobs page: templates, the vendored script and style, the app.

A page (the operations page here, the pipeline's review page in its own package) gives its
routes and its own template directory; `build_app` adds the base template, `/static` (one
script, one stylesheet, vendored: the page works offline and loads nothing from elsewhere), the
CSRF token and the access guard. Templates autoescape everything, so every string that comes
from outside (a job board, a handler's error, a message body) is shown as text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount
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
        routes=[*routes, Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[Middleware(AccessGuard, token=token, loopback=loopback)],
        lifespan=lifespan,
    )
    app.state.csrf_token = new_secret()
    app.state.page_title = title
    return app


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
