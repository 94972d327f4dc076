"""The dedupe handler without a server: drafts once, seen-set across runs, the kill case, filters."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from jetjobs import ConfigError, Reject
from jobsearch.app import build_app
from jobsearch.dedupe import Dedupe, match, merge, run_outcomes
from jobsearch.dedupe.report import read_listings
from jobsearch.dedupe.store import SeenSet
from jobsearch.jobs import (
    BoardReadJob,
    DraftJob,
    DraftShortlistJob,
    ExportBatchJob,
    ListingBatchJob,
    ListingJob,
    SearchJob,
)
from jobsearch.listing import Listing, MergedListing, Salary
from jobsearch.profile import Drafting, Person, Profile, Search
from jobsearch.schema_export import check_schemas
from jobsearch.store import Store
from tests.jobsearch.test_dedupe_match import posting

PROFILE = Profile(person=Person(name="Sam Sample"))
EVERYTHING = msgspec.structs.replace(PROFILE, drafting=Drafting(min_fit=0))  # every listing drafted


async def shortlisted(dedupe: Dedupe, owed: Owed, run_id: str = "run1") -> dict[str, int]:
    """The run's shortlist (what its owner submits once dedupe drains), drafting every listing."""
    return await dedupe.shortlist(DraftShortlistJob(run_id=run_id, profile=EVERYTHING), owed)


def job(listing: Listing, run_id: str = "run1", profile: Profile = PROFILE) -> ListingJob:
    """A listing job of `listing`."""
    return ListingJob(run_id=run_id, listing=listing, profile=profile)


class Owed:
    """A stand-in for the export and draft queues: records each submission, and (with `db`)
    records the exports in the state of record as the export stage would; can fail like a killed
    service, or like an export job that died (`lose_exports`)."""

    def __init__(self, db: Path | None = None) -> None:
        self.db = db
        self.keys: list[str] = []
        self.job_ids: list[str] = []
        self.drafted_titles: list[str] = []
        self.exports: list[MergedListing] = []  # each listing handed to the export stage
        self.fail = False
        self.lose_exports = False

    async def draft(self, draft: DraftJob, key: str, job_id: str) -> None:
        if self.fail:
            raise ConnectionError("killed before the draft was submitted")
        self.keys.append(key)
        self.job_ids.append(job_id)
        self.drafted_titles.append(draft.listing.title)

    async def export(self, export: ExportBatchJob, key: str) -> None:
        if self.fail:
            raise ConnectionError("killed before the export was submitted")
        self.exports.extend(export.listings)
        if self.db is not None and not self.lose_exports:
            with Store.open(self.db) as store:
                for listing in export.listings:
                    store.record_export(run_id=export.run_id, job_id=key, listing=listing, drafts=[])


async def test_new_listing_drafts_once_and_a_second_run_drafts_nothing(tmp_path: Path) -> None:
    """Two postings of one job give one draft job; the same postings in a later run give none and
    are `unchanged`; every change the person sees went to the export stage, newest revision last."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    own = posting("1", "Backend Engineer")
    copy = posting("2", "Backend Engineer (m/w/d)", board="arbeitnow", url="https://a.example/2")
    first = await dedupe.handle(job(own), owed)
    second = await dedupe.handle(job(copy), owed)
    assert (first["outcome"], second["outcome"]) == ("new", "merged")
    assert owed.keys == [f"run1:draft:{first['listing_id']}"]
    assert owed.job_ids == [f"draft-{first['listing_id']}-run1"]
    assert [(e.revision, len(e.sources)) for e in owed.exports] == [(1, 1), (2, 2)]
    for listing in (own, copy):
        assert (await dedupe.handle(job(listing, "run2"), owed))["outcome"] == "unchanged"
    assert len(owed.keys) == 1
    assert len(owed.exports) == 2
    stored = read_listings(tmp_path / "db.sqlite")
    assert [len(s.listing.sources) for s in stored] == [2]
    assert stored[0].state == "drafted"
    await dedupe.aclose()


async def test_killed_before_the_draft_is_submitted_the_redelivery_submits_it(tmp_path: Path) -> None:
    """Committed to SQLite but nothing submitted (the service died): the redelivered job submits
    the export and the draft; a third delivery submits nothing."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    listing = posting("1", "Backend Engineer")
    owed.fail = True
    with pytest.raises(ConnectionError):
        await dedupe.handle(job(listing), owed)
    owed.fail = False
    # Another posting of the same job meanwhile: it merges, owes no draft, and exports revision 2.
    other = posting("2", "Backend Engineer", board="remotive", url="https://r.example/2")
    assert (await dedupe.handle(job(other), owed))["outcome"] == "merged"
    assert owed.keys == []
    assert [e.revision for e in owed.exports] == [2]
    redelivered = await dedupe.handle(job(listing), owed)
    assert redelivered["state"] == "drafted"
    assert len(owed.keys) == 1
    await dedupe.handle(job(listing), owed)
    assert len(owed.keys) == 1
    assert len(owed.exports) == 1
    await dedupe.aclose()


