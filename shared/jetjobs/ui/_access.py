"""Who may reach a page and which requests may change something.

Two guards for every jetjobs page (the operations page and any page built on `jetjobs.ui`):

- `AccessGuard`, an ASGI middleware: on loopback it admits only requests whose `Host` is a
  loopback name (a DNS-rebinding page cannot borrow the browser); off loopback it admits only
  requests that carry the access token (`?token=` once, then an HttpOnly cookie, or
  `Authorization: Bearer`). It adds a Content-Security-Policy without inline scripts, so even a
  string that escaped escaping could not run.
- `checked_form`: every state-changing request is a POST whose form carries the page's CSRF
  token, and whose `Origin`, when the browser sends one, is the page's own.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "jetjobs_ui_token"
CSRF_FIELD = "csrf"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
_SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip("[]") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_secret() -> str:
    """A random URL-safe token (CSRF and access tokens)."""
    return secrets.token_urlsafe(24)


class AccessGuard:
    """ASGI middleware: host check on loopback, token check elsewhere, security headers always."""

    def __init__(self, app: ASGIApp, *, token: str | None, loopback: bool) -> None:
        self.app = app
        self.token = token
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.loopback and not is_loopback(_host_name(headers.get("host", ""))):
            await _plain(send, 421, "this page answers to loopback names only (localhost, 127.0.0.1)")
            return
        if self.token is not None:
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if _same(query.get("token"), self.token):
                # Trade the token in the address for a cookie, and drop it from the address bar.
                rest = urlencode([(k, v) for k, v in query.items() if k != "token"])
                await _redirect(send, scope["path"] + (f"?{rest}" if rest else ""), self.token)
                return
            cookie = SimpleCookie(headers.get("cookie", ""))
            offered = cookie[TOKEN_COOKIE].value if TOKEN_COOKIE in cookie else None
            bearer = headers.get("authorization", "").removeprefix("Bearer ").strip() or None
            if not (_same(offered, self.token) or _same(bearer, self.token)):
                await _plain(send, 401, "open the address with ?token=... as printed at start")
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + _SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def checked_form(request: Request) -> FormData:
    """The POST's form, once its CSRF token and origin are checked.

    Raises:
        HTTPException: 403 on a missing or wrong token, or a foreign `Origin`.
    """
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise HTTPException(403, "cross-origin request refused")
    form = await request.form()
    offered = form.get(CSRF_FIELD)
    expected: str = request.app.state.csrf_token
    if not isinstance(offered, str) or not _same(offered, expected):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page and try again")
    return form


def _same(offered: str | None, expected: str) -> bool:
    return offered is not None and hmac.compare_digest(offered.encode(), expected.encode())


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host.split("]", maxsplit=1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *_SECURITY_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Send, location: str, token: str) -> None:
    cookie = f"{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [(b"location", location.encode()), (b"set-cookie", cookie.encode())],
        }
    )
    await send({"type": "http.response.body", "body": b""})
