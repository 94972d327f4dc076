"""The digest of a typed `jobsearch run`, end to end: real stage services and the digest service
(children of the run) on a real nats-server, the sample board, the offline provider, and the
digest's receivers: aiosmtpd for the email, an ntfy-shaped server and a webhook over HTTP."""

from __future__ import annotations

import os
import sys
from email.message import EmailMessage
from pathlib import Path

import anyio
import msgspec
import pytest
from benchmarks.jobsearch_run import profile as profile_with

from jetjobs import Settings
from jobsearch.store import Store
from tests.jobsearch.digest_servers import Inbox, Receivers
from tests.jobsearch.run_support import pipeline_env

pytestmark = pytest.mark.integration


@pytest.fixture
def data_dir(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch, smtp: tuple[Inbox, int]
) -> Path:
    """The run's environment, with mail to the local SMTP server and webhooks allowed to reach
    127.0.0.1 (`JETJOBS_WEBHOOK_ALLOW_HOSTS`, as docs/digest.md says a LAN or loopback target needs)."""
    data = pipeline_env(
        msgspec.structs.replace(settings, duplicate_window=1.0), tmp_path / "data", monkeypatch
    )
    monkeypatch.setenv("JETJOBS_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("JETJOBS_SMTP_PORT", str(smtp[1]))
    monkeypatch.setenv("JETJOBS_SMTP_TLS", "none")
    monkeypatch.setenv("JETJOBS_SMTP_SENDER", "jobsearch@example.com")
    monkeypatch.setenv("JETJOBS_WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    return data


async def run(profile: Path) -> tuple[int, str]:
    """`jobsearch run --profile PROFILE` without blocking this loop (the receivers live in it)."""
    done = await anyio.run_process(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        check=False,
        env=dict(os.environ),
    )
    return done.returncode, (done.stdout + done.stderr).decode()


def told(data_dir: Path) -> list[str]:
    """The listings a digest told, from the state of record."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        rows = store.conn.execute("SELECT listing_id FROM digest_items WHERE kind = 'listed'").fetchall()
    return sorted(row[0] for row in rows)


@pytest.mark.timeout(300)
async def test_a_run_sends_one_digest_on_every_channel_and_the_next_run_sends_none(
    tmp_path: Path, data_dir: Path, smtp: tuple[Inbox, int], receivers: tuple[Receivers, str]
) -> None:
    """The first run's new listings reach the email (text and HTML parts), ntfy and the webhook,
    best fit first, at most max_listings; the summary says so and the run waits for it. The second
    run finds nothing new: nothing sent, `digest nothing new`."""
    inbox, _ = smtp
    http, base = receivers
    profile = profile_with(tmp_path)
    profile.write_text(
        profile.read_text()
        + f'\n[digest]\nemail = "jane@example.com"\nntfy = "{base}/jane-jobs"\n'
        + f'webhook = "{base}/hooks/jobsearch"\nmax_listings = 5\n'
    )
    code, output = await run(profile)
    assert code == 0, output
    assert "digest     sent: email, ntfy, webhook (5 listings)" in output
    listed = told(data_dir)
    assert len(listed) == 5

    [(recipients, email)] = inbox.delivered
    assert recipients == ["jane@example.com"]
    assert str(email["Subject"]).startswith("jobsearch: ")
    plain, html = email.iter_parts()
    assert isinstance(plain, EmailMessage)
    assert isinstance(html, EmailMessage)
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        titles = [
            row[0]
            for row in store.conn.execute(
                f"SELECT title FROM listings WHERE id IN ({','.join('?' * len(listed))})", listed
            )
        ]
    for title in titles:
        assert title in plain.get_content()
    assert "and " in plain.get_content()  # the listings past max_listings are counted, not named
    assert "<table" in html.get_content()
    [push] = http.to("/")
    assert push.body["topic"] == "jane-jobs"
    [hook] = http.to("/hooks/jobsearch")
    assert sorted(hook.body["listings"]) == listed

    code, output = await run(profile)
    assert code == 0, output
    assert "digest     nothing new" in output
    assert len(inbox.delivered) == 1
    assert len(http.requests) == 2
