"""A provider outage never loses a listing: `jobsearch run` end to end against a local server in
OpenAI's wire format that answers 500, then comes back.

Real `jobsearch serve STAGE` processes on a real nats-server, the bundled sample board, SQLite,
the tracker read back with openpyxl.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from benchmarks.jobsearch_run import profile as profile_with

from jetjobs import Settings
from jetjobs.testing import worker_env
from jobsearch.dedupe.report import read_listings
from jobsearch.store import Store
from tests.jobsearch.export_support import sheet_rows
from tests.jobsearch.provider_servers import Fault, ProviderServer

pytestmark = pytest.mark.integration

OUTAGE = Fault(500, {"error": {"message": "internal error", "type": "server_error"}})


@pytest.fixture
def data_dir(
    tmp_path: Path, settings: Settings, providers: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The run and its children: the test's server, a temp data dir, and OpenAI (the local server)
    as the only provider of both steps, with no fallback."""
    run_settings = msgspec.structs.replace(settings, duplicate_window=1.0)
    for name in list(os.environ):
        if name.startswith(
            ("JOBSEARCH_", "JETJOBS_", "LLM_", "COVER_LETTER_", "CONNECTION_NOTE_", "OPENAI_")
        ):
            monkeypatch.delenv(name)
    for name, value in (
        worker_env(run_settings, run_settings.nats.url or "") | providers.env("openai")
    ).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_PROVIDER", "openai")
    monkeypatch.setenv("LLM_RETRIES", "1")
    return tmp_path / "data"


def jobsearch(*args: str) -> subprocess.CompletedProcess[str]:
    """A `jobsearch` command, as a person types it (output not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=dict(os.environ),
    )


def drafts_of(data_dir: Path) -> dict[str, int]:
    """Drafts per listing in the state of record."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        rows = store.conn.execute("SELECT listing_id, count(*) AS n FROM drafts GROUP BY listing_id")
        return {row["listing_id"]: row["n"] for row in rows}


