"""Which listings closed: whole reads that stop listing postings, failed reads, aggregators, pages."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import msgspec

from jobsearch.db import immediate
from jobsearch.dedupe.closing import close_listings
from jobsearch.dedupe.report import read_listings
from jobsearch.dedupe.store import SeenSet, record_board_read
from jobsearch.listing import Listing
from jobsearch.profile import Search

TODAY = datetime.now(UTC).date()  # the seen-set stamps postings with the real time
# Different roles (titles and texts apart), so each posting is its own listing.
ROLES = ["Backend Engineer", "Data Analyst", "Product Designer", "Sales Manager", "Nurse Practitioner"]


def posting(
    n: int, *, board: str = "greenhouse", source: str = "greenhouse:acme", **fields: object
) -> Listing:
    """Posting `n` of Acme on `board`, with a text of its own."""
    role = ROLES[n % len(ROLES)]
    base: dict[str, object] = {
        "board": board,
        "source": source,
        "url": f"https://{board}.example/acme/{n}",
        "company": "Acme Health",
        "description": f"{role}: " + " ".join(f"duty{n}x{i}" for i in range(40)),
    }
    return Listing(external_id=str(n), title=role, **(base | fields))  # type: ignore[arg-type]


class Runs:
    """A seen-set fed run by run, as the dedupe stage feeds it."""

    def __init__(self, path: Path) -> None:
        self.seen = SeenSet(path)
        self.path = path

    def read(self, run_id: str, postings: list[Listing], *, whole: str | None = "greenhouse:acme") -> None:
        """Record the run's postings; `whole` names the source read in full (None: a failed read)."""
        for p in postings:
            self.seen.record(p, Search(), run_id)
        if whole is not None:
            with immediate(self.seen.conn) as db:
                record_board_read(db, run_id, whole, "greenhouse", len(postings))

    def close(self, run_id: str, today: date = TODAY, stale_after_days: int = 30) -> dict[str, list[str]]:
        with immediate(self.seen.conn) as db:
            changes = close_listings(db, run_id, today=today, stale_after_days=stale_after_days)
        return {
            "closed": sorted(s.id for s in changes.closed),
            "reopened": sorted(s.id for s in changes.reopened),
            "stale": sorted(s.id for s in changes.stale),
        }

    def ids(self) -> dict[str, str]:
        """Posting title → its listing's id."""
        return {
            item.listing.title: item.listing.id for item in read_listings(self.path, include_dropped=True)
        }


def test_a_board_that_drops_two_postings_closes_exactly_those(tmp_path: Path) -> None:
    runs = Runs(tmp_path / "db.sqlite")
    runs.read("r1", [posting(n) for n in range(5)])
    assert runs.close("r1") == {"closed": [], "reopened": [], "stale": []}
    ids = runs.ids()
    runs.read("r2", [posting(n) for n in (0, 2, 4)])
    changes = runs.close("r2")
    assert changes["closed"] == sorted([ids["Data Analyst"], ids["Sales Manager"]])
    listed = {item.listing.title: item for item in read_listings(tmp_path / "db.sqlite")}
    assert listed["Data Analyst"].closed_at == TODAY
    assert listed["Backend Engineer"].closed_at is None
    # Closed stays closed; the next whole read changes nothing more.
    runs.read("r3", [posting(n) for n in (0, 2, 4)])
    assert runs.close("r3") == {"closed": [], "reopened": [], "stale": []}


def test_a_failed_or_partial_read_closes_nothing(tmp_path: Path) -> None:
    """A source job that failed (500, a stall) or stopped paging records no whole read."""
    runs = Runs(tmp_path / "db.sqlite")
    runs.read("r1", [posting(n) for n in range(5)])
    runs.read("r2", [], whole=None)  # answered 500: nothing read
    runs.read("r3", [posting(0)], whole=None)  # stopped after its first page
    assert runs.close("r2")["closed"] == []
    assert runs.close("r3")["closed"] == []
    assert all(item.closed_at is None for item in read_listings(tmp_path / "db.sqlite"))


def test_a_closed_listing_that_reappears_reopens(tmp_path: Path) -> None:
    runs = Runs(tmp_path / "db.sqlite")
    runs.read("r1", [posting(n) for n in range(3)])
    ids = runs.ids()
    runs.read("r2", [posting(0), posting(2)])
    assert runs.close("r2")["closed"] == [ids["Data Analyst"]]
    runs.read("r3", [posting(1)], whole=None)  # even a partial read shows it is listed
    assert runs.close("r3") == {"closed": [], "reopened": [ids["Data Analyst"]], "stale": []}


def test_another_source_of_the_listing_keeps_it_open(tmp_path: Path) -> None:
    """A listing Greenhouse dropped that Lever still lists is open; when Lever drops it too it
    closes."""
    runs = Runs(tmp_path / "db.sqlite")
    lever = posting(1, board="lever", source="lever:acme", url="https://lever.example/acme/1")
    runs.read("r1", [posting(0), posting(1)])
    runs.seen.record(lever, Search(), "r1")
    ids = runs.ids()
    runs.read("r2", [posting(0)])
    runs.seen.record(lever, Search(), "r2")
    assert runs.close("r2")["closed"] == []
    runs.read("r3", [posting(0)])
    with immediate(runs.seen.conn) as db:
        record_board_read(db, "r3", "lever:acme", "lever", 0)
    assert runs.close("r3")["closed"] == [ids["Data Analyst"]]


def test_aggregators_never_close_they_go_stale(tmp_path: Path) -> None:
    """Remote OK lists only recent postings: missing from a read closes nothing; unseen for
    `stale_after_days` the listing is stale, not closed; seen again it is fresh."""
    runs = Runs(tmp_path / "db.sqlite")
    ads = [posting(n, board="remoteok", source="remoteok") for n in range(2)]
    runs.read("r1", ads, whole="remoteok")
    runs.read("r2", [], whole="remoteok")
    assert runs.close("r2")["closed"] == []
    with immediate(runs.seen.conn) as db:  # both last seen 40 days ago
        db.execute("UPDATE dedupe_postings SET last_seen = ?", ((TODAY - timedelta(days=40)).isoformat(),))
    changes = runs.close("r2")
    assert len(changes["stale"]) == 2
    assert changes["closed"] == []
    stale = read_listings(tmp_path / "db.sqlite")[0]
    assert stale.closed_at is None
    assert stale.stale_at == TODAY - timedelta(days=10)
    runs.read("r3", ads[:1], whole="remoteok")
    assert len(runs.close("r3")["reopened"]) == 1


def test_a_page_closes_only_when_its_valid_through_passes(tmp_path: Path) -> None:
    runs = Runs(tmp_path / "db.sqlite")
    page = posting(0, board="jobposting", source="jobposting:https://acme.example/careers")
    runs.read("r1", [msgspec.structs.replace(page, valid_through=TODAY + timedelta(days=3))], whole=None)
    assert runs.close("r1")["closed"] == []
    changes = runs.close("r1", today=TODAY + timedelta(days=4))
    assert len(changes["closed"]) == 1
    closed = read_listings(tmp_path / "db.sqlite")[0]
    assert closed.closed_at == TODAY + timedelta(days=4)
