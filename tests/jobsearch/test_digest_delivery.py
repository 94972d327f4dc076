"""A digest delivered through the real platform: a real nats-server, the `jobsearch serve digest`
worker (the platform's built-in `email.send` and `webhook.call`) over DIGEST_QUEUE, a real SMTP
server (aiosmtpd) and real HTTP servers (uvicorn): one shaped like ntfy, one a plain webhook.

The servers run in the test's event loop, so their handlers wake the test (`Changes`, an
`anyio.Event` under `anyio.fail_after`): nothing here sleeps."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings
from jetjobs._settings import SmtpSettings, WebhookSettings
from jobsearch.app import build_service
from jobsearch.digest import DIGEST_QUEUE, DigestMessage, compose_digest, digest_jobs, record_told
from jobsearch.fit import Fit, Reason
from jobsearch.profile import Digest
from jobsearch.store import Store
from tests.jobsearch.digest_servers import Inbox, Receivers
from tests.jobsearch.export_support import listing
from tests.support import running_worker, status_of

pytestmark = [pytest.mark.integration]

RUN = "r-digest-1"


def delivering(settings: Settings, smtp_port: int) -> Settings:
    """The worker's settings: mail to the local SMTP server, webhooks allowed to reach 127.0.0.1
    (loopback is refused by default, as JETJOBS_WEBHOOK_ALLOW_HOSTS would allow it)."""
    smtp = SmtpSettings(
        host="127.0.0.1", port=smtp_port, tls="none", sender="jobsearch@example.com", timeout=5.0
    )
    webhook = WebhookSettings(allow_hosts=("127.0.0.1",), timeout=5.0)
    return msgspec.structs.replace(settings, smtp=smtp, webhook=webhook)


def composed(tmp_path: Path) -> tuple[Path, DigestMessage]:
    """A real state of record with one run's three listings (one titled outside ASCII), and its digest."""
    db = tmp_path / "jobsearch.sqlite"
    with Store.open(db) as store:
        store.start_run(RUN, profile="me.toml")
        for n, (title, score) in enumerate(
            [("Ingénieur·e Backend — München", 77), ("Senior Python Engineer", 82), ("Data Engineer", 55)], 1
        ):
            store.record_export(
                run_id=RUN,
                job_id=f"j{n}",
                listing=listing(n, title=title),
                drafts=[],
                fit=Fit(score=score, reasons=[Reason(points=20, text="the title is your role")]),
            )
    settings = Digest(email="jane@example.com")
    message = compose_digest(db, RUN, settings, summary_lines=[f"run {RUN} ok in 3 s"])
    assert message is not None
    return db, message


async def test_each_channel_receives_the_digest(
    nc: NATS,
    settings: Settings,
    smtp: tuple[Inbox, int],
    receivers: tuple[Receivers, str],
    tmp_path: Path,
) -> None:
    """Email, ntfy and webhook each get the run's digest once: a multipart email with the subject
    and both bodies, ntfy's JSON publish form at the server root, and the webhook's JSON body."""
    inbox, port = smtp
    http, base = receivers
    configured = delivering(settings, port)
    db, message = composed(tmp_path)
    channels = Digest(email="jane@example.com", ntfy=f"{base}/mytopic", webhook=f"{base}/hooks/jobsearch")
    jobs = digest_jobs(message, channels, run_id=RUN)
    assert [(j.channel, j.job_type, j.key) for j in jobs] == [
        ("email", "email.send", f"digest:{RUN}:email"),
        ("ntfy", "webhook.call", f"digest:{RUN}:ntfy"),
        ("webhook", "webhook.call", f"digest:{RUN}:webhook"),
    ]
    app, queues, _ = build_service("digest")
    assert queues == [DIGEST_QUEUE]
    publisher = Publisher(nc, configured)
    async with running_worker(app, nc, configured, queues=queues) as (_, outcomes):
        submitted = {
            j.channel: await publisher.enqueue(
                j.job_type, j.payload, queue=DIGEST_QUEUE, key=j.key, max_attempts=8
            )
            for j in jobs
        }
        await inbox.changes.wait(lambda: len(inbox.delivered) == 1)
        await http.changes.wait(lambda: len(http.requests) == 2)
        for job in submitted.values():
            await outcomes.wait_for(job.id, "succeeded")
        again = [await publisher.enqueue(j.job_type, j.payload, queue=DIGEST_QUEUE, key=j.key) for j in jobs]
    assert all(job.duplicate for job in again)  # a run sends each channel once
    record_told(db, RUN, message)
    assert compose_digest(db, RUN, channels, summary_lines=[]) is None

    [(recipients, email)] = inbox.delivered
    assert recipients == ["jane@example.com"]
    assert email["Subject"] == message.subject
    assert message.subject == (
        "jobsearch: 3 new listings (best: Senior Python Engineer at Example Co 2, fit 82)"
    )
    assert email.get_content_type() == "multipart/alternative"
    plain, html = email.iter_parts()
    assert isinstance(plain, EmailMessage)
    assert isinstance(html, EmailMessage)
    assert plain.get_content_type() == "text/plain"
    # SMTP carries lines as CRLF; the text is the same.
    assert plain.get_content().replace("\r\n", "\n") == message.text
    assert html.get_content_type() == "text/html"
    assert html.get_content().replace("\r\n", "\n").rstrip("\n") == message.html

    [push] = http.to("/")
    assert push.body == {
        "topic": "mytopic",
        "title": "jobsearch: 3 new listings",
        "message": message.push_message,
        "click": "http://127.0.0.1:8322",
    }
    assert push.body["message"].splitlines()[1] == "77 Ingénieur·e Backend — München · Example Co 1"
    assert push.headers["idempotency-key"] == submitted["ntfy"].id
    assert http.to("/mytopic") == []
    record = await status_of(nc, configured, submitted["ntfy"].id)
    assert record.result["status"] == 200
    assert json.loads(record.result["body"])["event"] == "message"

    [hook] = http.to("/hooks/jobsearch")
    assert hook.body == {
        "run_id": RUN,
        "subject": message.subject,
        "text": message.text,
        "listings": ["L00002", "L00001", "L00003"],
        "closed": [],
    }


