"""Learning from the statuses the person sets, through the real paths: a status typed in the
tracker (read back at the next export), the review page's and `jobsearch mark`'s
`Store.set_status`; the weights kept in SQLite, used by a later scoring, forgotten by
`jobsearch fit reset`."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from openpyxl import load_workbook

from jobsearch.cli import main
from jobsearch.db import immediate, open_db
from jobsearch.dedupe.store import SeenSet
from jobsearch.digest.told import to_tell
from jobsearch.fit import score
from jobsearch.fit.learn import Learned
from jobsearch.listing import Listing
from jobsearch.store import STATUSES, Store
from jobsearch.store.learned import decisions, forget, learned_for
from jobsearch.tracker import export_tracker
from tests.jobsearch.export_support import edit_cells, sheet_rows
from tests.jobsearch.test_fit_learn_set import DECISIONS, Decided, auc, load_set

DECIDED = load_set(DECISIONS / "first.toml")
LABELLED = [d for d in DECIDED.postings if d.wanted is not None]
TAUGHT, HELD_OUT = LABELLED[:40], LABELLED[40:]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A store holding every listing of the first decisions set, as the export stage records it."""
    with Store.open(tmp_path / "jobsearch.sqlite") as opened:
        opened.start_run("r1", profile="p.toml")
        for n, d in enumerate(DECIDED.postings):
            fit = score(DECIDED.profile, d.listing, date.today())
            opened.record_export(run_id="r1", job_id=f"j{n}", listing=d.listing, drafts=[], fit=fit)
        opened.finish_run("r1", outcome="ok", summary={})
        yield opened


def _status(d: Decided) -> str:
    return "Applied" if d.wanted else "Dismissed"


def _decide(store: Store, tracker: Path, chosen: list[Decided]) -> None:
    """Half the decisions typed into the tracker (read back by the next export), half on the page."""
    export_tracker(store, tracker)
    in_sheet, on_page = chosen[0::2], chosen[1::2]
    edit_cells(tracker, {d.listing.id: {"Status": _status(d).lower()} for d in in_sheet})
    report = export_tracker(store, tracker)
    assert report.edits_applied == len(in_sheet), report
    for d in on_page:
        store.set_status(d.listing.id, _status(d), source="ui")
        if d.wanted and d.listing.id.endswith("3"):
            store.set_status(d.listing.id, "Rejected", source="ui")  # still wanted: applied first


def _ranked(store: Store, learned: Learned | None) -> list[tuple[float, bool]]:
    return [
        (float(score(DECIDED.profile, d.listing, date.today(), learned).score), bool(d.wanted))
        for d in HELD_OUT
    ]


def test_decisions_read_back_from_the_store_re_weight_a_later_scoring(store: Store, tmp_path: Path) -> None:
    """40 decisions from the tracker and the page give weights, kept in SQLite; the held-out
    listings scored after rank in another order, the wanted ones higher; the reasons say so."""
    tracker = tmp_path / "tracker.xlsx"
    _decide(store, tracker, TAUGHT)
    assert len(decisions(store.conn)) == 40
    learned = learned_for(store.conn, DECIDED.profile)
    assert learned is not None
    assert learned.decisions == 40
    assert learned.wanted == sum(1 for d in TAUGHT if d.wanted)
    assert learned.multiplier("place_remote+") > learned.multiplier("place_office+")
    before, after = _ranked(store, None), _ranked(store, learned)
    assert [s for s, _ in before] != [s for s, _ in after]
    assert auc(after) > auc(before)
    fit = score(DECIDED.profile, HELD_OUT[0].listing, date.today(), learned)
    assert fit.reasons[-1].text == "weights learned from 40 of your decisions"
    # stored: a second read learns nothing new and gives the same weights
    row = store.conn.execute("SELECT learned_at, fingerprint FROM fit_learning").fetchone()
    assert learned_for(store.conn, DECIDED.profile) == learned
    assert store.conn.execute("SELECT learned_at, fingerprint FROM fit_learning").fetchone() == row


def test_nineteen_decisions_are_not_enough_and_the_twentieth_is(store: Store, tmp_path: Path) -> None:
    """Below 20 decisions the score keeps the profile's weights; a new decision is counted at the
    next scoring."""
    for d in TAUGHT[:19]:
        store.set_status(d.listing.id, _status(d), source="mark")
    assert learned_for(store.conn, DECIDED.profile) is None
    store.set_status(TAUGHT[19].listing.id, _status(TAUGHT[19]), source="tracker")
    learned = learned_for(store.conn, DECIDED.profile)
    assert learned is not None
    assert learned.decisions == 20


def test_a_status_taken_back_or_withdrawn_alone_is_no_decision(store: Store) -> None:
    """Applied then Saved again, and Withdrawn alone, teach nothing; the pipeline's Drafted
    neither."""
    first, second = LABELLED[0].listing.id, LABELLED[1].listing.id
    store.set_status(first, "Applied", source="ui")
    store.set_status(first, "Saved", source="ui")
    store.set_status(second, "Withdrawn", source="tracker")
    assert decisions(store.conn) == []


