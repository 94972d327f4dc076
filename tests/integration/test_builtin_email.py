"""The built-in `email.send` against a real local SMTP server (aiosmtpd), run by a real worker."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import msgspec
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from nats.aio.client import Client as NATS

from jetjobs import App, InvalidJob, Publisher, Settings
from jetjobs._settings import SmtpSettings
from tests.support import dead_letter_of, running_worker, status_of

pytestmark = [pytest.mark.integration]

USER, PASSWORD = "mailer", "s3cret-pass"


@dataclass
class Mailbox:
    """An aiosmtpd handler: records logins and messages; scripted refusals for RCPT and DATA."""

    logins: list[tuple[str, str]] = field(default_factory=list)
    attempts: list[EmailMessage] = field(default_factory=list)
    delivered: list[tuple[str, list[str], EmailMessage]] = field(default_factory=list)
    rcpt_reply: str | None = None
    data_replies: list[str] = field(default_factory=list)

    def authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        login, password = auth_data.login.decode(), auth_data.password.decode()
        self.logins.append((login, password))
        # handled=False: aiosmtpd answers a failure with 535 itself.
        return AuthResult(success=(login, password) == (USER, PASSWORD), handled=False)

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if self.rcpt_reply is not None:
            return self.rcpt_reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.attempts.append(message)
        if self.data_replies:
            return self.data_replies.pop(0)
        assert envelope.mail_from is not None
        self.delivered.append((envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"


class LoopbackController(Controller):
    """aiosmtpd's Controller on a port the OS picks: the bound port is read back before use."""

    def _trigger_server(self) -> None:
        assert isinstance(self.server, asyncio.Server)
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]


@pytest.fixture
def mailbox() -> Mailbox:
    """The receiving side of the SMTP server."""
    return Mailbox()


@pytest.fixture
def smtp_server(mailbox: Mailbox) -> Iterator[LoopbackController]:
    """A real SMTP server on 127.0.0.1 with AUTH (allowed without TLS, as on a local relay)."""
    controller = LoopbackController(
        mailbox,
        hostname="127.0.0.1",
        port=0,
        authenticator=mailbox.authenticate,
        auth_require_tls=False,
    )
    controller.start()
    yield controller
    controller.stop()


def smtp_settings(settings: Settings, port: int, **changes: Any) -> Settings:
    """The test settings pointed at a local SMTP server, with credentials."""
    smtp = SmtpSettings(
        host="127.0.0.1",
        port=port,
        tls="none",
        username=USER,
        password=PASSWORD,
        sender="Shop <shop@example.com>",
        domain="mail.example.com",
        timeout=5.0,
    )
    return msgspec.structs.replace(settings, smtp=msgspec.structs.replace(smtp, **changes))


WELCOME = {
    "to": ["Ada Lovelace <ada@example.com>"],
    "cc": ["grace@example.com"],
    "bcc": ["audit@example.com"],
    "subject": "Welcome aboard",
    "text": "Hello Ada, plain.",
    "html": "<p>Hello <b>Ada</b></p>",
}


async def test_message_arrives_with_its_headers_bodies_and_envelope(
    nc: NATS, settings: Settings, smtp_server: LoopbackController, mailbox: Mailbox
) -> None:
    """One authenticated delivery: Message-ID from the job id, To/Cc but no Bcc header, both bodies."""
    configured = smtp_settings(settings, smtp_server.port)
    async with running_worker(App(), nc, configured) as (_, outcomes):
        job = await Publisher(nc, configured).enqueue("email.send", WELCOME)
        await outcomes.wait_for(job.id, "succeeded")
    assert mailbox.logins == [(USER, PASSWORD)]
    [(mail_from, rcpt_tos, message)] = mailbox.delivered
    assert mail_from == "shop@example.com"
    assert rcpt_tos == ["ada@example.com", "grace@example.com", "audit@example.com"]
    assert message["Message-ID"] == f"<{job.id}@mail.example.com>"
    assert message["From"] == "Shop <shop@example.com>"
    assert message["To"] == "Ada Lovelace <ada@example.com>"
    assert message["Cc"] == "grace@example.com"
    assert message["Bcc"] is None
    assert "audit@example.com" not in message.as_string()
    assert message["Subject"] == "Welcome aboard"
    assert message.get_content_type() == "multipart/alternative"
    plain, html = message.iter_parts()
    assert isinstance(plain, EmailMessage)
    assert isinstance(html, EmailMessage)
    assert (plain.get_content_type(), plain.get_content().strip()) == ("text/plain", "Hello Ada, plain.")
    assert (html.get_content_type(), html.get_content().strip()) == ("text/html", "<p>Hello <b>Ada</b></p>")
    record = await status_of(nc, configured, job.id)
    assert record.result == {"message_id": f"<{job.id}@mail.example.com>", "recipients": 3}


