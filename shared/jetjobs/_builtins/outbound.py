"""Outbound HTTP of the built-in jobs: one policy-checked request, and what its answer means.

Each call opens its own `httpx.AsyncClient` (`async with`) on one TLS context shared by the
process. A client per call lives exactly as long as the job that uses it, so nothing is bound to
an event loop that has ended or left unclosed at exit; what a pooled client would save (one TCP and
TLS handshake per job) is small beside a webhook's own latency, and loading the CA bundle, the
expensive part of a client, happens once. No proxy from the environment (`trust_env=False`) and no
redirects: the policy must see the real target of every request.

The host policy (jetjobs._builtins.hosts) is applied twice: to every address the URL's host
resolves to, before anything is sent; and to the address a connection actually reached (httpx's
`trace` extension), before the request is written, so a DNS answer that changes in between
(rebinding) cannot steer a job to an internal address.

| answer                                  | outcome                                         |
|-----------------------------------------|-------------------------------------------------|
| 2xx                                     | returned                                        |
| 408, 429, 5xx                           | `Retry(delay=Retry-After)` (backoff without it) |
| 3xx, other 4xx                          | `Reject` with a snippet of the body             |
| timeout, connection error, DNS failure  | `Retry` with backoff                            |
| host refused by the policy              | `Reject` (HostDenied)                           |
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from jetjobs._builtins.hosts import HostPolicy
from jetjobs._errors import Reject, Retry, describe_error
from jetjobs._observability.redact import mask_url

SNIPPET_CHARS = 300
RETRIED_STATUSES = frozenset({408, 429})


@dataclass(frozen=True, slots=True)
class Reply:
    """A response, read in full (up to the size limit)."""

    status: int
    headers: httpx.Headers
    body: bytes

    def snippet(self, limit: int = SNIPPET_CHARS) -> str:
        """The start of the body as text, for results and error messages."""
        text = self.body[: limit * 4].decode("utf-8", errors="replace")
        return text if len(text) <= limit else text[:limit] + "…"


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle costs milliseconds; every client of the process shares the result.
    return httpx.create_ssl_context()


def retry_after(value: str | None, *, cap: float, now: datetime | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header (seconds or an HTTP date), at most `cap`.

    None when the header is absent or unreadable (the caller then uses its backoff).
    """
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), cap)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return min(max(seconds, 0.0), cap)


def raise_for_reply(reply: Reply, *, what: str, max_retry_after: float) -> None:
    """Turn a non-2xx answer into the job's outcome (see the table above); return on 2xx."""
    if 200 <= reply.status < 300:
        return
    message = f"{what} answered {reply.status}: {reply.snippet()}"
    if reply.status in RETRIED_STATUSES or reply.status >= 500:
        delay = retry_after(reply.headers.get("Retry-After"), cap=max_retry_after)
        raise Retry(delay=delay, reason=message)
    if 300 <= reply.status < 400:
        location = reply.headers.get("Location", "?")
        raise Reject(f"{what} answered {reply.status} to {location}; redirects are not followed")
    raise Reject(message)


async def send(
    policy: HostPolicy,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    content: bytes | None = None,
    timeout: float,
    max_bytes: int,
    truncate: bool = False,
) -> Reply:
    """Send one request to a host the policy allows and read the answer.

    An answer longer than `max_bytes` is cut there with `truncate`, else refused.

    Raises:
        HostDenied: the policy refuses the host (a Reject).
        Retry: a timeout, a connection or DNS failure.
        Reject: the URL is unusable, or the body is larger than `max_bytes` (without `truncate`).
    """
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise Reject(f"{mask_url(url)!r} is not a valid URL: {mask_url(str(exc))}") from None
    host = target.host
    try:
        await policy.check(host, target.port or (443 if target.scheme == "https" else 80))
    except OSError as exc:
        raise Retry(reason=f"cannot resolve {host}: {describe_error(exc)}") from None

    async def check_connection(event: str, info: Mapping[str, Any]) -> None:
        if event == "connection.connect_tcp.complete":
            stream = info["return_value"]
            try:
                policy.check_peer(host, stream.get_extra_info("server_addr")[0])
            except Reject:
                await stream.aclose()
                raise

    try:
        async with (
            httpx.AsyncClient(timeout=timeout, verify=_tls_context(), trust_env=False) as client,
            client.stream(
                method, target, headers=headers, content=content, extensions={"trace": check_connection}
            ) as response,
        ):
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    if truncate:
                        del body[max_bytes:]
                        break
                    raise Reject(f"{method} {mask_url(url)}: the response is larger than {max_bytes} bytes")
            return Reply(response.status_code, response.headers, bytes(body))
    except httpx.TimeoutException as exc:
        raise Retry(
            reason=f"{method} {mask_url(url)}: no answer within {timeout}s ({type(exc).__name__})"
        ) from None
    except httpx.TransportError as exc:
        raise Retry(reason=f"{method} {mask_url(url)}: {describe_error(exc)}") from None
