"""The schema.org JobPosting board against a real local HTTP server serving a careers site.

The source names the site's public URL (`https://careers.acme.example/...`) and reads it through
`base_url` (the local server), as a mirror would be read; the pages are in `fixtures/jobposting_*`.
"""

from __future__ import annotations

from datetime import date

import pytest

from jobsearch.listing import Listing, Salary
from jobsearch.profile import JobPosting
from jobsearch.sources import Fetched, SourceError, fetch_source, jobposting_data
from jobsearch.sources.fetched import Collector
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

SITE = "https://careers.acme.example"
HTML = "text/html; charset=utf-8"


def serve_site(board: HttpTarget) -> None:
    """The careers site: an index, three posting pages, a second index page and a page of two."""
    board.script("/robots.txt", ok_file("jobposting_robots.txt", "text/plain"))
    board.script("/careers", ok_file("jobposting_index.html", HTML))
    board.script("/jobs/platform-engineer", ok_file("jobposting_full.html", HTML))
    board.script("/jobs/werkstudent-data", ok_file("jobposting_minimal.html", HTML))
    board.script("/jobs/tokyo-sre", ok_file("jobposting_tokyo.html", "text/html"))  # charset in <meta>
    board.script("/careers?page=2", ok_file("jobposting_page2.html", HTML))
    board.script("/jobs/duo", ok_file("jobposting_duo.html", HTML))


async def read(board: HttpTarget, url: str = f"{SITE}/careers", max_pages: int = 100) -> Fetched:
    async with client() as http:
        return await fetch_source(http, JobPosting(url=url, base_url=board.url(""), max_pages=max_pages))


def by_id(fetched: Fetched) -> dict[str, Listing]:
    return {listing.external_id: listing for listing in fetched.listings}


async def test_crawls_the_site_breadth_first_and_maps_every_field(board: HttpTarget) -> None:
    """The index's links on the same site are read in page order, then the links of the page
    without a JobPosting; off-site links, another scheme, files, robots.txt's disallowed page and
    a posting page's own links are never requested. Every JobPosting field is mapped."""
    serve_site(board)
    fetched = await read(board)
    assert [r.path for r in board.requests] == [
        "/robots.txt",
        "/careers",
        "/jobs/platform-engineer",
        "/jobs/werkstudent-data",
        "/jobs/tokyo-sre",
        "/careers?page=2",
        "/jobs/duo",
    ]
    assert all(r.headers["user-agent"].startswith("jobsearch/") for r in board.requests)
    assert fetched.complete is False  # a crawl never proves a posting gone
    assert fetched.skipped_reasons == {"malformed JSON-LD": 1, "disallowed by robots.txt": 1}
    jobs = by_id(fetched)
    assert sorted(jobs) == [
        "careers.acme.example:2001",
        "careers.acme.example:JR-1042",
        "careers.acme.example:TKY-7",
        f"{SITE}/jobs/duo#1",
        f"{SITE}/jobs/werkstudent-data",
    ]
    full = jobs["careers.acme.example:JR-1042"]
    assert full.board == "jobposting"
    assert full.source == f"jobposting:{SITE}/careers"
    assert full.url == f"{SITE}/jobs/platform-engineer"
    assert full.title == "Senior Platform Engineer (m/w/d)"
    assert full.company == "Acme Robotics GmbH"  # the @graph node its @id names
    assert full.locations == ["Berlin, BE, DE", "München, Bayern, DE", "Germany", "Austria"]
    assert (full.workplace, full.remote) == ("remote", True)
    assert full.employment_type == "Full-time, Contractor"
    assert full.salary == Salary(min=85000, max=105000, currency="EUR", interval="year")
    assert full.posted_at == date(2026, 10, 5)
    assert full.valid_through == date(2026, 1, 31)  # in the past, and still listed
    assert full.department == "Platform Engineering"
    assert full.description == (
        "Wir bauen Roboter & die Software, die sie steuert.\n\nDeine Aufgaben\n\n"
        "- Kubernetes & Terraform betreiben\n\n- CI/CD für 40 Teams"
    )
    assert full.hidden_parts == 1


