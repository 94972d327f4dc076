"""The state of record: listings, drafts, statuses and runs in SQLite, read by several at once."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from jobsearch.db import open_db
from jobsearch.jobs import Check
from jobsearch.listing import SourceRef
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


# -- one listing in full, its drafts, a person's edits: what the review page reads and writes --


def test_a_listing_reads_back_as_the_merged_listing_it_was(store: Store) -> None:
    """`merged_listing` rebuilds the MergedListing the export recorded (every field, both sources
    in order), ready to be re-drafted; `listing` adds its status, notes and current drafts."""
    other = SourceRef(board="lever", source="lever:acme", external_id="x", url="https://l/x")
    original = listing(1, sources=[*listing(1).sources, other], department="Platform")
    store.record_export(run_id="r1", job_id="j1", listing=original, drafts=drafts())
    assert store.merged_listing("L00001") == original
    store.set_notes("L00001", "Call Ada.", source="ui")
    detail = store.listing("L00001")
    assert detail.listing == original
    assert (detail.status, detail.notes) == ("Drafted", "Call Ada.")
    assert set(detail.drafts) == {"cover_letter", "connection_note"}
    letter = detail.drafts["cover_letter"]
    assert (letter.provider, letter.model, letter.origin, letter.run_id) == (
        "offline",
        "template-1",
        "pipeline",
        "r1",
    )
    assert letter.checks == [Check(name="length", passed=True)]
    with pytest.raises(UnknownListing):
        store.merged_listing("nope")
    with pytest.raises(UnknownListing):
        store.listing("nope")


def test_a_persons_edit_is_the_current_draft_and_history_keeps_every_row(store: Store) -> None:
    """`save_draft_edit` adds a `drafts` row with origin `edit`, status ok, no checks, keeping the
    provider/model its text began with; it becomes the current draft (and the tracker's text);
    `draft_history` lists every row oldest first. An unknown listing or step is refused."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    failing = [Check(name="employers", passed=False, detail="Globex")]
    redraft = [
        msgspec.structs.replace(d, status="needs_review", checks=failing) for d in drafts("anthropic", "m2")
    ]
    store.record_export(run_id="r2", job_id="j2", listing=listing(1), drafts=redraft)
    assert store.needing_review() == {"L00001"}
    assert store.current_drafts("L00001")["cover_letter"].failed_checks == failing

    edit = store.save_draft_edit("L00001", "cover_letter", "Dear Example Co,\nmy own words.")
    assert (edit.origin, edit.status, edit.checks, edit.run_id) == ("edit", "ok", [], None)
    assert (edit.provider, edit.model) == ("anthropic", "m2")
    assert store.current_drafts("L00001")["cover_letter"] == edit
    assert store.tracker_rows()[0].cover_letter == "Dear Example Co,\nmy own words."
    history = [(d.step, d.origin, d.provider) for d in store.draft_history("L00001")]
    assert history == [
        ("cover_letter", "pipeline", "offline"),
        ("connection_note", "pipeline", "offline"),
        ("cover_letter", "pipeline", "anthropic"),
        ("connection_note", "pipeline", "anthropic"),
        ("cover_letter", "edit", "anthropic"),
    ]
    assert store.needing_review() == {"L00001"}  # the connection note still does
    store.save_draft_edit("L00001", "connection_note", "Hi.")
    assert store.needing_review() == set()
    with pytest.raises(UnknownListing):
        store.save_draft_edit("nope", "cover_letter", "x")
    with pytest.raises(ValueError, match="not a draft step"):
        store.save_draft_edit("L00001", "summary", "x")  # type: ignore[arg-type]


def test_new_listings_boards_and_text_search(store: Store) -> None:
    """`new_listing_ids` names the listings the latest run found first (or a given run's);
    `boards`/`boards_by_listing` name where they came from; `matching` finds text in titles,
    companies, descriptions, notes and locations, with LIKE wildcards taken literally."""
    assert store.new_listing_ids() == set()
    store.start_run("r1", profile="p.toml")
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
    store.start_run("r2", profile="p.toml")
    lever = SourceRef(board="lever", source="lever:acme", external_id="x", url="https://l/x")
    store.record_export(run_id="r2", job_id="j2", listing=listing(2, sources=[lever]), drafts=[])
    store.record_export(run_id="r2", job_id="j3", listing=listing(1), drafts=[])  # seen again
    assert store.new_listing_ids() == {"L00002"}
    assert store.new_listing_ids("r1") == {"L00001"}
    assert store.boards() == ["lever", "sample"]
    assert store.boards_by_listing() == {"L00001": ["sample"], "L00002": ["lever"]}
    store.set_notes("L00002", "100% remote_ok", source="ui")
    assert store.matching("example co 2") == {"L00002"}
    assert store.matching("Berlin") == {"L00001", "L00002"}
    assert store.matching("100%") == {"L00002"}
    assert store.matching("0_") == set()


def test_the_review_tables_reads_agree_with_the_trackers(store: Store) -> None:
    """`summary_rows` are the tracker rows without their drafts; `draft_states` names the listings
    with drafts and their current drafts' statuses; `listing` carries the current drafts and the
    whole history, as `current_drafts` and `draft_history` give them."""
    store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=drafts())
    store.record_export(run_id="r1", job_id="j2", listing=listing(2), drafts=[])
    failing = [Check(name="employers", passed=False, detail="Globex")]
    redraft = [msgspec.structs.replace(drafts("anthropic", "m2")[0], status="needs_review", checks=failing)]
    store.record_export(run_id="r2", job_id="j3", listing=listing(1), drafts=redraft)

    blank = {"cover_letter": "", "connection_note": "", "provider_model": ""}
    full = store.tracker_rows()
    assert store.summary_rows() == [msgspec.structs.replace(row, **blank) for row in full]
    assert (
        full[[r.listing_id for r in full].index("L00001")].provider_model
        == "anthropic/m2, offline/template-1"
    )
    assert store.draft_states() == {"L00001": {"needs_review", "ok"}}
    assert store.needing_review() == {"L00001"}

    detail = store.listing("L00001")
    assert detail.history == store.draft_history("L00001")
    assert detail.drafts == store.current_drafts("L00001")
    assert detail.drafts["cover_letter"].status == "needs_review"
    assert detail.drafts["connection_note"].provider == "offline"
    assert store.current_drafts("L00002") == {}
    with pytest.raises(UnknownListing):
        store.current_drafts("nope")