async def test_a_changed_posting_updates_its_listing(tmp_path: Path) -> None:
    """The same posting read again with a salary added and a new title is `updated`: the merged
    listing shows them, with a new revision and when it changed, and goes to the export stage;
    a listing the person has is never drafted again for it."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    before = posting("1", "Backend Engineer")
    await dedupe.handle(job(before), owed)
    after = msgspec.structs.replace(
        before,
        title="Senior Backend Engineer",
        salary=Salary(min=70_000, max=85_000, currency="EUR", interval="year"),
    )
    result = await dedupe.handle(job(after, "run2"), owed)
    assert result["outcome"] == "updated"
    latest = owed.exports[-1]
    assert (latest.revision, latest.title, latest.salary) == (2, after.title, after.salary)
    assert latest.updated_at is not None
    assert len(owed.keys) == 1
    fetched_again = msgspec.structs.replace(after, fetched_at=datetime(2030, 1, 1, tzinfo=UTC))
    assert (await dedupe.handle(job(fetched_again, "run3"), owed))["outcome"] == "unchanged"
    await dedupe.aclose()


async def test_filters_drop_with_a_reason_and_a_wider_profile_drafts_later(tmp_path: Path) -> None:
    """A listing below the salary floor is `filtered` with the reason recorded; the same posting in
    a later run with a lower floor is `new` and drafted (once); a narrower search then removes
    nothing the person has."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    listing = posting("1", "Backend Engineer", salary=Salary(max=50_000, currency="EUR", interval="year"))
    strict = Profile(
        person=Person(name="S"), search=Search(salary_floor=60_000, terms=["python"], hard=["salary_floor"])
    )
    result = await dedupe.handle(job(listing, profile=strict), owed)
    assert (result["state"], result["outcome"]) == ("dropped", "filtered")
    assert "salary" in result["drop_reason"]
    assert read_listings(tmp_path / "db.sqlite") == []
    assert read_listings(tmp_path / "db.sqlite", include_dropped=True)[0].drop_reason == result["drop_reason"]
    assert owed.exports == []
    wider = Profile(person=Person(name="S"), search=Search(salary_floor=45_000))
    again = await dedupe.handle(job(listing, "run2", wider), owed)
    assert (again["state"], again["outcome"]) == ("drafted", "new")
    await dedupe.handle(job(listing, "run3", wider), owed)
    assert len(owed.keys) == 1
    assert len(owed.exports) == 1
    narrower = await dedupe.handle(job(listing, "run4", strict), owed)
    assert (narrower["state"], narrower["outcome"]) == ("drafted", "unchanged")
    assert len(read_listings(tmp_path / "db.sqlite")) == 1
    await dedupe.aclose()


