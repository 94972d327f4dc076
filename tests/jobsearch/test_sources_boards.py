"""Each board adapter against a real local HTTP server answering in the board's documented shape.

The adapters run their real httpx code through `base_url`; the payloads are in `fixtures/`.
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

import msgspec
import pytest

from jobsearch.listing import Salary
from jobsearch.profile import (
    Arbeitnow,
    Ashby,
    Greenhouse,
    HackerNews,
    Lever,
    RemoteOK,
    Remotive,
    Rss,
    SmartRecruiters,
    Workable,
)
from jobsearch.sources import Fetched, SourceError, fetch_source
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, fixture_json, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below


def by_id(fetched: Fetched) -> dict[str, Any]:
    return {listing.external_id: listing for listing in fetched.listings}


async def test_greenhouse_maps_jobs_and_drops_unusable_ones(board: HttpTarget) -> None:
    """Greenhouse: escaped HTML content becomes plain text (entities decoded, script/style gone),
    `;`-separated locations split, non-Latin text kept, a job without a title or URL dropped and
    counted, a job with only a title and URL kept."""
    board.script("/v1/boards/acme/jobs?content=true&pay_transparency=true", ok_file("greenhouse_jobs.json"))
    async with client() as http:
        fetched = await fetch_source(http, Greenhouse(token="acme", base_url=board.url("")))
    assert fetched.skipped_reasons == {"no title": 1, "no url": 1}
    assert fetched.skipped == 2
    jobs = by_id(fetched)
    lead = jobs["4012345"]
    assert lead.board == "greenhouse"
    assert lead.source == "greenhouse:acme"
    assert lead.key == "greenhouse:4012345"
    assert lead.title == "Senior Backend Engineer & Team Lead"
    assert lead.company == "Acme Robotics"
    assert lead.locations == ["Berlin, Germany", "Remote - EU"]
    assert lead.remote is True
    assert lead.department == "Engineering"
    assert lead.posted_at == date(2026, 11, 1)
    assert "We build robots & the software that runs them." in lead.description
    assert "- Python & Go" in lead.description
    assert "Café on site\u00a0— free." not in lead.description  # nbsp collapsed to a space
    assert "Café on site — free." in lead.description
    assert "trackView" not in lead.description
    assert "p{}" not in lead.description
    assert "<" not in lead.description
    japanese = jobs["4012346"]
    assert japanese.title == "ソフトウェアエンジニア"
    assert japanese.locations == ["東京"]
    assert japanese.description == "日本語の説明"
    bare = jobs["4012347"]
    assert (bare.company, bare.locations, bare.description, bare.department) == ("acme", [], "", None)
    assert (
        board.to("/v1/boards/acme/jobs?content=true&pay_transparency=true")[0]
        .headers["user-agent"]
        .startswith("jobsearch/")
    )


async def test_greenhouse_empty_board_and_wrong_token(board: HttpTarget) -> None:
    """An empty board gives no listings; a wrong token (404) is a SourceError naming the board."""
    board.script("/v1/boards/empty/jobs?content=true&pay_transparency=true", ok_file("greenhouse_empty.json"))
    board.script(
        "/v1/boards/nope/jobs?content=true&pay_transparency=true",
        Answer(404, b'{"status":404,"error":"Job not found"}'),
    )
    async with client() as http:
        empty = await fetch_source(http, Greenhouse(token="empty", base_url=board.url("")))
        with pytest.raises(SourceError) as caught:
            await fetch_source(http, Greenhouse(token="nope", base_url=board.url("")))
    assert empty == Fetched(listings=[], skipped=0, skipped_reasons={})
    assert caught.value.kind == "not_found"
    assert str(caught.value).startswith("greenhouse: HTTP 404")
    assert not caught.value.retryable


async def test_lever_pages_with_skip_and_limit(board: HttpTarget) -> None:
    """Lever: a full page (100) asks for the next with `skip`; a short page ends; categories,
    workplace type, salary range, lists and epoch-millisecond dates are mapped."""
    template = fixture_json("lever_postings.json")
    full_page = []
    for i in range(100):
        posting = copy.deepcopy(template[1])
        posting["id"] = f"page1-{i}"
        posting["hostedUrl"] = f"https://jobs.lever.co/quillstone/page1-{i}"
        full_page.append(posting)
    board.script("/v0/postings/quillstone?mode=json&skip=0&limit=100", ok_json(full_page))
    board.script("/v0/postings/quillstone?mode=json&skip=100&limit=100", ok_file("lever_postings.json"))
    async with client() as http:
        fetched = await fetch_source(http, Lever(site="quillstone", base_url=board.url("")))
    assert len(fetched.listings) == 102
    assert fetched.skipped_reasons == {"no url": 1}
    platform = by_id(fetched)["5f2c1a9e-0b1d-4c39-9d8e-2f7d8e0a1b01"]
    assert platform.title == "Platform Engineer"
    assert platform.locations == ["Toronto, ON", "Montréal, QC"]
    assert platform.employment_type == "Full-time"
    assert platform.department == "Platform"
    assert platform.remote is None  # hybrid
    assert platform.salary == Salary(min=120000, max=150000, currency="CAD", interval="year")
    assert platform.posted_at == date(2025, 11, 1)
    assert "Requirements\n" in platform.description
    assert "On-call & ownership" in platform.description
    assert "Visa sponsorship available." in platform.description
    assert by_id(fetched)["page1-0"].remote is True


async def test_ashby_compensation_and_unlisted(board: HttpTarget) -> None:
    """Ashby: the salary component (not equity) becomes the salary; secondary locations are kept;
    an unlisted job is skipped and counted; employment types read as words."""
    board.script("/posting-api/job-board/orbita?includeCompensation=true", ok_file("ashby_board.json"))
    async with client() as http:
        fetched = await fetch_source(http, Ashby(board_name="orbita", base_url=board.url("")))
    assert fetched.skipped_reasons == {"unlisted": 1}
    staff, support = fetched.listings
    assert staff.salary == Salary(min=200000, max=240000, currency="USD", interval="year")
    assert staff.locations == ["New York, NY", "San Francisco, CA"]
    assert staff.employment_type == "Full-time"
    assert staff.remote is False
    assert staff.department == "Engineering"
    assert staff.posted_at == date(2026, 11, 5)
    assert support.remote is True
    assert support.employment_type == "Part-time"
    assert support.description == "Help customers — kindly."


async def test_workable_account(board: HttpTarget) -> None:
    """Workable: the account's name is the company, telecommuting is the remote flag, a job
    without a shortcode is dropped."""
    board.script("/api/v1/widget/accounts/tidewater?details=true", ok_file("workable_account.json"))
    async with client() as http:
        fetched = await fetch_source(http, Workable(account="tidewater", base_url=board.url("")))
    assert fetched.skipped_reasons == {"no id": 1}
    sre, analyst = fetched.listings
    assert (sre.company, sre.title, sre.remote) == ("Tidewater Logistics", "Site Reliability Engineer", False)
    assert sre.locations == ["Rotterdam, South Holland, Netherlands"]
    assert sre.description == "Keep shipments moving.\n\nOn-call 1 week in 6."
    assert sre.posted_at == date(2026, 11, 3)
    assert analyst.remote is True
    assert analyst.locations == ["Germany"]


async def test_smartrecruiters_list_then_details(board: HttpTarget) -> None:
    """SmartRecruiters: each posting's detail gives its URL and description; a posting whose detail
    fails (404 here) is kept without a description, at its public URL."""
    base = "/v1/companies/Vortexaudio/postings"
    board.script(f"{base}?limit=100&offset=0", ok_file("smartrecruiters_postings.json"))
    board.script(f"{base}/744000012345678", ok_file("smartrecruiters_detail.json"))
    async with client() as http:
        fetched = await fetch_source(http, SmartRecruiters(company="Vortexaudio", base_url=board.url("")))
    java, sales = fetched.listings
    assert java.url == "https://jobs.smartrecruiters.com/Vortexaudio/744000012345678-backend-developer-java-"
    assert java.company == "Vortex Audio AB"
    assert java.locations == ["Stockholm, Stockholm County, Sweden"]
    assert java.employment_type == "Full-time"
    assert java.department == "R&D"
    assert "Build our licensing service in Java & Kotlin." in java.description
    assert sales.title == "Försäljningschef"
    assert sales.url == "https://jobs.smartrecruiters.com/Vortexaudio/744000012345679"
    assert sales.description == ""
    assert sales.remote is True


async def test_remoteok_skips_the_legal_notice(board: HttpTarget) -> None:
    """Remote OK: element 0 (the legal notice) is not a listing; zero salaries mean none; every job
    is remote; the URL links back to Remote OK."""
    board.script("/api?tag=python", ok_file("remoteok.json"))
    async with client() as http:
        fetched = await fetch_source(http, RemoteOK(tag="python", base_url=board.url("")))
    assert fetched.skipped == 0
    python, designer = fetched.listings
    assert python.title == "Senior Python Engineer"
    assert python.remote is True
    assert python.url.startswith("https://remoteOK.com/remote-jobs/")
    assert python.salary == Salary(min=120000, max=160000, currency="USD", interval="year")
    assert python.description == "Python & Postgres. <b>Async</b> everything."  # escaped text stays text
    assert designer.salary is None
    assert designer.locations == []


async def test_remotive_jobs(board: HttpTarget) -> None:
    """Remotive: job type, category, required location and the free-text salary are kept."""
    board.script("/api/remote-jobs?category=software-dev", ok_file("remotive.json"))
    async with client() as http:
        fetched = await fetch_source(http, Remotive(category="software-dev", base_url=board.url("")))
    backend, data = fetched.listings
    assert backend.employment_type == "Full-time"
    assert backend.department == "Software Development"
    assert backend.locations == ["USA, Canada"]
    assert backend.description == "Salary: $140k - $170k\n\nBuild \u201cbooking\u201d services."
    assert backend.posted_at == date(2026, 11, 8)
    assert data.employment_type == "Contract"
    assert data.description == ""


async def test_arbeitnow_follows_next_links(board: HttpTarget) -> None:
    """Arbeitnow: pages are read while `links.next` is set; the slug is the id."""
    board.script("/api/job-board-api?page=1", ok_file("arbeitnow_page1.json"))
    board.script("/api/job-board-api?page=2", ok_file("arbeitnow_page2.json"))
    async with client() as http:
        fetched = await fetch_source(http, Arbeitnow(base_url=board.url("")))
    assert [item.external_id for item in fetched.listings] == [
        "senior-php-developer-berlin-123456",
        "werkstudent-data-munich-123457",
        "devops-engineer-hamburg-123458",
    ]
    php = fetched.listings[0]
    assert php.description == "Wir suchen überzeugte Entwickler*innen."
    assert php.employment_type == "full time, berufserfahren"
    assert board.to("/api/job-board-api?page=3") == []
    assert fetched.complete  # read to the board's end


async def test_arbeitnow_stops_at_max_pages(board: HttpTarget) -> None:
    """Arbeitnow reads no more than `max_pages` pages even when more are offered; such a read is
    not whole (so no closing can ever come from it)."""
    board.script("/api/job-board-api?page=1", ok_file("arbeitnow_page1.json"))
    async with client() as http:
        fetched = await fetch_source(http, Arbeitnow(max_pages=1, base_url=board.url("")))
    assert len(fetched.listings) == 2
    assert board.to("/api/job-board-api?page=2") == []
    assert not fetched.complete


async def test_hackernews_finds_the_thread_and_parses_comments(board: HttpTarget) -> None:
    """HN: the latest "Who is hiring?" thread is found (not "Who wants to be hired?"); top-level
    comments in the `Company | Role | ...` convention become listings linking back to HN; a
    comment that does not parse and a deleted one are skipped and counted; replies are ignored."""
    board.script(
        "/api/v1/search_by_date?tags=story%2Cauthor_whoishiring&hitsPerPage=30", ok_file("hn_search.json")
    )
    board.script("/api/v1/items/45800001", ok_file("hn_thread.json"))
    async with client() as http:
        fetched = await fetch_source(http, HackerNews(base_url=board.url("")))
    assert fetched.skipped_reasons == {"not a posting: question": 1, "deleted comment": 1}
    acme, sakura = fetched.listings
    assert (acme.company, acme.title) == ("Acme Robotics", "Senior Backend Engineer")
    # The careers link is where one applies; the comment stays the back-link (test_hackernews.py).
    assert acme.url == "https://acme.example/jobs"
    assert acme.description.startswith("Hacker News: https://news.ycombinator.com/item?id=45800101")
    assert acme.remote is True
    assert acme.employment_type == "Full-time"
    # Read from the comment's text (a comment has no pay field), so stated "text".
    assert acme.salary == Salary(min=90000, max=110000, currency="EUR", interval="year", stated="text")
    assert "Berlin, Germany" in acme.locations
    assert "We build warehouse robots & their software." in acme.description
    assert (sakura.company, sakura.title, sakura.remote) == ("サクラデータ", "バックエンドエンジニア", False)


async def test_hackernews_given_thread(board: HttpTarget) -> None:
    """With `thread_id`, the search for the latest thread is not made."""
    board.script("/api/v1/items/45800001", ok_file("hn_thread.json"))
    async with client() as http:
        fetched = await fetch_source(http, HackerNews(thread_id=45800001, base_url=board.url("")))
    assert len(fetched.listings) == 2
    assert [r.path for r in board.requests] == ["/api/v1/items/45800001"]


async def test_rss_we_work_remotely(board: HttpTarget) -> None:
    """An RSS feed from We Work Remotely: `Company: Title` is split, `region` is the location,
    the description is plain text; an item without a link is dropped and counted."""
    board.script(
        "/categories/remote-back-end-programming-jobs.rss", ok_file("wwr.rss", "application/rss+xml")
    )
    feed = "https://weworkremotely.com/categories/remote-back-end-programming-jobs.rss"
    async with client() as http:
        fetched = await fetch_source(http, Rss(url=feed, base_url=board.url("")))
    assert fetched.skipped_reasons == {"no url": 1}
    go, ruby = fetched.listings
    assert (go.company, go.title, go.locations, go.remote) == (
        "Basalt Cloud",
        "Senior Go Engineer",
        ["Anywhere in the World"],
        True,
    )
    assert go.description == "Build storage & networking in Go."
    assert go.posted_at == date(2026, 11, 6)
    assert ruby.title == "Рубист (Ruby Developer)"


async def test_atom_feed(board: HttpTarget) -> None:
    """An Atom feed: the entry's author is the company, its HTML content the description."""
    board.script("/careers.atom", ok_file("jobs.atom", "application/atom+xml"))
    async with client() as http:
        fetched = await fetch_source(http, Rss(url=board.url("/careers.atom")))
    [entry] = fetched.listings
    assert (entry.title, entry.company, entry.url) == (
        "GIS Developer",
        "Glacier Maps Oy",
        "https://glacier-maps.example/jobs/gis",
    )
    assert entry.description == "PostGIS & Python."