async def test_temporary_failure_is_retried_with_the_same_message_id(
    nc: NATS, settings: Settings, smtp_server: LoopbackController, mailbox: Mailbox
) -> None:
    """A 451 to DATA is retried; the second attempt is delivered under the same Message-ID."""
    mailbox.data_replies.append("451 4.3.0 Mailbox busy, try again later")
    configured = smtp_settings(settings, smtp_server.port)
    async with running_worker(App(), nc, configured) as (_, outcomes):
        job = await Publisher(nc, configured).enqueue(
            "email.send", {"to": ["ada@example.com"], "subject": "Hi", "text": "Hello"}
        )
        await outcomes.wait_for(job.id, "succeeded")
    assert outcomes.by_job[job.id] == ["retried", "succeeded"]
    assert [m["Message-ID"] for m in mailbox.attempts] == [f"<{job.id}@mail.example.com>"] * 2
    assert len(mailbox.delivered) == 1
    record = await status_of(nc, configured, job.id)
    assert (record.state, record.attempt) == ("succeeded", 2)


async def test_permanent_refusal_is_dead_lettered_with_the_reply(
    nc: NATS, settings: Settings, smtp_server: LoopbackController, mailbox: Mailbox
) -> None:
    """A 550 to every recipient is not retried: dead-lettered `rejected` with the server's words."""
    mailbox.rcpt_reply = "550 5.1.1 No such user here"
    configured = smtp_settings(settings, smtp_server.port)
    async with running_worker(App(), nc, configured) as (_, outcomes):
        job = await Publisher(nc, configured).enqueue(
            "email.send", {"to": ["nobody@example.com"], "subject": "Hi", "html": "<p>Hello</p>"}
        )
        await outcomes.wait_for(job.id, "dead")
    letter = await dead_letter_of(nc, configured, job.id)
    assert letter.reason == "rejected"
    assert letter.attempts == 1
    assert letter.error == (
        f"SMTP 127.0.0.1:{smtp_server.port} refused every recipient: "
        "nobody@example.com: 550 5.1.1 No such user here"
    )
    assert mailbox.delivered == []


async def test_wrong_credentials_are_rejected(
    nc: NATS, settings: Settings, smtp_server: LoopbackController, mailbox: Mailbox
) -> None:
    """The credentials come from the settings; a wrong password (535) dead-letters the job at once."""
    configured = smtp_settings(settings, smtp_server.port, password="wrong")
    async with running_worker(App(), nc, configured) as (_, outcomes):
        job = await Publisher(nc, configured).enqueue(
            "email.send", {"to": ["ada@example.com"], "subject": "Hi", "text": "Hello"}
        )
        await outcomes.wait_for(job.id, "dead")
    assert set(mailbox.logins) == {(USER, "wrong")}  # smtplib tries PLAIN, then LOGIN
    letter = await dead_letter_of(nc, configured, job.id)
    assert letter.reason == "rejected"
    assert f"SMTP 127.0.0.1:{smtp_server.port} answered 535" in letter.error


async def test_unreachable_server_is_retried_until_exhausted(nc: NATS, settings: Settings) -> None:
    """A refused connection is temporary: retried, then dead-lettered `exhausted` with the cause."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    configured = smtp_settings(settings, closed_port)
    async with running_worker(App(), nc, configured) as (_, outcomes):
        job = await Publisher(nc, configured).enqueue(
            "email.send", {"to": ["ada@example.com"], "subject": "Hi", "text": "Hello"}, max_attempts=2
        )
        await outcomes.wait_for(job.id, "dead")
    assert outcomes.by_job[job.id] == ["retried", "dead"]
    letter = await dead_letter_of(nc, configured, job.id)
    assert letter.reason == "exhausted"
    assert "Connection refused" in letter.error


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (made with the openssl command) and its key."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_starttls_then_auth(
    nc: NATS, settings: Settings, mailbox: Mailbox, certificate: tuple[Path, Path]
) -> None:
    """With `tls=starttls` the session is encrypted before AUTH, and the server's certificate is verified."""
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    controller = LoopbackController(
        mailbox,
        hostname="127.0.0.1",
        port=0,
        tls_context=server_tls,
        require_starttls=True,
        authenticator=mailbox.authenticate,
    )
    controller.start()
    try:
        configured = smtp_settings(settings, controller.port, tls="starttls", ca_file=str(cert))
        async with running_worker(App(), nc, configured) as (_, outcomes):
            job = await Publisher(nc, configured).enqueue(
                "email.send", {"to": ["ada@example.com"], "subject": "Secret", "text": "Hello"}
            )
            await outcomes.wait_for(job.id, "succeeded")
    finally:
        controller.stop()
    assert mailbox.logins == [(USER, PASSWORD)]
    assert [m["Subject"] for _, _, m in mailbox.delivered] == ["Secret"]


async def test_bad_payload_is_refused_at_enqueue(nc: NATS, settings: Settings) -> None:
    """An email without a body, or with a header smuggled into an address, fails at enqueue."""
    publisher = Publisher(nc, settings)
    with pytest.raises(InvalidJob, match="an email needs a body: give `text`, `html` or both"):
        await publisher.enqueue("email.send", {"to": ["ada@example.com"], "subject": "Hi"})
    with pytest.raises(InvalidJob, match="is not one email address"):
        await publisher.enqueue(
            "email.send", {"to": ["ada@example.com\r\nBcc: eve@example.com"], "subject": "Hi", "text": "x"}
        )
