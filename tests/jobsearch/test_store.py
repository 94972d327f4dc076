"""The state of record: listings, drafts, statuses and runs in SQLite, read by several at once."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobsearch.db import open_db
from jobsearch.store import AmbiguousListing, InvalidStatus, Store, UnknownListing
from tests.jobsearch.export_support import drafts, listing


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh store in a temp file."""
    with Store.open(tmp_path / "jobsearch.sqlite") as opened:
        yield opened


def test_record_export_is_idempotent_per_job(store: Store) -> None:
    """The same export job recorded twice (a redelivery) adds the listing and its drafts once."""
    first = store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    again = store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    assert (first.new, first.drafts) == (True, 2)
    assert (again.new, again.drafts) == (False, 0)
    assert store.conn.execute("SELECT count(*) FROM drafts").fetchone()[0] == 2
    [row] = store.tracker_rows()
    assert row.status == "Drafted"
    assert row.cover_letter.startswith("Dear team")
    assert row.provider_model == "offline/template-1"


def test_status_starts_saved_and_moves_to_drafted_but_never_back(store: Store) -> None:
    """A listing without drafts is Saved; drafts move it to Drafted; a person's status is kept."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
    assert store.tracker_rows()[0].status == "Saved"
    store.record_export(run_id="r1", job_id="j2", listing=listing(1), drafts=drafts())
    assert store.tracker_rows()[0].status == "Drafted"
    store.set_status("L00001", "applied", source="mark")
    store.record_export(run_id="r2", job_id="j3", listing=listing(1), drafts=drafts("other"))
    assert store.tracker_rows()[0].status == "Applied"
    history = [(h["status"], h["source"]) for h in store.status_history("L00001")]
    assert history == [("Saved", "pipeline"), ("Drafted", "pipeline"), ("Applied", "mark")]


def test_draft_history_keeps_every_row_and_shows_the_newest(store: Store) -> None:
    """A re-draft adds rows; the tracker shows the newest per step; nothing is overwritten."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts("offline"))
    store.record_export(run_id="r2", job_id="j2", listing=listing(1), drafts=drafts("anthropic", "m2"))
    assert store.conn.execute("SELECT count(*) FROM drafts").fetchone()[0] == 4
    assert store.tracker_rows()[0].provider_model == "anthropic/m2"


def test_sources_accumulate(store: Store) -> None:
    """A listing seen again on another board keeps both sources."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
    other = (
        listing(1)
        .sources[0]
        .__class__(board="lever", source="lever:acme", external_id="x", url="https://l/x")
    )
    store.record_export(run_id="r2", job_id="j2", listing=listing(1, sources=[other]), drafts=[])
    assert store.tracker_rows()[0].sources == ["sample", "lever:acme"]


def test_ids_resolve_by_unique_prefix(store: Store) -> None:
    """`mark` accepts a unique id prefix, and says clearly when it is unknown or ambiguous."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=[])
    assert store.resolve_id("L00001") == "L00001"
    with pytest.raises(AmbiguousListing):
        store.resolve_id("L0000")
    with pytest.raises(UnknownListing):
        store.resolve_id("nope")
    with pytest.raises(UnknownListing):
        store.resolve_id("L____")  # LIKE wildcards are taken literally


def test_invalid_status_is_refused(store: Store) -> None:
    """A status outside the vocabulary is refused with the list of valid ones."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
    with pytest.raises(InvalidStatus, match="Saved, Drafted, Applied"):
        store.set_status("L00001", "maybe", source="mark")


def test_counts_and_runs(store: Store) -> None:
    """Counts by status cover every status; a run's numbers come from its own rows."""
    store.start_run("r1", profile="p.toml")
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=[])
    store.finish_run("r1", outcome="ok", summary={"new": 2})
    counts = store.counts_by_status()
    assert counts["Drafted"] == 1
    assert counts["Saved"] == 1
    assert counts["Offer"] == 0
    run = store.last_run()
    assert run is not None
    assert run.outcome == "ok"
    assert run.summary == {"new": 2}
    numbers = store.run_numbers("r1")
    assert numbers.listings_new == 2
    [usage] = numbers.drafts
    assert (usage.provider, usage.drafts, usage.tokens_in) == ("offline", 2, 160)


def test_readers_do_not_block_while_a_writer_holds_a_transaction(tmp_path: Path) -> None:
    """WAL: a reader (the review page, a person's sqlite3) reads while an export transaction is open."""
    path = tmp_path / "jobsearch.sqlite"
    with Store.open(path) as writer:
        writer.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
        writer.conn.execute("BEGIN IMMEDIATE")
        writer.conn.execute("UPDATE listings SET notes = 'in flight'")
        reader = open_db(path, readonly=True)
        assert reader.execute("SELECT notes FROM listings").fetchone()[0] == ""
        plain = sqlite3.connect(path)  # a person's own sqlite3
        assert plain.execute("SELECT count(*) FROM listings").fetchone()[0] == 1
        writer.conn.execute("COMMIT")
        assert reader.execute("SELECT notes FROM listings").fetchone()[0] == "in flight"
        reader.close()
        plain.close()