async def test_minimal_non_latin_and_listed_postings(board: HttpTarget) -> None:
    """A posting with only a title takes the page's URL as id and URL; a Shift_JIS page (charset in
    its <meta>) with an entity-escaped description reads as Japanese text; a JSON-LD list gives two
    postings, the second without an id or URL numbered on its page."""
    serve_site(board)
    jobs = by_id(await read(board))
    minimal = jobs[f"{SITE}/jobs/werkstudent-data"]
    assert minimal.url == f"{SITE}/jobs/werkstudent-data"  # the public URL, not the mirror's
    assert minimal.title == "Werkstudent*in Datenanalyse"
    assert (minimal.company, minimal.locations, minimal.description) == ("", [], "")
    assert (minimal.workplace, minimal.remote, minimal.employment_type, minimal.salary) == (None,) * 4
    assert (minimal.posted_at, minimal.valid_through, minimal.department) == (None, None, None)
    tokyo = jobs["careers.acme.example:TKY-7"]
    assert tokyo.title == "サイトリライアビリティエンジニア & SRE"
    assert tokyo.company == "アクメ株式会社"
    assert tokyo.locations == ["東京都渋谷区"]
    assert tokyo.description == "東京オフィスで勤務\n\n- Kubernetes & Go"
    assert tokyo.salary == Salary(min=450000, max=450000, currency="JPY", interval="month")
    assert tokyo.employment_type == "Part-time"
    assert tokyo.url == f"{SITE}/jobs/tokyo-sre"
    go = jobs["careers.acme.example:2001"]
    assert (go.title, go.company, go.locations) == (
        "Backend Engineer (Go)",
        "Acme Robotics Austria GmbH",
        ["Wien, AT"],
    )
    assert go.salary == Salary(min=38.5, max=38.5, currency="EUR", interval="hour")
    assert go.url == f"{SITE}/jobs/duo"
    qa = jobs[f"{SITE}/jobs/duo#1"]
    assert qa.title == "QA-Ingenieur*in Ölhydraulik (hybrid)"
    assert (qa.locations, qa.workplace, qa.posted_at) == (
        ["Werk Wien-Floridsdorf"],
        "hybrid",
        date(2026, 11, 3),
    )


async def test_max_pages_stops_the_crawl(board: HttpTarget) -> None:
    """`max_pages` counts every page read, the start page included; the links left are counted."""
    serve_site(board)
    fetched = await read(board, max_pages=3)
    assert [r.path for r in board.requests] == [
        "/robots.txt",
        "/careers",
        "/jobs/platform-engineer",
        "/jobs/werkstudent-data",
    ]
    assert fetched.complete is False
    assert fetched.skipped_reasons == {
        "malformed JSON-LD": 1,
        "disallowed by robots.txt": 1,
        "links left unread at max_pages": 2,  # the Tokyo posting and the second index page
    }
    assert len(fetched.listings) == 2


async def test_wrong_start_page_is_not_found(board: HttpTarget) -> None:
    """A start page answering 404 is `not_found`, naming the URL read (robots.txt missing too)."""
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await fetch_source(http, JobPosting(url=f"{SITE}/karriere", base_url=board.url("")))
    assert caught.value.kind == "not_found"
    assert caught.value.url == board.url("/karriere")
    assert [r.path for r in board.requests] == ["/robots.txt", "/karriere"]


