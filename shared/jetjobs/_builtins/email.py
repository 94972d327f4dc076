"""`email.send`: one message over SMTP, under a Message-ID that names the job.

Why the stdlib's smtplib in a worker thread rather than aiosmtplib: the handler is a plain
function, which the worker already runs in its bounded thread pool; smtplib's exceptions carry the
server's reply code, the one thing that decides between retrying and rejecting; it ships with
Python, so the built-in adds no dependency; and its socket timeout (`JETJOBS_SMTP_TIMEOUT`) bounds
every step, so a thread left behind when a job times out ends soon after.

| the server says                                       | outcome                                    |
|-------------------------------------------------------|--------------------------------------------|
| 2xx                                                   | succeeded: message id, recipients, refused |
| 4xx, or the connection fails, drops or times out      | `Retry` with backoff                       |
| 5xx to the sender, every recipient, the data or AUTH  | `Reject` with the server's reply           |
| no STARTTLS or AUTH offered, an untrusted certificate | `Reject` (fix the settings, then requeue)  |

Some recipients refused and others accepted: the message went out, the job succeeds and its
result lists the refused ones (retrying would send it twice to the others). The Message-ID is
`<job id@JETJOBS_SMTP_DOMAIN or jetjobs>` on every attempt, so a resend is recognisable. Server,
TLS mode and credentials come from the worker's settings (`JETJOBS_SMTP_*`), never from a payload.
"""

from __future__ import annotations

import contextlib
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate
from typing import TYPE_CHECKING, Any

from jetjobs._builtins.payloads import EmailSend, mailbox
from jetjobs._errors import Reject, Retry, describe_error
from jetjobs._settings import SmtpSettings

if TYPE_CHECKING:
    from jetjobs._runtime.app import JobContext

DEFAULT_PORTS = {"starttls": 587, "tls": 465, "none": 25}


def message_id(job_id: str, domain: str | None) -> str:
    """The Message-ID of a job's email: the same on every attempt."""
    return f"<{job_id}@{domain or 'jetjobs'}>"


def compose(
    payload: EmailSend, *, job_id: str, settings: SmtpSettings
) -> tuple[EmailMessage, str, list[str]]:
    """The message, the envelope sender and the envelope recipients (to, cc and bcc; no Bcc header).

    Raises:
        Reject: there is no From address, or the configured one is not an address.
    """
    sender = payload.from_ or settings.sender
    if sender is None:
        raise Reject("no From address: give `from` in the payload or set JETJOBS_SMTP_SENDER")
    try:
        envelope_sender = mailbox(sender)
    except ValueError as exc:
        raise Reject(f"JETJOBS_SMTP_SENDER: {exc}") from None
    message = EmailMessage()
    message["From"] = sender
    if payload.to:
        message["To"] = ", ".join(payload.to)
    if payload.cc:
        message["Cc"] = ", ".join(payload.cc)
    if payload.reply_to:
        message["Reply-To"] = payload.reply_to
    message["Subject"] = payload.subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = message_id(job_id, settings.domain)
    if payload.text is not None:
        message.set_content(payload.text)
        if payload.html is not None:
            message.add_alternative(payload.html, subtype="html")
    else:
        message.set_content(payload.html or "", subtype="html")
    recipients = list(dict.fromkeys(mailbox(a) for a in (*payload.to, *payload.cc, *payload.bcc)))
    return message, envelope_sender, recipients


def _deliver(
    settings: SmtpSettings, message: EmailMessage, sender: str, recipients: list[str]
) -> dict[str, tuple[int, bytes]]:
    """One SMTP session: connect, TLS, AUTH, send. Returns the refused recipients."""
    port = settings.port or DEFAULT_PORTS[settings.tls]
    context = ssl.create_default_context(cafile=settings.ca_file) if settings.tls != "none" else None
    server: smtplib.SMTP
    if settings.tls == "tls":
        server = smtplib.SMTP_SSL(
            settings.host, port, local_hostname=settings.domain, timeout=settings.timeout, context=context
        )
    else:
        server = smtplib.SMTP(settings.host, port, local_hostname=settings.domain, timeout=settings.timeout)
    try:
        if settings.tls == "starttls":
            server.starttls(context=context)
        if settings.username:
            server.login(settings.username, settings.password or "")
        return server.send_message(message, from_addr=sender, to_addrs=recipients)
    finally:
        # Once the message is accepted, a failing QUIT must not turn the job into a retry (a resend).
        with contextlib.suppress(smtplib.SMTPException, OSError):
            server.quit()
        server.close()


def _text(reply: bytes | str) -> str:
    return reply.decode("utf-8", errors="replace") if isinstance(reply, bytes) else reply


def send(ctx: JobContext, payload: EmailSend) -> dict[str, Any]:
    """Send the email (runs in a worker thread); the result names the message and the refusals."""
    settings = ctx.settings.smtp
    message, sender, recipients = compose(payload, job_id=ctx.id, settings=settings)
    where = f"SMTP {settings.host}:{settings.port or DEFAULT_PORTS[settings.tls]}"
    try:
        refused = _deliver(settings, message, sender, recipients)
    except smtplib.SMTPRecipientsRefused as exc:
        replies = "; ".join(f"{rcpt}: {code} {_text(text)}" for rcpt, (code, text) in exc.recipients.items())
        if any(400 <= code < 500 for code, _ in exc.recipients.values()):
            raise Retry(reason=f"{where} refused every recipient: {replies}") from None
        raise Reject(f"{where} refused every recipient: {replies}") from None
    except smtplib.SMTPResponseException as exc:
        reply = f"{where} answered {exc.smtp_code} {_text(exc.smtp_error)}"
        if 500 <= exc.smtp_code < 600:
            raise Reject(reply) from None
        raise Retry(reason=reply) from None
    except smtplib.SMTPNotSupportedError as exc:
        raise Reject(f"{where}: {exc} (check JETJOBS_SMTP_TLS and the credentials)") from None
    except ssl.SSLCertVerificationError as exc:
        raise Reject(f"{where}: {exc.verify_message} (JETJOBS_SMTP_CA_FILE names a CA bundle)") from None
    except (smtplib.SMTPException, OSError) as exc:
        raise Retry(reason=f"{where}: {describe_error(exc)}") from None
    result: dict[str, Any] = {
        "message_id": message_id(ctx.id, settings.domain),
        "recipients": len(recipients),
    }
    if refused:
        result["refused"] = {rcpt: f"{code} {_text(text)}" for rcpt, (code, text) in refused.items()}
    return result
