"""`webhook.call`: one HTTP request with a JSON body, idempotent and optionally signed.

Every request carries `Idempotency-Key: <job id>`, the same on every attempt, so a receiver can
recognise a repeat (a job can run twice, see the README). With `JETJOBS_WEBHOOK_SECRET` set it also
carries `X-Jetjobs-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: a receiver
recomputes the HMAC over the raw body with the shared secret, compares in constant time, and
refuses old timestamps to stop replays. Targets pass the host policy (jetjobs._builtins.hosts);
answers map to outcomes as in jetjobs._builtins.outbound (429/5xx retried after Retry-After).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import TYPE_CHECKING, Any

from jetjobs._builtins.hosts import HostPolicy
from jetjobs._builtins.outbound import raise_for_reply, send
from jetjobs._builtins.payloads import WebhookCall
from jetjobs._observability.redact import mask_url
from jetjobs._wire.envelope import ENCODER

if TYPE_CHECKING:
    from jetjobs._runtime.app import JobContext

SIGNATURE_HEADER = "X-Jetjobs-Signature"
# Enough to see what a receiver answered; the whole body stays with the receiver.
_MAX_ANSWER_BYTES = 64 * 1024


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The `X-Jetjobs-Signature` value for `body` sent at `timestamp` (unix seconds)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


async def call(ctx: JobContext, payload: WebhookCall) -> dict[str, Any]:
    """Send the request; return the status and the start of the answer (kept in the ledger)."""
    config = ctx.settings.webhook
    body = b"" if payload.body is None else ENCODER.encode(payload.body)
    headers = {"User-Agent": "jetjobs", **payload.headers, "Idempotency-Key": ctx.id}
    if payload.body is not None and not any(name.lower() == "content-type" for name in headers):
        headers["Content-Type"] = "application/json"
    if config.secret:
        headers[SIGNATURE_HEADER] = signature(config.secret, int(time.time()), body)
    reply = await send(
        HostPolicy.from_settings(config),
        payload.method,
        payload.url,
        headers=headers,
        content=body if payload.body is not None else None,
        timeout=payload.timeout or config.timeout,
        max_bytes=_MAX_ANSWER_BYTES,
        truncate=True,
    )
    raise_for_reply(
        reply, what=f"{payload.method} {mask_url(payload.url)}", max_retry_after=config.max_retry_after
    )
    return {"status": reply.status, "body": reply.snippet()}