async def test_a_run_records_each_posting_once_and_its_whole_reads(tmp_path: Path) -> None:
    """`run_outcomes` counts each posting a run read once (a redelivery does not count again), the
    counts add up, and a board read in full is recorded with what it listed."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    keep = Profile(person=Person(name="S"), search=Search(exclude=["baker"]))
    postings = [
        posting("1", "Backend Engineer"),
        posting("2", "Backend Engineer", board="remotive", url="https://r.example/2"),
        posting("3", "Baker", company="Bakery", url="https://b.example/3"),
    ]
    for p in [*postings, postings[0]]:
        await dedupe.handle(job(p, profile=keep), owed)
    await dedupe.board_read(
        BoardReadJob(run_id="run1", source="greenhouse:acme", board="greenhouse", listed=2)
    )
    outcomes = run_outcomes(tmp_path / "db.sqlite", "run1")
    assert (outcomes.new, outcomes.merged, outcomes.filtered, outcomes.unchanged) == (1, 1, 1, 0)
    assert outcomes.recorded == 3
    assert outcomes.filtered_reasons == {"exclude": 1}
    assert outcomes.full_reads == {"greenhouse:acme": 2}
    assert run_outcomes(tmp_path / "db.sqlite", "another").recorded == 0
    await dedupe.aclose()


async def test_a_batch_is_one_transaction_and_owes_each_listing_once(tmp_path: Path) -> None:
    """A batch with two postings of one job and a third job: counts per outcome, one export
    carrying each listing once at its last revision, all in one transaction, and no draft yet;
    the run's shortlist then drafts each new listing once; the same batch delivered again, and
    the shortlist again, owe nothing more."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    batch = ListingBatchJob(
        run_id="run1",
        source="mixed",
        profile=PROFILE,
        listings=[
            posting("1", "Backend Engineer"),
            posting("2", "Backend Engineer (m/w/d)", board="arbeitnow", url="https://a.example/2"),
            posting("3", "Frontend Engineer", url="https://n.example/3", description="Another text. " * 60),
        ],
    )
    result = await dedupe.handle_batch(batch, owed)
    assert result == {"source": "mixed", "postings": 3, "counts": {"new": 2, "merged": 1}}
    assert sorted((e.title, e.revision, len(e.sources)) for e in owed.exports) == [
        ("Backend Engineer", 2, 2),
        ("Frontend Engineer", 1, 1),
    ]
    assert owed.keys == []  # a run's drafts wait for its shortlist
    assert dedupe.writer.batches <= 2  # the postings, the exports' note
    assert await shortlisted(dedupe, owed) == {"drafted": 2, "below_bar": 0, "held_back": 0}
    assert len(owed.keys) == 2
    again = await dedupe.handle_batch(batch, owed)
    assert again["counts"] == {"unchanged": 3}
    assert await shortlisted(dedupe, owed) == {"drafted": 0, "below_bar": 0, "held_back": 0}
    assert (len(owed.exports), len(owed.keys)) == (2, 2)
    await dedupe.aclose()


