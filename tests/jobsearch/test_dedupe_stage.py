"""The dedupe handler without a server: drafts once, seen-set across runs, the kill case, filters."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import msgspec
import pytest

from jetjobs import ConfigError
from jobsearch.app import build_app
from jobsearch.dedupe import Dedupe
from jobsearch.dedupe.store import SeenSet, read_listings
from jobsearch.jobs import DraftJob, ListingJob, SearchJob
from jobsearch.listing import Listing, Salary
from jobsearch.profile import Person, Profile, Search
from jobsearch.schema_export import check_schemas
from tests.jobsearch.test_dedupe_match import posting

PROFILE = Profile(person=Person(name="Sam Sample"))


def job(listing: Listing, run_id: str = "run1", profile: Profile = PROFILE) -> ListingJob:
    """A listing job of `listing`."""
    return ListingJob(run_id=run_id, listing=listing, profile=profile)


class Drafts:
    """A stand-in for the draft queue: records each submission; can fail like a killed service."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.fail = False

    async def __call__(self, draft: DraftJob, key: str) -> None:
        if self.fail:
            raise ConnectionError("killed before the draft was submitted")
        self.keys.append(key)


async def test_new_listing_drafts_once_and_a_second_run_drafts_nothing(tmp_path: Path) -> None:
    """Two postings of one job give one draft job; the same postings in a later run give none."""
    dedupe, drafts = Dedupe(tmp_path / "db.sqlite"), Drafts()
    own = posting("1", "Backend Engineer")
    copy = posting("2", "Backend Engineer (m/w/d)", board="arbeitnow", url="https://a.example/2")
    first = await dedupe.handle(job(own), drafts)
    second = await dedupe.handle(job(copy), drafts)
    assert (first["outcome"], second["outcome"]) == ("new", "merged")
    assert drafts.keys == [f"draft:{first['listing_id']}"]
    for listing in (own, copy):
        assert (await dedupe.handle(job(listing, "run2"), drafts))["outcome"] == "seen"
    assert len(drafts.keys) == 1
    stored = read_listings(tmp_path / "db.sqlite")
    assert [len(s.listing.sources) for s in stored] == [2]
    assert stored[0].state == "drafted"
    await dedupe.aclose()


async def test_killed_before_the_draft_is_submitted_the_redelivery_submits_it(tmp_path: Path) -> None:
    """Committed to SQLite but the draft not submitted (the service died): the redelivered job
    submits it; a third delivery submits nothing."""
    dedupe, drafts = Dedupe(tmp_path / "db.sqlite"), Drafts()
    listing = posting("1", "Backend Engineer")
    drafts.fail = True
    with pytest.raises(ConnectionError):
        await dedupe.handle(job(listing), drafts)
    drafts.fail = False
    # Another posting of the same job meanwhile: it merges and owes no draft.
    other = posting("2", "Backend Engineer", board="remotive", url="https://r.example/2")
    assert (await dedupe.handle(job(other), drafts))["outcome"] == "merged"
    assert drafts.keys == []
    redelivered = await dedupe.handle(job(listing), drafts)
    assert redelivered["state"] == "drafted"
    assert len(drafts.keys) == 1
    await dedupe.handle(job(listing), drafts)
    assert len(drafts.keys) == 1
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


async def test_filters_drop_with_a_reason_and_a_wider_profile_drafts_later(tmp_path: Path) -> None:
    """A listing below the salary floor is dropped with the reason recorded; the same posting in a
    later run with a lower floor is drafted (once)."""
    dedupe, drafts = Dedupe(tmp_path / "db.sqlite"), Drafts()
    listing = posting("1", "Backend Engineer", salary=Salary(max=50_000, currency="EUR", interval="year"))
    strict = Profile(person=Person(name="S"), search=Search(salary_floor=60_000, terms=["python"]))
    result = await dedupe.handle(job(listing, profile=strict), drafts)
    assert result["state"] == "dropped"
    assert "salary" in result["drop_reason"]
    assert read_listings(tmp_path / "db.sqlite") == []
    assert read_listings(tmp_path / "db.sqlite", include_dropped=True)[0].drop_reason == result["drop_reason"]
    wider = Profile(person=Person(name="S"), search=Search(salary_floor=45_000))
    assert (await dedupe.handle(job(listing, "run2", wider), drafts))["state"] == "drafted"
    await dedupe.handle(job(listing, "run3", wider), drafts)
    assert len(drafts.keys) == 1
    await dedupe.aclose()


@pytest.mark.parametrize(
    ("search", "reason"),
    [
        (Search(terms=["golang"]), "terms"),
        (Search(exclude=["northwind"]), "exclude"),
        (Search(locations=["Hamburg"]), "locations"),
        (Search(remote="remote"), "remote"),
        (Search(seniority=["junior"]), "seniority"),
    ],
)
async def test_each_filter_says_why(tmp_path: Path, search: Search, reason: str) -> None:
    """Each filter drops a senior Berlin Python job it does not want, naming itself in the reason."""
    dedupe = Dedupe(tmp_path / "db.sqlite")
    listing = posting("1", "Senior Backend Engineer")
    result = await dedupe.handle(
        job(listing, profile=Profile(person=Person(name="S"), search=search)), Drafts()
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
