"""The insights page's figures, on a real SQLite file filled through the state of record's API."""

from __future__ import annotations

import csv
import io
import sqlite3
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jobsearch.fit import Fit
from jobsearch.insights import all_charts
from jobsearch.insights.charts import CHART_KEYS
from jobsearch.insights.csvfile import chart_csv
from jobsearch.insights.pay import fit_spread, pay_spread, place_of
from jobsearch.insights.queries import answer_rates, found_per_day, funnel
from jobsearch.listing import MergedListing, Salary, SourceRef
from jobsearch.store import Store
from tests.jobsearch.export_support import drafts, listing

HOSTILE_BOARD_SOURCE = '=HYPERLINK("http://evil.example","x")'


def _day(day: int) -> datetime:
    return datetime(2026, 11, day, 9, 0, tzinfo=UTC)


def _on(n: int, board: str, *, day: int, source: str | None = None, **changes: object) -> MergedListing:
    ref = SourceRef(
        board=board,
        source=source or f"{board}:co{n}",
        external_id=str(n),  # type: ignore[arg-type]
        url=f"https://jobs.example.com/{n}",
    )
    return listing(n, sources=[ref], first_seen=_day(day), **changes)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A state of record of two runs: six listings on three boards over three days, statuses moved."""
    opened = Store.open(tmp_path / "jobsearch.sqlite")
    opened.start_run("r1", profile="p.toml")
    for n, board, day in ((1, "greenhouse", 27), (2, "greenhouse", 27), (3, "lever", 28)):
        opened.record_export(
            run_id="r1",
            job_id=f"j{n}",
            listing=_on(n, board, day=day),
            drafts=drafts(),
            fit=Fit(score=20 * n),
        )
    opened.finish_run(
        "r1", outcome="ok", summary={"listings_new": 3, "listings_merged": 2, "listings_unchanged": 1}
    )
    opened.start_run("r2", profile="p.toml")
    for n, board, day in ((4, "lever", 29), (5, "ashby", 29), (6, "ashby", 29)):
        opened.record_export(
            run_id="r2",
            job_id=f"j{n}",
            listing=_on(n, board, day=day),
            drafts=[],
            fit=Fit(score=100) if n == 4 else None,
        )
    opened.finish_run(
        "r2", outcome="ok", summary={"listings_new": 3, "listings_known": 4, "listings_updated": 2}
    )
    opened.set_status("L00001", "Applied", source="ui")
    opened.set_status("L00001", "Interview", source="ui")
    opened.set_status("L00002", "Applied", source="ui")
    opened.set_status("L00003", "Applied", source="ui")
    opened.set_status("L00003", "Rejected", source="ui")
    opened.set_status("L00004", "Offer", source="mark")  # straight to Offer: it reached every stage
    opened.set_status("L00005", "Dismissed", source="ui")
    yield opened  # type: ignore[misc]
    opened.close()


def test_found_per_day_counts_each_listing_on_its_first_day_by_its_first_board(store: Store) -> None:
    """Each listing counts once, on the UTC day it was first seen, under its first posting's board;
    seen again is what each day's runs recorded as known (merged + unchanged + updated)."""
    found = found_per_day(store.conn)
    assert found.days[:3] == ["2026-11-27", "2026-11-28", "2026-11-29"]
    assert found.found["2026-11-27"] == {"greenhouse": 2}
    assert found.found["2026-11-29"] == {"lever": 1, "ashby": 2}
    assert found.boards[0] in ("ashby", "greenhouse")  # most listings first
    assert set(found.boards) == {"ashby", "greenhouse", "lever"}
    # Both runs started today (real time): 3 known in r1, 4 known + 2 updated in r2.
    today = datetime.now(UTC).date().isoformat()
    assert found.seen_again[today] == 3 + 6
    assert sum(map(found.new, found.days)) == 6


def test_funnel_counts_the_furthest_stage_each_listing_reached(store: Store) -> None:
    """found 6; Drafted: the 3 with drafts plus the Offer; Applied: Interview, Applied, Rejected,
    Offer; Screen/Interview: the Interview and the Offer; Offer 1. Dismissed goes no further."""
    stages = {s.name: s for s in funnel(store.conn)}
    assert [s.count for s in stages.values()] == [6, 4, 4, 2, 1]
    assert stages["Applied"].of_previous == 1.0
    assert stages["Screen/Interview"].of_previous == 0.5
    assert stages["Offer"].of_found == pytest.approx(1 / 6)
    assert stages["found"].of_previous is None


def test_answer_rates_count_screen_interview_offer_and_rejected_as_answers(store: Store) -> None:
    """Per board: greenhouse 2 applied (an Interview, one unanswered), lever 2 (a Rejected, an
    Offer), ashby none applied (the dismissed one is not an application)."""
    by_board = {r.name: (r.applied, r.answered) for r in answer_rates(store.conn, "board")}
    assert by_board == {"greenhouse": (2, 1), "lever": (2, 2)}
    by_source = {r.name: (r.applied, r.answered) for r in answer_rates(store.conn, "source")}
    assert by_source == {
        "greenhouse:co1": (1, 1),
        "greenhouse:co2": (1, 0),
        "lever:co3": (1, 1),
        "lever:co4": (1, 1),
    }
    with pytest.raises(ValueError, match="by source or board"):
        answer_rates(store.conn, "company; DROP TABLE listings")


