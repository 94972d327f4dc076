"""The run's bookkeeping without a server: ledger entries counted per stage, the summary's numbers."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from jetjobs import StatusRecord
from jobsearch.dedupe.report import RunOutcomes
from jobsearch.jobs import DRAFT, LISTING, SOURCE
from jobsearch.run.progress import TERMINAL, Progress
from jobsearch.run.summary import FAILED, OK, summarise
from jobsearch.run.summary_lines import format_summary, listings_line
from jobsearch.store import ProviderUsage, RunNumbers

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def entry(job_id: str, job_type: str, state: str, result: Any = None, **fields: Any) -> StatusRecord:
    """A ledger entry as a worker writes it."""
    return StatusRecord(id=job_id, type=job_type, state=state, updated_at=NOW, result=result, **fields)  # type: ignore[arg-type]


def test_counts_follow_each_job_once_whatever_entries_arrive() -> None:
    """A job counts once as submitted and once as settled, even if its `queued` entry was skipped
    (overwritten before it was read) or its terminal entry arrives twice; retries are shown."""
    progress = Progress([LISTING, DRAFT])
    progress.on_record(entry("a", LISTING, "queued"))
    progress.on_record(entry("a", LISTING, "running", attempt=1))
    progress.on_record(entry("a", LISTING, "failed", error="boom"))
    assert progress.counts[LISTING].retrying == 1
    assert progress.errors == {"a": "boom"}
    progress.on_record(entry("a", LISTING, "running", attempt=2))
    progress.on_record(entry("a", LISTING, "succeeded", {"outcome": "new", "state": "drafted"}))
    progress.on_record(entry("a", LISTING, "succeeded", {"outcome": "new", "state": "drafted"}))
    progress.on_record(entry("b", LISTING, "succeeded", {"outcome": "new", "state": "dropped"}))
    counts = progress.counts[LISTING]
    assert (counts.submitted, counts.succeeded, counts.retrying) == (2, 2, 0)
    assert progress.redelivered == {"a"}
    assert progress.unsettled() == 0
    assert progress.outcomes[f"{LISTING}:new:dropped"] == 1


def test_a_withdrawn_duplicate_is_forgotten() -> None:
    """A duplicate submission's `queued` entry is deleted by its publisher: that job never was."""
    progress = Progress([DRAFT])
    progress.on_record(entry("d", DRAFT, "queued"))
    assert progress.unsettled() == 1
    progress._forget("d")
    assert progress.unsettled() == 0
    assert progress.counts[DRAFT].submitted == 0


def test_watch_finds_a_job_that_settled_before_the_call() -> None:
    """Waiting for a render job that already finished returns at once."""
    progress = Progress([])
    progress.on_record(entry("t", "jobsearch.tracker", "succeeded", {"path": "x", "rows": 1}))
    assert progress.watch("t").is_set()


def test_summary_partitions_the_postings_and_names_failures() -> None:
    """seen = new + updated + merged + unchanged + filtered (+ rejected), from dedupe's tables; a
    dead source and a dead job make exit 1."""
    progress = Progress([SOURCE, LISTING, DRAFT])
    progress.keep_results = frozenset({SOURCE})
    progress.on_record(entry("s1", SOURCE, "succeeded", {"source": "sample", "listings": 7}))
    progress.on_record(entry("s2", SOURCE, "dead", error="greenhouse:acme: 404 Not Found"))
    progress.on_record(entry("l9", LISTING, "dead", error="not a listing", dead_reason="invalid"))
    progress.on_record(entry("x", DRAFT, "dead", error="provider down", dead_reason="exhausted"))
    numbers = RunNumbers(
        listings_new=2,
        listings_updated=0,
        drafts=[ProviderUsage(provider="p", model="m", drafts=4, tokens_in=10, tokens_out=5, cost_usd=0.5)],
        needs_review=1,
    )
    outcomes = RunOutcomes(new=2, updated=1, merged=1, unchanged=1, filtered=1, filtered_reasons={"terms": 1})
    summary = summarise("r1", 3.0, progress, numbers, {"path": "/t.xlsx", "rows": 2}, outcomes=outcomes)
    assert (summary.listings_seen, summary.listings_new, summary.listings_filtered) == (7, 2, 1)
    assert (summary.listings_updated, summary.listings_merged, summary.listings_unchanged) == (1, 1, 1)
    assert summary.listings_rejected == 1
    assert listings_line(summary) == (
        "  listings   seen 7 = new 2 + updated 1 + merged 1 + unchanged 1 + filtered 1 + rejected 1 (terms 1)"
    )
    short = summarise("r1", 3.0, progress, numbers, None, outcomes=RunOutcomes(new=2))
    assert "not recorded 4" in listings_line(short)  # never a sum that silently fails
    assert summary.sources_failed == ["greenhouse:acme: 404 Not Found"]
    assert summary.exit_code == FAILED
    text = "\n".join(format_summary(summary))
    assert "1 ok, 1 failed" in text
    assert "jobsearch.draft x: exhausted: provider down" in text
    assert "15 tokens, $0.5000; 1 need review" in text
    assert "/t.xlsx (2 listings)" in text
    clean = summarise("r2", 1.0, Progress([SOURCE, LISTING, DRAFT]), numbers, {"path": "/t", "rows": 0})
    assert clean.exit_code == OK


def test_unsettled_is_kept_right_whatever_order_entries_arrive_in() -> None:
    """The unsettled count kept as entries arrive equals a scan of every job's state, over random
    sequences of queued/running/failed/succeeded/dead entries and withdrawn duplicates."""
    rng = random.Random(7)
    for _ in range(200):
        progress = Progress([DRAFT])
        for _ in range(60):
            job_id = f"j{rng.randrange(12)}"
            if rng.random() < 0.1:
                progress._forget(job_id)
            else:
                state = rng.choice(["queued", "running", "failed", "succeeded", "dead"])
                progress.on_record(entry(job_id, DRAFT, state))
            scanned = sum(1 for state in progress.state.values() if state not in TERMINAL)
            assert progress.unsettled() == scanned