async def test_the_shortlist_drafts_the_best_by_fit_above_the_bar_up_to_the_cap(tmp_path: Path) -> None:
    """Five new listings of fits that differ: with min_fit at the second best and a cap of one,
    the best is drafted, the second (above the bar, beyond the cap) is held back, the three below
    the bar are not drafted; a later shortlist with the cap raised drafts the held-back one and
    still none below the bar."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    person = Profile(person=Person(name="S", skills=["Python", "PostgreSQL", "Kubernetes"]))
    titles = ["Backend Engineer", "Senior Backend Engineer", "Backend Developer", "Data Analyst", "Baker"]
    texts = ["Python, PostgreSQL and Kubernetes.", "Python.", "PostgreSQL.", "Excel.", "Bread."]
    batch = ListingBatchJob(
        run_id="run1",
        source="mixed",
        profile=person,
        listings=[
            posting(
                str(n), title, company=f"Firm {n}", url=f"https://x.example/{n}", description=f"{text} " * 40
            )
            for n, (title, text) in enumerate(zip(titles, texts, strict=True))
        ],
    )
    await dedupe.handle_batch(batch, owed)
    fits = {
        m.title: fit
        for m, fit in (
            (msgspec.json.decode(row[0], type=MergedListing), row[1])
            for row in sqlite3.connect(tmp_path / "db.sqlite").execute(
                "SELECT data, fit FROM dedupe_listings"
            )
        )
    }
    ranked = sorted(fits, key=lambda title: -fits[title])
    bar = fits[ranked[1]]
    assert fits[ranked[0]] > bar > fits[ranked[2]], fits  # two at or above the bar, three below
    capped = msgspec.structs.replace(person, drafting=Drafting(min_fit=bar, max_per_run=1))
    chosen = await dedupe.shortlist(DraftShortlistJob(run_id="run1", profile=capped), owed)
    assert chosen == {"drafted": 1, "below_bar": 3, "held_back": 1}
    assert owed.drafted_titles == ranked[:1]
    wider = msgspec.structs.replace(person, drafting=Drafting(min_fit=bar, max_per_run=10))
    chosen = await dedupe.shortlist(DraftShortlistJob(run_id="run2", profile=wider), owed)
    assert chosen == {"drafted": 1, "below_bar": 3, "held_back": 0}
    assert owed.drafted_titles == ranked[:2]
    await dedupe.aclose()


def test_two_writers_at_once_merge_into_one(tmp_path: Path) -> None:
    """Two connections (two services) recording two postings of one job at the same moment make one
    merged listing: the match-and-insert is one BEGIN IMMEDIATE transaction."""
    path = tmp_path / "db.sqlite"
    SeenSet(path).close()
    for round_ in range(10):
        a = posting(f"a{round_}", f"Backend Engineer {round_}")
        b = posting(
            f"b{round_}", f"Backend Engineer {round_}", board="remotive", url=f"https://r.example/{round_}"
        )
        ids: list[str] = []
        barrier = threading.Barrier(2)

        def record(listing: Listing, barrier: threading.Barrier = barrier, ids: list[str] = ids) -> None:
            seen = SeenSet(path)
            barrier.wait()
            ids.append(seen.record(listing, Search(), "run").listing.id)
            seen.close()

        threads = [threading.Thread(target=record, args=(p,)) for p in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(ids) == 2
        assert ids[0] == ids[1]


@pytest.mark.parametrize(
    ("search", "reason"),
    [
        (Search(terms=["golang"], hard=["terms"]), "terms"),
        (Search(exclude=["northwind"]), "exclude"),
        (Search(locations=["Hamburg"], hard=["locations"]), "locations"),
        (Search(remote="remote", hard=["remote"]), "remote"),
        (Search(seniority=["junior"], hard=["seniority"]), "seniority"),
    ],
)
async def test_each_filter_says_why(tmp_path: Path, search: Search, reason: str) -> None:
    """Each filter drops a senior Berlin Python job it does not want, naming itself in the reason."""
    dedupe = Dedupe(tmp_path / "db.sqlite")
    listing = posting("1", "Senior Backend Engineer")
    result = await dedupe.handle(
        job(listing, profile=Profile(person=Person(name="S"), search=search)), Owed()
    )
    assert result["drop_reason"].startswith(reason)
    await dedupe.aclose()


def test_committed_pipeline_schemas_are_fresh(repo_root: Path) -> None:
    """`schemas/jobsearch/` matches the Structs (else: `jobsearch schemas`)."""
    assert check_schemas(repo_root / "schemas" / "jobsearch") == []


def test_a_changed_schema_is_reported_stale(repo_root: Path, tmp_path: Path) -> None:
    """An edited copy of the schemas is reported stale by name."""
    copy = tmp_path / "jobsearch"
    shutil.copytree(repo_root / "schemas" / "jobsearch", copy)
    (copy / "profile.schema.json").write_text("{}\n")
    assert check_schemas(copy) == ["profile.schema.json"]


def test_example_search_job_decodes(repo_root: Path) -> None:
    """The published example `jobsearch.search` payload is a valid SearchJob with the example profile."""
    raw = (repo_root / "schemas" / "jobsearch" / "examples" / "search.json").read_bytes()
    search = msgspec.json.decode(raw, type=SearchJob)
    assert search.profile.person.name == "Mara Lindqvist"


def test_an_unwritable_database_path_fails_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`jobsearch serve dedupe` with JOBSEARCH_DB under a file (not a folder) fails when the stage
    is registered, naming the path and the variables; a good path creates nothing at that time."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("JOBSEARCH_DB", str(blocker / "jobsearch.sqlite"))
    with pytest.raises(ConfigError, match="JOBSEARCH_DATA_DIR or JOBSEARCH_DB"):
        build_app(["dedupe"])
    monkeypatch.setenv("JOBSEARCH_DB", str(tmp_path / "new" / "jobsearch.sqlite"))
    build_app(["dedupe"])
    assert not (tmp_path / "new").exists()


async def test_pay_in_another_currency_is_kept_and_marked(tmp_path: Path) -> None:
    """A salary in USD below a EUR floor is not compared (no rate is guessed): the listing is kept,
    marked with why, and the mark reaches the export stage; one in EUR below it is dropped."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    floor = Profile(
        person=Person(name="S"),
        search=Search(salary_floor=80_000, salary_currency="EUR", hard=["salary_floor"]),
    )
    usd = posting(
        "1", "Backend Engineer", salary=Salary(min=50_000, max=60_000, currency="USD", interval="year")
    )
    eur = posting(
        "2", "Data Engineer", url="https://n.example/2", description="Other words. " * 60,
        salary=Salary(min=50_000, max=60_000, currency="EUR", interval="year"),
    )  # fmt: skip
    kept = await dedupe.handle(job(usd, profile=floor), owed)
    dropped = await dedupe.handle(job(eur, profile=floor), owed)
    assert (kept["state"], dropped["state"]) == ("drafted", "dropped")
    assert dropped["drop_reason"].startswith("salary: at most 60,000 EUR a year")
    [exported] = owed.exports
    assert exported.pay_note == "in USD, not compared with your EUR floor"
    await dedupe.aclose()