def test_fit_spread_buckets_found_and_applied_and_counts_the_unscored(store: Store) -> None:
    """Fits 20, 40, 60 and 100 fall in 20-29, 40-49, 60-69 and 90-100; two listings have no fit."""
    spread = fit_spread(store.conn)
    assert spread.found == [0, 0, 1, 0, 1, 0, 1, 0, 0, 1]
    assert spread.applied == [0, 0, 1, 0, 1, 0, 1, 0, 0, 1]
    assert spread.unscored == 2


def test_pay_is_annualised_grouped_by_place_and_never_mixes_currencies(tmp_path: Path) -> None:
    """An hourly and a monthly salary become a year's pay; remote listings group as Remote, others
    by their first place; USD stays apart from EUR; no period and no pay are counted, not drawn."""
    with Store.open(tmp_path / "pay.sqlite") as store:
        store.start_run("r1", profile="p.toml")
        pays = [
            (Salary(min=5000, max=6000, currency="EUR", interval="month"), ["Berlin"], False),
            (Salary(min=80000, max=90000, currency="EUR", interval="year"), ["Berlin", "Hamburg"], False),
            (Salary(min=50, max=60, currency="USD", interval="hour"), ["Anywhere"], True),
            (Salary(min=70000, currency="EUR", interval="year"), ["Remote (EU)"], True),
            (Salary(min=4000, currency="EUR"), ["Berlin"], False),
            (None, ["Berlin"], False),
        ]
        for n, (pay, places, remote) in enumerate(pays, 1):
            store.record_export(
                run_id="r1",
                job_id=f"j{n}",
                drafts=[],
                listing=listing(n, salary=pay, locations=places, remote=remote),
            )
        spread = pay_spread(store.conn)
    ranges = {(r.place, r.currency): r for r in spread.ranges}
    assert set(ranges) == {("Berlin", "EUR"), ("Remote", "USD"), ("Remote", "EUR")}
    berlin = ranges[("Berlin", "EUR")]
    assert (berlin.listings, berlin.low, berlin.high, berlin.median) == (2, 60000, 90000, (66000 + 85000) / 2)
    assert (ranges[("Remote", "USD")].low, ranges[("Remote", "USD")].high) == (104000, 124800)
    assert ranges[("Remote", "EUR")].low == ranges[("Remote", "EUR")].high == 70000
    assert (spread.no_period, spread.without_pay) == (1, 1)
    assert place_of(None, None, "not json") == "(no place given)"


def test_every_chart_reads_only_the_state_of_record_and_writes_nothing(store: Store) -> None:
    """With an authorizer that refuses any write and any read of dedupe's tables, every chart is
    still built: the page reads the state of record only."""
    store.conn.execute("CREATE TABLE IF NOT EXISTS dedupe_seen (key TEXT)")
    touched: list[str] = []

    def authorizer(action: int, table: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_READ and table and table.startswith("dedupe_"):
            touched.append(table)
            return sqlite3.SQLITE_DENY
        if action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE):
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    store.conn.set_authorizer(authorizer)
    try:
        charts = all_charts(store.conn)
    finally:
        store.conn.set_authorizer(None)
    assert [c.key for c in charts] == list(CHART_KEYS)
    assert touched == []
    assert all(c.svg and not c.empty for c in charts)
    assert all(c.rows for c in charts)


def test_svg_is_well_formed_and_shows_scraped_names_as_text(tmp_path: Path) -> None:
    """A board source and a place with markup and a formula come out escaped in the SVG (which parses
    as XML, with a title and a description) and apostrophe-guarded in the CSV."""
    with Store.open(tmp_path / "hostile.sqlite") as store:
        store.start_run("r1", profile="p.toml")
        ref = SourceRef(
            board="greenhouse", source=HOSTILE_BOARD_SOURCE, external_id="1", url="https://x.example/1"
        )  # type: ignore[arg-type]
        item = listing(1, sources=[ref], remote=False, locations=["<script>alert('place')</script>"])
        store.record_export(run_id="r1", job_id="j1", listing=item, drafts=drafts())
        store.set_status("L00001", "Applied", source="ui")
        charts = {c.key: c for c in all_charts(store.conn)}
    for chart in charts.values():
        if not chart.svg:
            continue
        root = ET.fromstring(chart.svg)
        assert root.find("title") is not None
        assert root.find("desc") is not None
        assert "<script" not in chart.svg
    assert "&lt;script&gt;" in charts["pay"].svg
    rows = list(csv.reader(io.StringIO(chart_csv(charts["answers-source"]))))
    assert rows[0] == ["source", "applied", "answered", "answer rate"]
    assert rows[1][0] == "'" + HOSTILE_BOARD_SOURCE
    assert rows[1][1:] == ["1", "0", "0%"]


def test_a_fresh_data_dir_gives_every_chart_an_empty_state_that_says_what_to_do(tmp_path: Path) -> None:
    """With no listings, no chart draws; each says what to do next (run a search, set a status)."""
    with Store.open(tmp_path / "fresh.sqlite") as store:
        charts = all_charts(store.conn)
    assert [c.svg for c in charts] == [""] * len(CHART_KEYS)
    assert all(c.empty for c in charts)
    assert "jobsearch run" in charts[0].empty
    assert "Applied" in charts[3].empty