def test_an_outage_keeps_every_listing_and_the_next_run_drafts_them(
    tmp_path: Path, data_dir: Path, providers: ProviderServer
) -> None:
    """With the only provider answering 500: every kept listing is in the tracker, Saved, its
    Review cell naming the failure; the summary adds up and names the failed drafts; nothing is
    dead-lettered. `jobsearch draft --failed` while it is still down changes nothing; with it back,
    a plain run drafts them all (no requeue), and their Review cells empty."""
    profile = profile_with(tmp_path)
    providers.fail("openai", *[OUTAGE] * 10_000)

    first = jobsearch("run", "--profile", str(profile))
    assert first.returncode == 1, first.stdout + first.stderr
    kept = {item.listing.id for item in read_listings(data_dir / "jobsearch.sqlite")}
    assert kept
    rows = {row["ID"]: row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert set(rows) == kept
    for row in rows.values():
        assert row["Status"] == "Saved"
        assert not row["Cover letter"]
        review = str(row["Review"])
        assert re.match(r"draft failed after \d attempts: openai: HTTP 500: internal error", review), row
        assert review.endswith("(the next run retries)")
    assert drafts_of(data_dir) == {}
    summary = first.stdout
    seen = re.search(
        r"listings   seen (\d+) = new (\d+) \+ updated (\d+) \+ merged (\d+) \+ unchanged (\d+) "
        r"\+ filtered (\d+)",
        summary,
    )
    assert seen is not None, summary
    numbers = [int(n) for n in seen.groups()]
    assert numbers[0] == sum(numbers[1:])
    assert numbers[1] == len(kept)
    assert f"not drafted: {len(kept)} listings, failed {len(kept)}; the next run drafts them again" in summary
    assert "failed     0 jobs" in summary  # a failed draft is reported, not dead-lettered
    # The progress lines count the same listings as the summary.
    assert f"new {len(kept)} " in summary.split("jobsearch run")[0]
    assert f"drafted 0 (not drafted {len(kept)})" in summary

    still_down = jobsearch("draft", "--failed", "--profile", str(profile))
    assert still_down.returncode == 1, still_down.stdout + still_down.stderr
    assert f"not drafted: {len(kept)} listings, failed {len(kept)}" in still_down.stdout
    assert drafts_of(data_dir) == {}

    providers.faults["openai"].clear()
    calls_before = len(providers.to("openai"))
    second = jobsearch("run", "--profile", str(profile))
    assert second.returncode == 0, second.stdout + second.stderr
    assert len(providers.to("openai")) >= 2 * len(kept)
    assert calls_before < len(providers.to("openai"))
    assert set(drafts_of(data_dir)) == kept
    assert f"{len(kept)} listings owed a draft by earlier runs were drafted again" in second.stdout
    rows = {row["ID"]: row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert {row["Status"] for row in rows.values()} == {"Drafted"}
    assert all(row["Cover letter"] and not row["Review"] for row in rows.values())

    third = jobsearch("run", "--profile", str(profile))
    assert third.returncode == 0, third.stdout + third.stderr
    assert "drafts     0" in third.stdout  # nothing owed any more


@pytest.mark.parametrize(
    ("fault", "review", "code"),
    [
        ("hangs", r"draft failed after \d attempts: openai: no answer within 0\.3s", 1),
        ("garbage", r"draft failed after \d attempts: openai: HTTP 200 body is not JSON", 1),
        ("limits", r"draft waiting: openai: asked to retry at \d\d:\d\d:\d\d UTC \(HTTP 429", 0),
    ],
)
def test_every_kind_of_provider_failure_keeps_the_listings_and_says_why(
    *,
    tmp_path: Path,
    data_dir: Path,
    providers: ProviderServer,
    monkeypatch: pytest.MonkeyPatch,
    fault: str,
    review: str,
    code: int,
) -> None:
    """A provider that hangs past LLM_TIMEOUT, answers garbage, or asks to be called again in an
    hour: every kept listing is in the tracker, Saved, with the reason in its Review cell, and the
    summary counts them (a wait is not a failure: the run exits 0 and says what it waits for)."""
    if fault == "hangs":
        providers.hang["openai"] = 3.0
        monkeypatch.setenv("LLM_TIMEOUT", "0.3")
    elif fault == "garbage":
        providers.fail("openai", *[Fault(200, b"<html>upstream error</html>")] * 10_000)
    else:
        slow_down = Fault(429, {"error": {"message": "Rate limit reached"}}, {"retry-after": "3600"})
        providers.fail("openai", *[slow_down] * 10_000)
    result = jobsearch("run", "--profile", str(profile_with(tmp_path)))
    assert result.returncode == code, result.stdout + result.stderr
    kept = {item.listing.id for item in read_listings(data_dir / "jobsearch.sqlite")}
    rows = {row["ID"]: row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert set(rows) == kept
    for row in rows.values():
        assert row["Status"] == "Saved"
        assert re.match(review, str(row["Review"])), row["Review"]
    kind = "waiting" if fault == "limits" else "failed"
    assert f"not drafted: {len(kept)} listings, {kind} {len(kept)}" in result.stdout
    assert "failed     0 jobs" in result.stdout
    if fault == "limits":
        assert len(providers.to("openai")) <= 4  # paused for the stage, not asked per listing


def test_draft_names_the_listings_to_draft_now(
    tmp_path: Path, data_dir: Path, providers: ProviderServer
) -> None:
    """`jobsearch draft ID --profile P` drafts the listing named (by a prefix of its id), whatever
    its state, and no other; an id that names none exits 2 saying so."""
    off, on = tmp_path / "off", tmp_path / "on"
    off.mkdir()
    on.mkdir()
    first = jobsearch("run", "--profile", str(profile_with(off, drafting=False)))
    assert first.returncode == 0, first.stdout + first.stderr
    assert drafts_of(data_dir) == {}
    kept = sorted(item.listing.id for item in read_listings(data_dir / "jobsearch.sqlite"))
    assert len(kept) >= 2
    chosen = kept[0]
    result = jobsearch("draft", chosen[:10], "--profile", str(profile_with(on)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert drafts_of(data_dir) == {chosen: 2}
    assert len(providers.to("openai")) == 2
    unknown = jobsearch("draft", "no-such-listing", "--profile", str(profile_with(on)))
    assert unknown.returncode == 2
    assert "no-such-listing" in unknown.stderr
