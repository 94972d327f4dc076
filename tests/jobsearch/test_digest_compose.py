"""The digest's contents, from a real state of record (SQLite written through `jobsearch.store`):
which listings it tells, in what order, what it cuts, what it tells once, which closings it
names, and that scraped text cannot forge markup, links or lines."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, date, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from jobsearch.db import immediate
from jobsearch.digest import DigestMessage, compose_digest, failure_digest, record_told
from jobsearch.digest.compose import STOP
from jobsearch.fit import Fit, Reason
from jobsearch.jobs import ListingState
from jobsearch.listing import MergedListing, Salary, SourceRef
from jobsearch.profile import Digest
from jobsearch.store import Store
from jobsearch.store.closing import record_listing_states
from tests.jobsearch.export_support import drafts, listing

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "digest-example.txt"
EXAMPLE_HTML = Path(__file__).resolve().parents[2] / "docs" / "digest-example.html"
SETTINGS = Digest(email="jane@example.com", page_url="http://127.0.0.1:8322")
SUMMARY = ["run r2 ok in 41 s", "  listings   12 read: 3 new, 1 updated, 8 unchanged"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The path of an empty state of record."""
    return tmp_path / "jobsearch.sqlite"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    """The state of record at `db`, opened through the store's own API."""
    with Store.open(db) as opened:
        yield opened


def fit(score: int, *reasons: tuple[int, str]) -> Fit:
    """A fit with its reasons, largest first as `jobsearch.fit` gives them."""
    return Fit(score=score, reasons=[Reason(points=p, text=t) for p, t in reasons])


def record(
    store: Store, run_id: str, item: MergedListing, score: Fit | None, *, drafted: bool = False
) -> None:
    """Record `item` as run `run_id`'s export stage does."""
    store.record_export(
        run_id=run_id,
        job_id=f"{run_id}-{item.id}-{item.revision}",
        listing=item,
        drafts=drafts() if drafted else [],
        fit=score,
    )


def close(store: Store, *states: tuple[str, date]) -> None:
    """Record listings taken down, as the export stage records `jobsearch.listing_states`."""
    with immediate(store.conn) as conn:
        record_listing_states(conn, [ListingState(id=i, closed_at=day) for i, day in states])


def digest(db: Path, run_id: str, settings: Digest = SETTINGS) -> DigestMessage | None:
    return compose_digest(db, run_id, settings, summary_lines=SUMMARY)