# The seen-set's tables as jobsearch wrote them before listings had revisions and postings kept
# their data: a person's existing data dir.
BEFORE_REVISIONS = """CREATE TABLE IF NOT EXISTS dedupe_listings (
    id TEXT PRIMARY KEY,
    company_key TEXT NOT NULL,
    features BLOB NOT NULL,         -- what matching compares (title, level, places...), JSON
    words TEXT NOT NULL,            -- normalised description (the tie-breaker's input)
    data BLOB NOT NULL,             -- the MergedListing, JSON
    state TEXT NOT NULL CHECK (state IN ('pending', 'drafted', 'dropped')),
    draft_owner TEXT,               -- the posting whose job owes the draft (state pending)
    drop_reason TEXT,
    run_id TEXT,                    -- the run that last changed it
    first_seen TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS dedupe_listings_company ON dedupe_listings (company_key);
CREATE TABLE IF NOT EXISTS dedupe_postings (
    key TEXT PRIMARY KEY,           -- board:external_id
    listing_id TEXT NOT NULL REFERENCES dedupe_listings (id),
    board TEXT NOT NULL,
    source TEXT NOT NULL,
    external_id TEXT NOT NULL,
    url TEXT NOT NULL,
    how TEXT NOT NULL,              -- new | url | fuzzy
    title_score REAL,
    text_score REAL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    run_id TEXT
);
CREATE INDEX IF NOT EXISTS dedupe_postings_listing ON dedupe_postings (listing_id);
CREATE TABLE IF NOT EXISTS dedupe_urls (
    url TEXT PRIMARY KEY,
    listing_id TEXT NOT NULL REFERENCES dedupe_listings (id)
);
"""


async def test_a_data_dir_from_before_revisions_keeps_its_listings(tmp_path: Path) -> None:
    """A seen-set written before revisions (a drafted listing, its posting without data): opening
    it adds what it lacks; another board's copy merges into the listing, keeping the old posting;
    the old posting read again keeps its listing drafted, and no second draft is owed."""
    path = tmp_path / "db.sqlite"
    listing = posting("1", "Backend Engineer")
    old = merge.union([listing], listing_id=merge.merged_id(listing.key), first_seen=datetime.now(UTC))
    conn = sqlite3.connect(path)
    conn.executescript(BEFORE_REVISIONS)
    features = match.features(listing)
    conn.execute(
        "INSERT INTO dedupe_listings (id, company_key, features, words, data, state, run_id, first_seen,"
        " updated_at) VALUES (?, ?, ?, ?, ?, 'drafted', 'old', '2026-11-01', '2026-11-01')",
        (old.id, features.company, msgspec.json.encode(msgspec.structs.replace(features, description="")),
         features.description, msgspec.json.encode(msgspec.structs.replace(old, revision=0))),
    )  # fmt: skip
    conn.execute(
        "INSERT INTO dedupe_postings (key, listing_id, board, source, external_id, url, how, first_seen,"
        " last_seen, run_id)"
        " VALUES (?, ?, 'greenhouse', 'test', '1', ?, 'new', '2026-11-01', '2026-11-01', 'old')",
        (listing.key, old.id, listing.url),
    )
    conn.commit()
    conn.close()
    dedupe, owed = Dedupe(path), Owed(path)
    # Another board's copy first: it joins a listing whose posting has no data (kept as it was).
    copy = posting("2", "Backend Engineer (m/w/d)", board="arbeitnow", url="https://a.example/2")
    merged = await dedupe.handle(job(copy, "run2"), owed)
    assert (merged["listing_id"], merged["outcome"], merged["state"]) == (old.id, "merged", "drafted")
    assert [len(e.sources) for e in owed.exports] == [2]
    again = await dedupe.handle(job(listing, "run2"), owed)
    assert (again["listing_id"], again["state"]) == (old.id, "drafted")
    assert owed.keys == []  # drafted before: never drafted again
    assert {s.board for s in owed.exports[-1].sources} == {"greenhouse", "arbeitnow"}
    await dedupe.aclose()


