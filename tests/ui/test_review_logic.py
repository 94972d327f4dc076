"""The review page's decisions without a browser or a server: which providers it offers, what it
says about a draft job, and saves over a version (real SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jetjobs import StatusRecord
from jobsearch.store import Store
from jobsearch.store import review_edits as guarded
from jobsearch.ui.drafting import PageJob, configured_providers, job_view
from tests.ui.listings import seed

NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Three listings with drafts, as a run records them."""
    with Store.open(tmp_path / "jobsearch.sqlite") as opened:
        seed(opened)
        opened.finish_run("run-1", outcome="ok", summary={})
        yield opened


def test_only_configured_providers_are_offered() -> None:
    """No key: only the offline template (Ollama only when routed or given an address); a key adds
    its provider; a broken environment still offers what has a key."""
    assert configured_providers({}) == ["offline"]
    assert configured_providers({"OPENAI_API_KEY": "sk-1", "GEMINI_API_KEY": " "}) == ["openai", "offline"]
    assert configured_providers({"OLLAMA_BASE_URL": "http://127.0.0.1:11434"}) == ["ollama", "offline"]
    assert configured_providers({"LLM_PROVIDER": "ollama"}) == ["ollama", "offline"]
    assert configured_providers({"LLM_PROVIDER": "nonsense", "ANTHROPIC_API_KEY": "k"}) == [
        "anthropic",
        "offline",
    ]


def _record(state: str, **fields: object) -> StatusRecord:
    return StatusRecord(id="draft-L0002-review-1", type="jobsearch.draft", state=state,  # type: ignore[arg-type]
                        updated_at=NOW, **fields)  # type: ignore[arg-type]  # fmt: skip


def test_a_draft_job_is_followed_until_it_lands_or_says_why_not(store: Store) -> None:
    """Each way a draft job ends is said with its reason; only unfinished ones are `pending`."""
    detail = store.listing("L0002")
    newest = max(d.id for d in detail.drafts.values())
    job = PageJob(job_id="draft-L0002-review-1", provider="openai", before=newest, submitted_at=NOW)
    assert job_view(job, None, detail).pending
    running = job_view(job, _record("failed", error="openai: HTTP 503"), detail)
    assert (running.state, running.reason, running.pending) == ("retrying", "openai: HTTP 503", True)
    failed = job_view(
        job, _record("succeeded", result={"outcome": "failed", "reason": "openai: HTTP 401"}), detail
    )
    assert (failed.what, failed.state, failed.reason, failed.pending) == (
        "Re-draft with openai", "failed", "openai: HTTP 401", False
    )  # fmt: skip
    dead = job_view(job, _record("dead", error="provider 'openai' is not configured"), detail)
    assert (dead.state, dead.reason, dead.pending) == ("dead", "provider 'openai' is not configured", False)
    written = job_view(job, _record("succeeded", result={"outcome": "drafted"}), detail)
    assert (written.state, written.pending) == ("written", True)
    earlier = PageJob(job_id=job.job_id, provider="", before=newest - 1, submitted_at=NOW)
    landed = job_view(earlier, _record("succeeded", result={"outcome": "drafted"}), detail)
    assert (landed.what, landed.state, landed.pending) == ("Draft", "landed", False)
    assert landed.reason.startswith("needs review: cover letter: names an employer")  # Globex's letter


def test_a_save_over_a_newer_version_writes_nothing_and_returns_it(store: Store) -> None:
    """Notes, status and a draft saved from an older revision: the newer (different) version comes
    back and nothing is written; the same save from the current revision, or of the same value,
    goes through."""
    seen = guarded.revisions(store.conn, "L0001")
    store.set_notes("L0001", "from the tracker", source="tracker")
    newer = guarded.save_notes(store.conn, "L0001", "mine", base=seen.notes)
    assert newer is not None
    assert (newer.field, newer.value, newer.source) == ("notes", "from the tracker", "tracker")
    assert store.listing("L0001").notes == "from the tracker"
    assert guarded.save_notes(store.conn, "L0001", "from the tracker", base=seen.notes) is None  # same text
    assert guarded.save_notes(store.conn, "L0001", "mine", base=newer.revision) is None
    assert store.listing("L0001").notes == "mine"

    store.set_status("L0001", "Interview", source="tracker")
    conflict = guarded.save_status(store.conn, "L0001", "Applied", base=seen.status)
    assert isinstance(conflict, guarded.Version)
    assert (conflict.value, conflict.source) == ("Interview", "tracker")
    assert guarded.save_status(store.conn, "L0001", "Applied", base=conflict.revision) == (
        "Interview",
        "Applied",
    )

    store.save_draft_edit("L0001", "cover_letter", "another tab's letter")
    draft = guarded.save_draft(
        store.conn, "L0001", "cover_letter", "my letter", base=seen.drafts["cover_letter"]
    )
    assert draft is not None
    assert (draft.value, draft.source) == ("another tab's letter", "edit")
    assert store.current_drafts("L0001")["cover_letter"].text == "another tab's letter"
    assert guarded.save_draft(store.conn, "L0001", "cover_letter", "my letter", base=draft.revision) is None
    assert store.current_drafts("L0001")["cover_letter"].text == "my letter"
