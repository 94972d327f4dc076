"""Where a digest goes: one platform job per channel of the profile's `[digest]`, on DIGEST_QUEUE.

| channel   | job type       | what is sent                                                       |
|-----------|----------------|--------------------------------------------------------------------|
| `email`   | `email.send`   | multipart text + HTML to `email` (server: the worker's JETJOBS_SMTP_*) |
| `ntfy`    | `webhook.call` | POST to the server root, ntfy's JSON form `{topic, title, message, click}` |
| `webhook` | `webhook.call` | POST `{run_id, subject, text, listings, closed}` (`WebhookDigest`) |

The jobs are the platform's own built-ins, so retries (up to the attempts the submitter gives),
the Idempotency-Key, the host policy (JETJOBS_WEBHOOK_ALLOW_HOSTS) and dead letters are the
platform's. Their payloads are plain dicts in the built-ins' shapes: the payload Structs are
jetjobs internals, and jetjobs checks a dict against them when it is enqueued (`InvalidJob`).
Each job's key is `digest:<run id>:<channel>`, so a run sends each channel at most once.

ntfy's JSON publishing goes to the server's root URL, not the topic's (docs.ntfy.sh/publish,
"Publish as JSON"): `https://ntfy.sh/mytopic` is posted to `https://ntfy.sh/` with
`"topic": "mytopic"`. JSON also carries a title in any script, where the header form needs
RFC 2047 for anything outside ASCII.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import msgspec

from jobsearch.digest.compose import DigestMessage
from jobsearch.profile import Digest

DIGEST_QUEUE = "jobsearch-digest"
EMAIL_SEND = "email.send"
WEBHOOK_CALL = "webhook.call"
Channel = Literal["email", "ntfy", "webhook"]


class DigestJob(msgspec.Struct, frozen=True, kw_only=True):
    """One channel's job: submit `payload` as `job_type` on DIGEST_QUEUE under `key`."""

    job_type: str
    payload: dict[str, Any]
    key: str
    channel: Channel


class NtfyPublish(msgspec.Struct, frozen=True, kw_only=True):
    """ntfy's JSON publish form (docs.ntfy.sh/publish, "Publish as JSON"), posted to the root."""

    topic: str
    title: str
    message: str
    click: str


class WebhookDigest(msgspec.Struct, frozen=True, kw_only=True):
    """The `webhook` channel's JSON body (docs/digest.md): the digest's text and the ids it told."""

    run_id: str
    subject: str
    text: str
    listings: list[str]  # listing ids told as new or updated, best first
    closed: list[str]  # listing ids told as taken down


def ntfy_target(url: str) -> tuple[str, str]:
    """The server root and the topic of an ntfy topic URL: `https://ntfy.sh/mytopic` ->
    (`https://ntfy.sh/`, `mytopic`); a server under a path keeps it (`https://x.org/ntfy/t` ->
    `https://x.org/ntfy/`, `t`). A URL without a topic gives "" (ntfy refuses it: the job is
    dead-lettered with ntfy's answer, which the run's summary reports)."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    topic = segments[-1] if segments else ""
    root = "/" + "".join(f"{s}/" for s in segments[:-1])
    return urlunsplit((parts.scheme, parts.netloc, root, "", "")), topic


def digest_jobs(message: DigestMessage, settings: Digest, *, run_id: str) -> list[DigestJob]:
    """One job per channel `settings` configures (email, ntfy, webhook, in that order)."""
    jobs: list[DigestJob] = []
    if settings.email:
        email = {
            "to": [settings.email],
            "subject": message.subject,
            "text": message.text,
            "html": message.html,
        }
        jobs.append(_job(EMAIL_SEND, email, run_id, "email"))
    if settings.ntfy:
        root, topic = ntfy_target(settings.ntfy)
        push = NtfyPublish(
            topic=topic, title=message.push_title, message=message.push_message, click=message.click
        )
        jobs.append(_job(WEBHOOK_CALL, _post(root, push), run_id, "ntfy"))
    if settings.webhook:
        body = WebhookDigest(
            run_id=run_id,
            subject=message.subject,
            text=message.text,
            listings=list(message.listed),
            closed=list(message.closed),
        )
        jobs.append(_job(WEBHOOK_CALL, _post(settings.webhook, body), run_id, "webhook"))
    return jobs


def _post(url: str, body: msgspec.Struct) -> dict[str, Any]:
    """A `webhook.call` payload: POST `body` as JSON to `url`."""
    return {"url": url, "method": "POST", "body": msgspec.to_builtins(body)}


def _job(job_type: str, payload: dict[str, Any], run_id: str, channel: Channel) -> DigestJob:
    return DigestJob(job_type=job_type, payload=payload, key=f"digest:{run_id}:{channel}", channel=channel)