async def test_one_posting_that_cannot_be_recorded_holds_up_none_of_its_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A posting whose recording fails (here a merge that raises) is undone alone and counted
    `rejected` for the run with its reason; the rest of its batch is recorded, exported and
    drafted; the single-posting job of it is dead-lettered with the reason."""
    real_union = merge.union

    def union(postings: list[Listing], **fields: Any) -> MergedListing:
        if any(p.title == "Poison Engineer" for p in postings):
            raise ValueError("a merge that cannot be made")
        return real_union(postings, **fields)

    monkeypatch.setattr(merge, "union", union)
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    batch = ListingBatchJob(
        run_id="run1",
        source="mixed",
        profile=PROFILE,
        listings=[
            posting("1", "Backend Engineer"),
            posting("2", "Poison Engineer", url="https://n.example/2"),
            posting("3", "Frontend Engineer", url="https://n.example/3", description="Other words. " * 60),
        ],
    )
    result = await dedupe.handle_batch(batch, owed)
    assert result["counts"] == {"new": 2, "rejected": 1}
    assert sorted(e.title for e in owed.exports) == ["Backend Engineer", "Frontend Engineer"]
    await shortlisted(dedupe, owed)
    assert len(owed.keys) == 2
    outcomes = run_outcomes(tmp_path / "db.sqlite", "run1")
    assert (outcomes.new, outcomes.rejected, outcomes.recorded) == (2, 1, 3)
    with pytest.raises(Reject, match="could not be recorded"):
        await dedupe.handle(job(posting("4", "Poison Engineer", url="https://n.example/4"), "run2"), owed)
    await dedupe.aclose()


async def test_a_new_listing_is_drafted_as_its_batch_left_it(tmp_path: Path) -> None:
    """Two postings of one new job in one batch: the draft job carries the listing with both
    postings (and the pay only the second states), not the first posting alone."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    drafted: list[DraftJob] = []

    async def draft(job: DraftJob, key: str, job_id: str) -> None:
        drafted.append(job)

    owed.draft = draft  # type: ignore[method-assign]
    pay = Salary(min=70_000, max=85_000, currency="EUR", interval="year")
    batch = ListingBatchJob(
        run_id="run1",
        source="mixed",
        profile=PROFILE,
        listings=[
            posting("1", "Backend Engineer"),
            posting(
                "2", "Backend Engineer (m/w/d)", board="arbeitnow", url="https://a.example/2", salary=pay
            ),
        ],
    )
    await dedupe.handle_batch(batch, owed)
    await shortlisted(dedupe, owed)
    [job_] = drafted
    assert (len(job_.listing.sources), job_.listing.salary) == (2, pay)
    await dedupe.aclose()


async def test_a_listing_whose_export_was_lost_reaches_the_state_of_record_next_run(tmp_path: Path) -> None:
    """The export job of a kept listing died (nothing recorded): the same posting in the next run
    hands the listing on again; once the state of record shows it, a later run hands on nothing."""
    dedupe, owed = Dedupe(tmp_path / "db.sqlite"), Owed(tmp_path / "db.sqlite")
    listing = posting("1", "Backend Engineer")
    owed.lose_exports = True
    await dedupe.handle(job(listing, "run1"), owed)
    owed.lose_exports = False
    with Store.open(tmp_path / "db.sqlite") as store:
        assert store.tracker_rows() == []
    await dedupe.handle(job(listing, "run2"), owed)
    with Store.open(tmp_path / "db.sqlite") as store:
        assert [row.title for row in store.tracker_rows()] == ["Backend Engineer"]
    await dedupe.handle(job(listing, "run3"), owed)
    assert len(owed.exports) == 2
    assert len(owed.keys) == 1  # drafted once
    await dedupe.aclose()