class Links(HTMLParser):
    """Every tag and every href of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [value or "" for name, value in attrs if name == "href"]


def parsed(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


def test_listings_come_best_fit_first_ties_newest_posted_first(store: Store, db: Path) -> None:
    """Fit decides the order; equal fits go newest posted first; an unscored listing comes last."""
    store.start_run("r1", profile="p.toml")
    record(store, "r1", listing(1, title="Older tie", posted_at=date(2026, 11, 1)), fit(70))
    record(store, "r1", listing(2, title="Unscored"), None)
    record(store, "r1", listing(3, title="Best", company="Acme"), fit(82, (25, "the title is your role")))
    record(store, "r1", listing(4, title="Newer tie", posted_at=date(2026, 11, 25)), fit(70))
    message = digest(db, "r1")
    assert message is not None
    assert message.listed == ["L00003", "L00004", "L00001", "L00002"]
    assert message.subject == "jobsearch: 4 new listings (best: Best at Acme, fit 82)"
    numbered = [line for line in message.text.splitlines() if line[:2] in {"1.", "2.", "3.", "4."}]
    assert [line.split(" — ")[0] for line in numbered] == [
        "1. Best",
        "2. Newer tie",
        "3. Older tie",
        "4. Unscored",
    ]
    assert numbered[0] == (
        "1. Best — Acme — Berlin, Remote (EU) · remote — €70k\u201390k / year — "
        "fit 82: the title is your role (+25)"
    )
    assert numbered[3].endswith("fit not scored")
    assert "   review: http://127.0.0.1:8322/listings/L00003" in message.text
    assert message.text.rstrip().endswith(f"Review page: http://127.0.0.1:8322\n{STOP}")
    assert "to stop these messages" in message.html
    assert "  listings   12 read: 3 new, 1 updated, 8 unchanged" in message.text.splitlines()
    assert message.push_message.splitlines() == [
        "82 Best · Acme",
        "70 Newer tie · Example Co 4",
        "70 Older tie · Example Co 1",
        "+1 more",
    ]
    assert message.click == "http://127.0.0.1:8322"


def test_min_fit_leaves_out_weaker_and_unscored_listings(store: Store, db: Path) -> None:
    """With min_fit 60 a listing scored 59, and one not scored, are not told; 60 is."""
    store.start_run("r1", profile="p.toml")
    record(store, "r1", listing(1), fit(59))
    record(store, "r1", listing(2), fit(60))
    record(store, "r1", listing(3), None)
    message = digest(db, "r1", Digest(email="jane@example.com", min_fit=60))
    assert message is not None
    assert message.listed == ["L00002"]
    assert digest(db, "r1", Digest(email="jane@example.com", min_fit=61)) is None


def test_max_listings_names_the_best_and_counts_the_rest(store: Store, db: Path) -> None:
    """With max_listings 2 of five listings, the two best are named and "and 3 more" links the page."""
    store.start_run("r1", profile="p.toml")
    for n in range(1, 6):
        record(store, "r1", listing(n), fit(50 + n))
    message = digest(
        db, "r1", Digest(email="jane@example.com", max_listings=2, page_url="https://me.example/")
    )
    assert message is not None
    assert message.listed == ["L00005", "L00004"]
    assert message.subject.startswith(
        "jobsearch: 5 new listings (best: Backend Engineer 5 at Example Co 5, fit 55)"
    )
    assert "and 3 more on the review page: https://me.example" in message.text
    assert '<p>and 3 more on the <a href="https://me.example">review page</a>.</p>' in message.html
    assert message.push_message.splitlines()[-1] == "+3 more"


def test_a_listing_is_told_once(store: Store, db: Path) -> None:
    """Told, it is not told again: the same run composes nothing, and a later run that updates it
    tells only what is new to the person."""
    store.start_run("r1", profile="p.toml")
    record(store, "r1", listing(1), fit(80))
    store.finish_run("r1", outcome="ok", summary={})
    first = digest(db, "r1")
    assert first is not None
    assert first.listed == ["L00001"]
    record_told(db, "r1", first)
    assert digest(db, "r1") is None
    record_told(db, "r1", first)  # a second record (a redelivered run) keeps the first row
    store.start_run("r2", profile="p.toml")
    record(store, "r2", listing(1, description="Now with pay.", revision=1), fit(85))
    record(store, "r2", listing(2), fit(40))
    second = digest(db, "r2")
    assert second is not None
    assert second.listed == ["L00002"]
    rows = store.conn.execute(
        "SELECT listing_id, kind, run_id FROM digest_items ORDER BY listing_id"
    ).fetchall()
    assert [tuple(row) for row in rows] == [("L00001", "listed", "r1")]


def test_updated_listings_never_told_are_told_as_updated(store: Store, db: Path) -> None:
    """A listing an earlier run found (before the digest was on) and this run updated is told,
    marked updated, and counted apart from the new ones."""
    store.start_run("r1", profile="p.toml")
    record(store, "r1", listing(1), fit(70))
    store.finish_run("r1", outcome="ok", summary={})
    store.start_run("r2", profile="p.toml")
    record(store, "r2", listing(1, revision=1), fit(70))
    record(store, "r2", listing(2), fit(90))
    message = digest(db, "r2")
    assert message is not None
    assert message.listed == ["L00002", "L00001"]
    assert message.subject.startswith("jobsearch: 1 new and 1 updated listing (best: ")
    assert "2. Backend Engineer 1 (updated) — " in message.text
    assert message.push_title == "jobsearch: 1 new and 1 updated listing"


def test_taken_down_lines_only_for_listings_the_person_follows(store: Store, db: Path) -> None:
    """Of the listings a run closed, only those whose status the person set (and did not end)
    are told taken down; one closed before the previous run started is old news; each once."""
    store.start_run("r1", profile="p.toml")
    for n in range(1, 5):
        record(store, "r1", listing(n), fit(60), drafted=True)  # Drafted: the pipeline's status
    store.finish_run("r1", outcome="ok", summary={})
    store.set_status("L00001", "Applied", source="mark")
    store.set_status("L00003", "Withdrawn", source="ui")
    store.set_status("L00004", "Interview", source="tracker")
    store.start_run("r2", profile="p.toml")
    today = datetime.now(UTC).date()
    close(store, ("L00001", today), ("L00002", today), ("L00003", today), ("L00004", date(2020, 1, 1)))
    message = digest(db, "r2")
    assert message is not None
    assert (message.listed, message.closed) == ([], ["L00001"])
    assert message.subject == "jobsearch: 1 listing of yours taken down"
    assert (
        f"- Backend Engineer 1 — Example Co 1 — your status: Applied — closed {today.isoformat()}"
        in message.text.splitlines()
    )
    assert "Backend Engineer 2" not in message.text
    assert message.push_message.splitlines() == [
        "taken down: Backend Engineer 1 · Example Co 1",
        "1 of yours taken down",
    ]
    record_told(db, "r2", message)
    assert digest(db, "r2") is None


def test_closed_listings_are_not_told_as_new(store: Store, db: Path) -> None:
    """A listing the run found and its boards already took down is not a new listing to read."""
    store.start_run("r1", profile="p.toml")
    record(store, "r1", listing(1), fit(90))
    record(store, "r1", listing(2), fit(50))
    close(store, ("L00001", datetime.now(UTC).date()))
    message = digest(db, "r1")
    assert message is not None
    assert message.listed == ["L00002"]


HOSTILE_TITLE = '<script>alert("x")</script>\n2. Forged line — fit 100\u202e'


def test_hostile_titles_and_links_are_escaped_and_cannot_forge_lines(store: Store, db: Path) -> None:
    """A title with markup and a newline, a company with quotes, and `javascript:` links: the HTML
    holds no tag or href of theirs, the text no line of theirs, and the only links are http(s)."""
    store.start_run("r1", profile="p.toml")
    evil = listing(
        1,
        title=HOSTILE_TITLE,
        company='Acme" onmouseover="alert(1)',
        url="javascript:alert(1)",
        locations=["<img src=x onerror=alert(1)>"],
        sources=[SourceRef(board="sample", source="sample", external_id="1", url="javascript:alert(2)")],
        salary=Salary(min=1, max=2, currency="<b>", interval="year"),
    )
    fallback = listing(2, url="data:text/html,hi", title="Fine")
    record(store, "r1", evil, fit(90, (20, "<b>bold</b>\nreason")))
    record(store, "r1", fallback, fit(10))
    message = digest(db, "r1")
    assert message is not None
    doc = parsed(message.html)
    assert "script" not in doc.tags
    assert "img" not in doc.tags
    assert "b" not in doc.tags
    assert all(href.startswith(("http://", "https://")) for href in doc.hrefs)
    assert "https://jobs.example.com/2" in doc.hrefs  # the posting's web address, not `data:`
    assert "javascript" not in "".join(doc.hrefs)
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in message.html
    assert "onmouseover=&quot;" in message.html
    assert 'onmouseover="' not in message.html
    lines = message.text.splitlines()
    assert not any(line.startswith("2. Forged") for line in lines)
    assert lines[2].startswith('1. <script>alert("x")</script> 2. Forged line — fit 100 — Acme"')
    assert "\u202e" not in message.text + message.html + message.push_message + message.subject
    assert "   (no web link)" in lines  # the hostile listing has no web address at all
    assert "\n" not in message.subject
    assert "\r" not in message.subject
    assert len(message.push_message.splitlines()) <= 4


def test_nothing_new_is_none(store: Store, db: Path, tmp_path: Path) -> None:
    """A run that recorded nothing, a run id never seen, and a data dir with no database: None."""
    store.start_run("r1", profile="p.toml")
    record(store, "r1", listing(1), fit(80))
    store.finish_run("r1", outcome="ok", summary={})
    store.start_run("r2", profile="p.toml")
    assert digest(db, "r2") is None
    assert digest(db, "never") is None
    assert digest(tmp_path / "absent.sqlite", "r1") is None
    assert not (tmp_path / "absent.sqlite").exists()


def test_failure_digest_says_what_failed_and_what_to_fix() -> None:
    """A scheduled run refused: the subject names the schedule, the text the reason and the fix."""
    message = failure_digest(
        SETTINGS,
        run_id="r9",
        reason="the profile /home/jane/me.toml cannot run: search.remote: Expected `bool`\nline 2",
        schedule="mornings",
    )
    assert message.subject == "jobsearch: the scheduled run 'mornings' did not run"
    assert "  the profile /home/jane/me.toml cannot run: search.remote: Expected `bool`" in message.text
    assert "  line 2" in message.text
    assert "What to fix:" in message.text
    assert "jobsearch run --profile FILE" in message.text
    assert (message.listed, message.closed) == ([], [])
    assert message.push_title == "jobsearch: 'mornings' did not run"
    assert "<pre>the profile /home/jane/me.toml cannot run" in message.html


def example_store(db: Path) -> DigestMessage:
    """The store behind docs/digest-example.txt: one run, four listings, one the person applied to."""
    with Store.open(db) as store:
        store.start_run("r-20261202-0700", profile="me.toml")
        found = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)
        record(
            store,
            "r-20261202-0700",
            listing(
                1,
                title="Senior Python Engineer",
                company="Acme",
                url="https://boards.greenhouse.io/acme/jobs/4242",
                locations=["Berlin"],
                workplace="hybrid",
                first_seen=found,
            ),
            fit(
                82, (25, "the title is your role"), (20, "python, django, postgres"), (12, "hybrid in Berlin")
            ),
        )
        record(
            store,
            "r-20261202-0700",
            listing(
                2,
                title="Backend Developer (Go)",
                company="Globex",
                url="https://jobs.lever.co/globex/9f1c",
                locations=["Remote (EU)"],
                salary=None,
                first_seen=found,
            ),
            fit(67, (15, "remote in the EU"), (10, "go, kubernetes"), (-8, "no salary stated")),
        )
        record(
            store,
            "r-20261202-0700",
            listing(3, title="Platform Engineer", company="Initech", locations=["Munich"], first_seen=found),
            fit(41, (10, "kubernetes"), (-20, "onsite in Munich; you want remote or Berlin")),
            drafted=True,
        )
        store.set_status("L00003", "Applied", source="mark")
        close(store, ("L00003", date(2026, 12, 2)))
    return compose_digest(
        db,
        "r-20261202-0700",
        Digest(email="jane@example.com", min_fit=40, page_url="http://127.0.0.1:8322"),
        summary_lines=[
            "run r-20261202-0700 ok in 52 s (schedule mornings)",
            "  listings   48 read: 3 new, 0 updated, 45 unchanged",
            "  closed     1 taken down by their boards",
            "  tracker    /home/jane/jobsearch/tracker.xlsx (61 rows)",
        ],
    ) or pytest.fail("the example store gave no digest")


def test_the_documented_example_is_what_compose_writes(db: Path) -> None:
    """docs/digest-example.txt and .html are this code's text and HTML for the example store
    (regenerate them with JOBSEARCH_WRITE_EXAMPLE=1 when the digest changes on purpose)."""
    message = example_store(db)
    if os.environ.get("JOBSEARCH_WRITE_EXAMPLE") == "1":
        EXAMPLE.write_text(f"Subject: {message.subject}\n\n{message.text}", encoding="utf-8")
        EXAMPLE_HTML.write_text(message.html, encoding="utf-8")
    assert EXAMPLE.read_text(encoding="utf-8") == f"Subject: {message.subject}\n\n{message.text}"
    assert EXAMPLE_HTML.read_text(encoding="utf-8") == message.html
