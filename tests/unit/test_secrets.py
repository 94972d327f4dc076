"""Issue 16 ("Hardening"), item 11: every secret is masked in every repr, log line, error and span."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import use_span

from jetjobs._builtins.hosts import HostPolicy
from jetjobs._builtins.outbound import send
from jetjobs._builtins.payloads import check_http_url
from jetjobs._errors import Reject
from jetjobs._observability import telemetry
from jetjobs._observability.redact import mask_url
from jetjobs._runtime.outcome import Backoff, Dead, RetryLater, classify
from jetjobs._settings import Settings, load_settings

SECRETS = ("url-pw", "nats-pw", "nats-token", "smtp-pw", "hook-secret")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("nats://alice:s3cret@h:4222", "nats://alice:***@h:4222"),
        ("nats://t0k3n@h:4222", "nats://***@h:4222"),
        ("nats://a:p@ss@h:1,nats://b:x@h2:2", "nats://a:***@h:1,nats://b:***@h2:2"),
        ("POST https://u:pw@h.example/x?to=a@b.c: 500", "POST https://u:***@h.example/x?to=a@b.c: 500"),
        ("nats://h:4222", "nats://h:4222"),
        ("mail ops@example.com", "mail ops@example.com"),
    ],
)  # fmt: skip
def test_mask_url(url: str, shown: str) -> None:
    """Item 11: a URL's password (or a token standing alone) becomes `***`; the rest stays readable."""
    assert mask_url(url) == shown


def test_settings_repr_masks_every_secret() -> None:
    """Item 11: `repr(load_settings())` shows none of the NATS password, token, URL password, SMTP
    password or webhook secret, whether for the whole settings or one section."""
    settings = load_settings(
        env={
            "NATS_URL": "nats://alice:url-pw@broker:4222",
            "NATS_USER": "alice",
            "NATS_PASSWORD": "nats-pw",
            "NATS_TOKEN": "nats-token",
            "JETJOBS_SMTP_PASSWORD": "smtp-pw",
            "JETJOBS_WEBHOOK_SECRET": "hook-secret",
        }
    )
    for shown in (
        repr(settings),
        str(settings),
        repr(settings.nats),
        repr(settings.smtp),
        repr(settings.webhook),
    ):
        assert not [secret for secret in SECRETS if secret in shown], shown
    assert "nats://alice:***@broker:4222" in repr(settings.nats)
    assert "user='alice'" in repr(settings.nats)


LOGGING = """
import structlog
from jetjobs._observability.log import configure_logging
configure_logging(json={json})
log = structlog.get_logger()
log.warning("connect.failed", url="nats://alice:url-pw@broker:4222", error="https://u:hook-secret@h/x: 500")
try:
    raise RuntimeError("cannot reach nats://nats-token@broker:4222")
except RuntimeError:
    log.exception("crashed")
"""


@pytest.mark.parametrize("json", [True, False])
def test_log_lines_mask_url_credentials(json: bool) -> None:
    """Item 11: a log line (JSON or console), its values and its traceback alike, shows URLs
    with the password or token masked."""
    ran = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LOGGING.format(json=json))], capture_output=True, check=True
    )
    stderr = ran.stderr.decode()
    assert "alice:***@broker" in stderr
    assert "RuntimeError" in stderr
    assert not [secret for secret in SECRETS if secret in stderr], stderr


async def test_errors_mask_url_credentials() -> None:
    """Item 11: the errors a job ends with (its ledger entry, its dead letter, its span), any
    handler's and the built-ins', show URLs with the password masked."""
    settings = Settings()
    for error in (RuntimeError("GET https://u:hook-secret@h/x failed"), Reject("https://u:hook-secret@h/x")):
        for attempt in (1, 5):
            outcome = classify(error, None, attempt=attempt, max_attempts=5, backoff=Backoff.of(settings))
            assert isinstance(outcome, RetryLater | Dead)
            assert "https://u:***@h/x" in outcome.error, outcome
    with pytest.raises(ValueError, match=r"u:\*\*\*@") as invalid:
        check_http_url("http://u:hook-secret@hooks.example.com:99999/")
    assert "hook-secret" not in str(invalid.value)
    with pytest.raises(Reject) as refused:
        await send(HostPolicy(), "POST", "http://u:hook-secret@[::1/x", timeout=1, max_bytes=1024)
    assert "hook-secret" not in str(refused.value)


def test_span_status_masks_url_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 11: the error a span carries as its status has the URL's password masked."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(telemetry, "_provider", provider)  # tracing on, for this test only
    span = provider.get_tracer("test").start_span("process webhook.call")
    with use_span(span, end_on_exit=True):
        telemetry.mark_outcome("retry", "POST https://u:hook-secret@h/x: no answer within 10s")
    [finished] = exporter.get_finished_spans()
    assert finished.status.description == "POST https://u:***@h/x: no answer within 10s"
    provider.shutdown()