async def test_an_aggregator_feed_names_the_employer_in_the_title(board: HttpTarget) -> None:
    """An entry with no author titled `Role at Company` is split: the employer is the company, not
    the feed; a title that does not read so keeps the feed's name."""
    feed = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Remote Desk</title>
      <item><title>Staff Data Engineer at Corvid Labs</title><link>https://desk.example/1</link>
        <guid>d-1</guid><description>Pipelines.</description></item>
      <item><title>Engineer at scale</title><link>https://desk.example/2</link>
        <guid>d-2</guid><description>Scale.</description></item>
    </channel></rss>"""
    board.script("/feed.rss", Answer(200, feed, {"Content-Type": "application/rss+xml"}))
    async with client() as http:
        fetched = await fetch_source(http, Rss(url=board.url("/feed.rss")))
    assert [(e.title, e.company) for e in fetched.listings] == [
        ("Staff Data Engineer", "Corvid Labs"),
        ("Engineer at scale", "Remote Desk"),
    ]


async def test_rss_that_is_an_html_page(board: HttpTarget) -> None:
    """A feed URL that answers with an HTML page is a SourceError of kind `html_page`."""
    board.script(
        "/feed",
        Answer(200, b"<!DOCTYPE html><html><body>Log in</body></html>", {"Content-Type": "text/html"}),
    )
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await fetch_source(http, Rss(url=board.url("/feed")))
    assert caught.value.kind == "html_page"


@pytest.mark.parametrize(
    ("source", "path"),
    [
        (Lever(site="x"), "/v0/postings/x?mode=json&skip=0&limit=100"),
        (Ashby(board_name="x"), "/posting-api/job-board/x?includeCompensation=true"),
        (Workable(account="x"), "/api/v1/widget/accounts/x?details=true"),
        (Remotive(), "/api/remote-jobs"),
    ],
)
async def test_missing_fields_everywhere_are_counted_not_fatal(
    board: HttpTarget, source: Any, path: str
) -> None:
    """A board whose items lack every field (or have the wrong types) gives no listings and counts
    each item as skipped; it does not fail the source."""
    items = [{}, {"id": 7, "title": None}, {"title": 12345}]
    body = items if isinstance(source, Lever) else {"jobs": items}
    board.script(path, ok_json(body))
    source = msgspec.structs.replace(source, base_url=board.url(""))
    async with client() as http:
        fetched = await fetch_source(http, source)
    assert fetched.listings == []
    assert fetched.skipped == 3