async def test_a_channel_that_fails_is_retried_by_the_platform(
    nc: NATS,
    settings: Settings,
    smtp: tuple[Inbox, int],
    receivers: tuple[Receivers, str],
    tmp_path: Path,
) -> None:
    """A webhook answering 503 is called again under the same Idempotency-Key and succeeds on
    the second attempt; the digest is delivered once."""
    _, port = smtp
    http, base = receivers
    http.scripts["/hooks/jobsearch"] = [503, 200]
    configured = delivering(settings, port)
    _, message = composed(tmp_path)
    [job] = digest_jobs(message, Digest(webhook=f"{base}/hooks/jobsearch"), run_id=RUN)
    app, queues, _ = build_service("digest")
    publisher = Publisher(nc, configured)
    async with running_worker(app, nc, configured, queues=queues) as (_, outcomes):
        sent = await publisher.enqueue(
            job.job_type, job.payload, queue=DIGEST_QUEUE, key=job.key, max_attempts=8
        )
        await http.changes.wait(lambda: len(http.requests) == 2)
        await outcomes.wait_for(sent.id, "succeeded")
    assert outcomes.by_job[sent.id] == ["retried", "succeeded"]
    first, second = http.to("/hooks/jobsearch")
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"] == sent.id
    assert first.body == second.body
    record = await status_of(nc, configured, sent.id)
    assert (record.state, record.attempt) == ("succeeded", 2)


async def test_a_hostile_title_adds_no_header_recipient_or_link_to_the_email(
    nc: NATS, settings: Settings, smtp: tuple[Inbox, int], tmp_path: Path
) -> None:
    """The best listing's title carries CRLF, a Bcc header, a second recipient and HTML: the email
    goes to the one address, with no header of the title's, the title's text on one line and its
    markup escaped."""
    inbox, port = smtp
    configured = delivering(settings, port)
    db = tmp_path / "jobsearch.sqlite"
    hostile = 'Engineer\r\nBcc: evil@example.net\r\nX-Evil: 1\n\n<a href="https://evil.example">win</a>'
    with Store.open(db) as store:
        store.start_run(RUN, profile="me.toml")
        store.record_export(
            run_id=RUN,
            job_id="j1",
            listing=listing(1, title=hostile),
            drafts=[],
            fit=Fit(score=90, reasons=[Reason(points=20, text="the title is your role")]),
        )
    settings_digest = Digest(email="jane@example.com")
    message = compose_digest(db, RUN, settings_digest, summary_lines=[])
    assert message is not None
    [job] = digest_jobs(message, settings_digest, run_id=RUN)
    app, queues, _ = build_service("digest")
    async with running_worker(app, nc, configured, queues=queues) as (_, outcomes):
        sent = await Publisher(nc, configured).enqueue(
            job.job_type, job.payload, queue=DIGEST_QUEUE, key=job.key
        )
        await outcomes.wait_for(sent.id, "succeeded")
    [(recipients, email)] = inbox.delivered
    assert recipients == ["jane@example.com"]
    assert "Bcc" not in email
    assert "X-Evil" not in email
    assert "\n" not in str(email["Subject"])
    plain, html = email.iter_parts()
    assert isinstance(plain, EmailMessage)
    assert isinstance(html, EmailMessage)
    assert not any(line.startswith(("Bcc:", "X-Evil:")) for line in plain.get_content().splitlines())
    assert '<a href="https://evil.example"' not in html.get_content()
