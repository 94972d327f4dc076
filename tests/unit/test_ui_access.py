"""The page kit's guards (`jetjobs.ui`): loopback host check, access token, CSRF, security headers."""

from __future__ import annotations

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from jetjobs._errors import ConfigError
from jetjobs.ui import access_token, bind, build_app, checked_form, is_loopback
from jobsearch.ui.app import web_link


async def _hello(request: Request) -> Response:
    return PlainTextResponse("hello")


async def _change(request: Request) -> Response:
    form = await checked_form(request)
    return PlainTextResponse(f"changed {form.get('what')}")


def _client(
    *, token: str | None, loopback: bool, base_url: str = "http://127.0.0.1:8321"
) -> httpx.AsyncClient:
    """A client of a kit app with a page and a state-changing POST (no server: ASGI in process)."""
    routes = [Route("/", _hello), Route("/change", _change, methods=["POST"])]
    app = build_app(routes, title="test", token=token, loopback=loopback)
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base_url)
    client.csrf = app.state.csrf_token  # type: ignore[attr-defined]
    return client


async def test_loopback_page_answers_loopback_names_only() -> None:
    """On loopback, a request whose Host is another name (DNS rebinding) is refused with 421."""
    client = _client(token=None, loopback=True)
    assert (await client.get("/")).text == "hello"
    assert (await client.get("/", headers={"host": "localhost:8321"})).status_code == 200
    assert (await client.get("/", headers={"host": "[::1]:8321"})).status_code == 200
    assert (await client.get("/", headers={"host": "attacker.example:8321"})).status_code == 421


async def test_every_answer_carries_a_policy_without_inline_scripts() -> None:
    """The CSP allows scripts from the page's own origin only, and frames nowhere."""
    answer = await _client(token=None, loopback=True).get("/")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_off_loopback_the_token_is_required_once_then_a_cookie() -> None:
    """Without the token: 401. With `?token=`: a redirect that sets an HttpOnly cookie and drops the
    token from the address; then the cookie (or a Bearer header) is enough. A wrong token is refused."""
    client = _client(token="s3cret", loopback=False, base_url="http://jobs.lan:8321")
    assert (await client.get("/")).status_code == 401
    assert (await client.get("/?token=wrong")).status_code == 401
    answer = await client.get("/?token=s3cret&x=1")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/?x=1"
    assert "HttpOnly" in answer.headers["set-cookie"]
    assert (await client.get("/")).text == "hello"  # the cookie, kept by the client
    bearer = _client(token="s3cret", loopback=False, base_url="http://jobs.lan:8321")
    assert (await bearer.get("/", headers={"authorization": "Bearer s3cret"})).text == "hello"


async def test_a_post_needs_the_csrf_token_and_the_pages_own_origin() -> None:
    """A POST without the page's CSRF token, with a wrong one, or from another origin gets 403."""
    client = _client(token=None, loopback=True)
    csrf = client.csrf  # type: ignore[attr-defined]
    assert (await client.post("/change", data={"what": "x"})).status_code == 403
    assert (await client.post("/change", data={"what": "x", "csrf": "guess"})).status_code == 403
    foreign = {"origin": "http://attacker.example"}
    assert (
        await client.post("/change", data={"what": "x", "csrf": csrf}, headers=foreign)
    ).status_code == 403
    assert (await client.post("/change", data={"what": "x", "csrf": csrf})).text == "changed x"


def test_a_token_is_required_exactly_off_loopback() -> None:
    """Loopback addresses need no token; any other address gets the given one or a fresh random one."""
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert access_token("127.0.0.1", "given") is None
    assert access_token("0.0.0.0", "given") == "given"
    fresh = access_token("0.0.0.0", None)
    assert fresh
    assert len(fresh) >= 24


def test_a_taken_port_fails_with_a_clear_message() -> None:
    """Binding a port in use raises ConfigError naming the address."""
    first = bind("127.0.0.1", 0)
    try:
        port = first.getsockname()[1]
        with pytest.raises(ConfigError, match=f"127.0.0.1:{port}"):
            bind("127.0.0.1", port)
    finally:
        first.close()


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://boards.example/jobs/1", "https://boards.example/jobs/1"),
        ("http://boards.example/jobs/1", "http://boards.example/jobs/1"),
        ("javascript:alert(1)", None),
        ("JavaScript:alert(1)", None),
        ("data:text/html,<script>alert(1)</script>", None),
        ("//evil.example/x", None),
        ("", None),
    ],
)
def test_only_http_addresses_become_links(url: str, link: str | None) -> None:
    """A posting's URL becomes a link only when it is http(s); `javascript:` and the like stay text."""
    assert web_link(url) == link