def test_reset_forgets_and_only_later_decisions_count(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`jobsearch fit reset --profile P` forgets the weights; the decisions made before it never
    count again; 20 new ones teach the score again. `fit show` says which it is."""
    profile_path = tmp_path / "me.toml"
    profile_path.write_text(
        '[person]\nname = "Lena Hoffmann"\nlocation = "Berlin, Germany"\n'
        'skills = ["Python", "SQL", "Airflow", "dbt", "Spark", "Snowflake", "AWS", "Kafka", "Terraform",'
        ' "Docker", "PostgreSQL"]\n'
        '[search]\nterms = ["Data Engineer", "Analytics Engineer", "Data Platform Engineer"]\n'
        'locations = ["Berlin", "Germany"]\nseniority = ["senior", "lead"]\nsalary_floor = 70000\n'
        'salary_currency = "EUR"\nmust = ["Python", "SQL"]\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("JOBSEARCH_DB", str(tmp_path / "jobsearch.sqlite"))
    for d in TAUGHT[:30]:
        store.set_status(d.listing.id, _status(d), source="ui")
    assert main(["fit", "show", "--profile", str(profile_path)]) == 0
    shown = capsys.readouterr().out
    assert "weights learned from 30 decision(s)" in shown
    assert "place_remote+" in shown
    assert main(["fit", "reset", "--profile", str(profile_path)]) == 0
    assert "forgot the weights learned from 30 decision(s)" in capsys.readouterr().out
    assert learned_for(store.conn, DECIDED.profile) is None
    for d in TAUGHT[30:40]:  # 10 new decisions: not yet enough
        store.set_status(d.listing.id, _status(d), source="ui")
    assert learned_for(store.conn, DECIDED.profile) is None
    assert main(["fit", "show", "--profile", str(profile_path)]) == 0
    assert "10 decision(s) (since the reset of" in capsys.readouterr().out
    for d in HELD_OUT[:10]:
        store.set_status(d.listing.id, _status(d), source="ui")
    learned = learned_for(store.conn, DECIDED.profile)
    assert learned is not None
    assert learned.decisions == 20
    assert forget(store.conn, DECIDED.profile) == 20


def test_the_tracker_offers_dismissed_and_reads_it_back(store: Store, tmp_path: Path) -> None:
    """The Status drop-down of a rendered tracker lists Dismissed (after Withdrawn); a Dismissed
    typed in the sheet is the listing's status after the next export."""
    tracker = tmp_path / "tracker.xlsx"
    export_tracker(store, tracker)
    sheet = load_workbook(tracker)["Tracker"]
    [validation] = [dv for dv in sheet.data_validations.dataValidation if dv.errorTitle == "Status"]
    offered = validation.formula1.strip('"').split(",")
    assert offered[-2:] == ["Withdrawn", "Dismissed"]
    assert offered == list(STATUSES)
    listing_id = LABELLED[0].listing.id
    edit_cells(tracker, {listing_id: {"Status": "Dismissed"}})
    export_tracker(store, tracker)
    assert {r["ID"]: r["Status"] for r in sheet_rows(tracker)}[listing_id] == "Dismissed"
    assert store.status_history(listing_id)[-1]["source"] == "tracker"


def test_a_dismissed_listing_is_not_in_the_digest(store: Store, tmp_path: Path) -> None:
    """A listing the person dismissed is ended for the digest, like Rejected and Withdrawn."""
    dismissed = LABELLED[0].listing.id
    store.set_status(dismissed, "Dismissed", source="ui")
    told = {e.listing_id for e in to_tell(tmp_path / "jobsearch.sqlite", "r1", min_fit=0).listed}
    assert dismissed not in told
    assert LABELLED[1].listing.id in told


def test_a_read_only_reader_and_a_file_without_a_state_of_record(store: Store, tmp_path: Path) -> None:
    """A read-only connection gets the weights learned without storing them; a database with no
    state of record yet (only another stage's tables) gives none."""
    for d in TAUGHT[:25]:
        store.set_status(d.listing.id, _status(d), source="ui")
    reader = open_db(tmp_path / "jobsearch.sqlite", readonly=True)
    try:
        learned = learned_for(reader, DECIDED.profile)
    finally:
        reader.close()
    assert learned is not None
    assert learned.decisions == 25
    assert store.conn.execute("SELECT count(*) FROM fit_learning").fetchone()[0] == 0
    other = open_db(tmp_path / "other.sqlite")
    try:
        other.execute("CREATE TABLE dedupe_listings (id TEXT PRIMARY KEY)")
        assert learned_for(other, DECIDED.profile) is None
    finally:
        other.close()


def test_learning_inside_a_writers_transaction(store: Store) -> None:
    """Called inside the caller's write transaction (as a stage recording a batch would), the
    weights are learned and stored in it, with no transaction of their own."""
    for d in TAUGHT[:20]:
        store.set_status(d.listing.id, _status(d), source="tracker")
    with immediate(store.conn):
        learned = learned_for(store.conn, DECIDED.profile)
        assert store.conn.in_transaction
    assert learned is not None
    stored = store.conn.execute("SELECT learned FROM fit_learning").fetchone()[0]
    assert stored is not None
    assert learned_for(store.conn, DECIDED.profile) == learned


def test_the_dedupe_stage_scores_with_the_learned_weights(store: Store, tmp_path: Path) -> None:
    """After 40 decisions, the next posting dedupe records in the same file is scored with the
    learned weights: its fit is the learned score and its reasons say so."""
    _decide(store, tmp_path / "tracker.xlsx", TAUGHT)
    learned = learned_for(store.conn, DECIDED.profile)
    assert learned is not None
    merged = HELD_OUT[0].listing
    posting = Listing(
        board="greenhouse",
        source="acme",
        external_id="learned-1",
        url="https://boards.example/acme/learned-1",
        title=merged.title,
        company=merged.company,
        locations=merged.locations,
        remote=merged.remote,
        salary=merged.salary,
        posted_at=merged.posted_at,
        description=merged.description,
        workplace=merged.workplace,
    )
    seen = SeenSet(tmp_path / "jobsearch.sqlite")
    try:
        decision = seen.record(posting, DECIDED.profile.search, "r2", DECIDED.profile)
    finally:
        seen.close()
    assert decision.fit is not None
    assert decision.fit.reasons[-1].text == "weights learned from 40 of your decisions"
    assert decision.fit.score == score(DECIDED.profile, decision.listing, date.today(), learned).score