async def test_start_page_that_is_not_html_is_malformed(board: HttpTarget) -> None:
    """A start page answering JSON (not an HTML page) is `malformed`."""
    board.script("/careers", ok_json({"jobs": []}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "malformed"
    assert "application/json" in str(caught.value)
    assert caught.value.url == board.url("/careers")


async def test_start_page_disallowed_by_robots_txt_is_refused(board: HttpTarget) -> None:
    """robots.txt disallowing the start page for jobsearch is `refused`, and the page is not read."""
    board.script("/robots.txt", Answer(200, b"User-agent: jobsearch\nDisallow: /careers\n"))
    board.script("/careers", ok_file("jobposting_index.html", HTML))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "refused"
    assert "robots.txt disallows the start page for jobsearch" in str(caught.value)
    assert [r.path for r in board.requests] == ["/robots.txt"]


async def test_unreachable_robots_txt_disallows_the_read(board: HttpTarget) -> None:
    """A robots.txt answering 503 after the retries disallows everything for this read: the error
    keeps the 503's kind (retryable) and names robots.txt; the start page is not read."""
    board.script("/robots.txt", Answer(503, b"unavailable"))
    board.script("/careers", ok_file("jobposting_index.html", HTML))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "server_error"
    assert caught.value.retryable
    assert caught.value.url == board.url("/robots.txt")
    assert "robots.txt could not be read (HTTP 503 after 3 attempts)" in str(caught.value)
    assert {r.path for r in board.requests} == {"/robots.txt"}


async def test_site_without_job_postings_and_without_robots_txt(board: HttpTarget) -> None:
    """No robots.txt (404) allows every page; a page that fails is skipped and counted; a crawl
    that finds no JobPosting gives no listings and says so. The source reads the server itself."""
    board.script("/about", Answer(200, b'<html><a href="/team">Team</a> <a href="/internal/x">x</a></html>'))
    board.script("/team", Answer(200, b"<!doctype html><p>No jobs right now.</p>", {"Content-Type": ""}))
    async with client() as http:
        fetched = await fetch_source(http, JobPosting(url=board.url("/about")))
    assert [r.path for r in board.requests] == ["/robots.txt", "/about", "/team", "/internal/x"]
    assert fetched == Fetched(
        listings=[],
        skipped=2,
        skipped_reasons={"page could not be read": 1, "no JobPosting data on 3 pages": 1},
        complete=False,
    )


async def test_crawl_delay_spaces_the_requests(board: HttpTarget) -> None:
    """A robots.txt `Crawl-delay` longer than the client's spacing is waited before each page."""
    board.script("/robots.txt", Answer(200, b"User-agent: *\nCrawl-delay: 1\n"))
    board.script("/jobs/werkstudent-data", ok_file("jobposting_minimal.html", HTML))
    fetched = await read(board, url=f"{SITE}/jobs/werkstudent-data")
    robots, page = board.requests
    assert page.at - robots.at >= 1.0
    assert [listing.title for listing in fetched.listings] == ["Werkstudent*in Datenanalyse"]


def test_json_ld_shapes_found_wherever_they_sit() -> None:
    """JobPostings inside an ItemList and a WebPage's mainEntity are found; a bare-number
    baseSalary takes `salaryCurrency`; a raw line break inside a string is read; a posting whose
    title is an object is skipped as an unexpected shape; a block with no JobPosting adds nothing."""
    collector = Collector("jobposting", "test")
    item_list = """{"@context": "https://schema.org", "@type": "ItemList", "itemListElement": [
        {"@type": "ListItem", "position": 1, "item": {"@type": "schema:JobPosting", "title": "Tischler*in",
         "url": "/jobs/7", "baseSalary": 52000, "salaryCurrency": "eur", "description": "Line one
line two"}},
        {"@type": "ListItem", "position": 2, "item": {"@type": "JobPosting", "title": {"de": "Koch"}}}]}"""
    web_page = """{"@type": "WebPage", "mainEntity": {"@type": "JobPosting", "title": "Pflegekraft",
        "identifier": {"@type": "PropertyValue", "value": 31.0}, "jobLocationType": ["TELECOMMUTE"],
        "applicantLocationRequirements": {"@type": "State", "name": "Tirol"}}}"""
    found = jobposting_data.read_page(
        collector,
        [item_list, web_page, '{"@type": "BreadcrumbList"}'],
        page_url=f"{SITE}/jobs",
        host="careers.acme.example",
    )
    assert found == 2
    assert collector.reasons == {"unexpected shape": 1}
    carpenter, nurse = collector.listings
    assert (carpenter.external_id, carpenter.url) == (f"{SITE}/jobs/7", f"{SITE}/jobs/7")
    assert carpenter.salary == Salary(min=52000, max=52000, currency="EUR", interval="year")
    assert carpenter.description == "Line one\nline two"
    assert (nurse.external_id, nurse.url) == ("careers.acme.example:31", f"{SITE}/jobs")
    assert (nurse.locations, nurse.workplace) == (["Tirol"], "remote")
