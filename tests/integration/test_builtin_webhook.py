"""The built-in `webhook.call` against a real local HTTP server, run by a real worker."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, InvalidJob, Publisher, Settings
from jetjobs._builtins.hosts import HostDenied, HostPolicy, IPAddress
from jetjobs._builtins.outbound import send
from jetjobs._settings import WebhookSettings
from tests.http_target import Answer, HttpTarget
from tests.support import dead_letter_of, running_worker, status_of

pytestmark = [pytest.mark.integration]

SECRET = "whsec-test-0123456789"


@pytest.fixture
def allowed(settings: Settings) -> Settings:
    """Settings that sign webhooks and let jobs call 127.0.0.1 (loopback is refused by default)."""
    return msgspec.structs.replace(
        settings, webhook=WebhookSettings(secret=SECRET, allow_hosts=("127.0.0.1",), timeout=5.0)
    )


async def test_request_carries_idempotency_key_and_a_verifiable_signature(
    nc: NATS, allowed: Settings, target: HttpTarget
) -> None:
    """The JSON body arrives with Idempotency-Key = job id and an HMAC the receiver can check."""
    target.script("/orders", Answer(200, b'{"received": true}'))
    async with running_worker(App(), nc, allowed) as (_, outcomes):
        job = await Publisher(nc, allowed).enqueue(
            "webhook.call",
            {"url": target.url("/orders"), "headers": {"X-Source": "shop"}, "body": {"order": 1001}},
        )
        await outcomes.wait_for(job.id, "succeeded")
    [request] = target.to("/orders")
    assert request.method == "POST"
    assert json.loads(request.body) == {"order": 1001}
    assert request.headers["idempotency-key"] == job.id
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-source"] == "shop"
    fields = dict(part.split("=", 1) for part in request.headers["x-jetjobs-signature"].split(","))
    expected = hmac.new(SECRET.encode(), f"{fields['t']}.".encode() + request.body, hashlib.sha256)
    assert hmac.compare_digest(fields["v1"], expected.hexdigest())
    assert abs(int(fields["t"]) - time.time()) < 60
    record = await status_of(nc, allowed, job.id)
    assert record.result == {"status": 200, "body": '{"received": true}'}


async def test_503_with_retry_after_is_retried_after_that_delay(
    nc: NATS, allowed: Settings, target: HttpTarget
) -> None:
    """A 503 with `Retry-After: 1` is retried after about a second (not the 50 ms backoff), then succeeds."""
    target.script("/busy", Answer(503, b"busy", {"Retry-After": "1"}), Answer(200, b"done"))
    async with running_worker(App(), nc, allowed) as (_, outcomes):
        job = await Publisher(nc, allowed).enqueue("webhook.call", {"url": target.url("/busy")})
        await outcomes.wait_for(job.id, "succeeded")
    assert outcomes.by_job[job.id] == ["retried", "succeeded"]
    first, second = target.to("/busy")
    assert second.at - first.at >= 0.9
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"] == job.id
    record = await status_of(nc, allowed, job.id)
    assert (record.state, record.attempt, record.result) == ("succeeded", 2, {"status": 200, "body": "done"})


async def test_404_is_dead_lettered_rejected_with_the_body(
    nc: NATS, allowed: Settings, target: HttpTarget
) -> None:
    """A 404 is not retried: the job is dead-lettered `rejected`, the error quoting the answer."""
    target.script("/gone", Answer(404, b"no such hook: /gone"))
    async with running_worker(App(), nc, allowed) as (_, outcomes):
        job = await Publisher(nc, allowed).enqueue("webhook.call", {"url": target.url("/gone")})
        await outcomes.wait_for(job.id, "dead")
    letter = await dead_letter_of(nc, allowed, job.id)
    assert letter.reason == "rejected"
    assert letter.attempts == 1
    assert letter.error == f"POST {target.url('/gone')} answered 404: no such hook: /gone"
    assert len(target.to("/gone")) == 1


async def test_timeout_is_retried(nc: NATS, allowed: Settings, target: HttpTarget) -> None:
    """A receiver that does not answer within the payload's timeout is called again; the retry succeeds."""
    target.script("/slow", Answer(200, b"late", hold=threading.Event()), Answer(200, b"quick"))
    async with running_worker(App(), nc, allowed) as (_, outcomes):
        job = await Publisher(nc, allowed).enqueue(
            "webhook.call", {"url": target.url("/slow"), "timeout": 0.3}
        )
        await outcomes.wait_for(job.id, "succeeded")
    assert outcomes.by_job[job.id] == ["retried", "succeeded"]
    record = await status_of(nc, allowed, job.id)
    assert record.result == {"status": 200, "body": "quick"}


async def test_loopback_is_refused_unless_allowed(nc: NATS, settings: Settings, target: HttpTarget) -> None:
    """With default settings a job aimed at 127.0.0.1 is rejected before any request is sent."""
    target.script("/internal", Answer(200, b"secret"))
    async with running_worker(App(), nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue("webhook.call", {"url": target.url("/internal")})
        await outcomes.wait_for(job.id, "dead")
    letter = await dead_letter_of(nc, settings, job.id)
    assert letter.reason == "rejected"
    assert "127.0.0.1, a loopback address" in letter.error
    assert "JETJOBS_WEBHOOK_ALLOW_HOSTS" in letter.error
    assert target.requests == []


async def test_denied_host_is_refused_even_when_allowed(
    nc: NATS, allowed: Settings, target: HttpTarget
) -> None:
    """A deny entry wins over an allow entry: the job is rejected and nothing reaches the server."""
    denying = msgspec.structs.replace(
        allowed, webhook=msgspec.structs.replace(allowed.webhook, deny_hosts=("127.0.0.0/8",))
    )
    async with running_worker(App(), nc, denying) as (_, outcomes):
        job = await Publisher(nc, denying).enqueue("webhook.call", {"url": target.url("/x")})
        await outcomes.wait_for(job.id, "dead")
    letter = await dead_letter_of(nc, denying, job.id)
    assert "denied by JETJOBS_WEBHOOK_DENY_HOSTS" in letter.error
    assert target.requests == []


async def test_bad_payload_is_refused_at_enqueue(nc: NATS, settings: Settings) -> None:
    """A URL that is not http(s), or a header jetjobs sets itself, fails at enqueue: nothing is published."""
    publisher = Publisher(nc, settings)
    with pytest.raises(InvalidJob, match=r"^payload of webhook.call does not match its schema: 'ftp://x/'"):
        await publisher.enqueue("webhook.call", {"url": "ftp://x/"})
    with pytest.raises(InvalidJob, match="header 'Idempotency-Key' is set by jetjobs"):
        await publisher.enqueue(
            "webhook.call", {"url": "https://example.com/", "headers": {"Idempotency-Key": "mine"}}
        )


class ChangedAnswerPolicy(HostPolicy):
    """A policy whose name check passed (as if DNS first answered with a public address)."""

    async def check(self, host: str, port: int) -> list[IPAddress]:
        return []


async def test_connection_to_a_refused_address_is_cut_before_the_request(target: HttpTarget) -> None:
    """The address actually connected to is checked again: a changed DNS answer cannot reach loopback."""
    target.script("/admin", Answer(200, b"secret"))
    with pytest.raises(HostDenied, match=r"127\.0\.0\.1, a loopback address"):
        await send(ChangedAnswerPolicy(), "POST", target.url("/admin"), timeout=5.0, max_bytes=1024)
    assert target.requests == []
