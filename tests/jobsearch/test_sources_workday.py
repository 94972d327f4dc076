"""The Workday adapter against a real local HTTP server answering in the careers site's shape.

`base_url` points the adapter at the server in place of `https://{host}`; the search pages and
details are in `fixtures/workday_*.json`. The server records each request, so the tests read the
search bodies the adapter POSTed.
"""

# ruff: noqa: RUF001 - en dashes and full-width punctuation are how these postings are written

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

import pytest

from jobsearch.listing import Listing, Salary
from jobsearch.profile import Workday
from jobsearch.sources import Fetched, SourceError, fetch_source, workday
from jobsearch.sources.workday import careers_site, posted_on
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, fixture_json, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

SITE_URL = "https://acme.wd5.myworkdayjobs.com/en-US/External"
API = "/wday/cxs/acme/External"
JOBS = f"{API}/jobs"
LEAD = "/job/Berlin/Senior-Backend-Engineer--m-w-d----Team-Lead_R-10042"
TOKYO = "/job/Tokyo/Software-Engineer-Backend_R-10043"
ANALYST = "/job/Remote-Germany/Data-Analyst_R-10045"


def site(board: HttpTarget, **config: Any) -> Workday:
    return Workday(**{"url": SITE_URL, "base_url": board.url(""), **config})


async def read(board: HttpTarget, source: Workday | None = None, terms: Sequence[str] = ()) -> Fetched:
    async with client() as http:
        return await fetch_source(http, source or site(board), terms=terms)


def by_id(fetched: Fetched) -> dict[str, Listing]:
    return {listing.external_id: listing for listing in fetched.listings}


def searches(board: HttpTarget) -> list[dict[str, Any]]:
    """The search bodies the server received, in order."""
    return [json.loads(r.body) for r in board.to(JOBS) if r.method == "POST"]


def whole_site(board: HttpTarget) -> None:
    """The site's two pages and two postings' details; every other detail is missing (404)."""
    board.script(JOBS, ok_file("workday_jobs_page1.json"), ok_file("workday_jobs_page2.json"))
    board.script(f"{API}{LEAD}", ok_file("workday_detail_full.json"))
    board.script(f"{API}{TOKYO}", ok_file("workday_detail_tokyo.json"))
    board.script(f"{API}{ANALYST}", Answer(200, b"<html><body>Wartungsarbeiten</body></html>"))


def page(*paths: str, total: int = 0) -> dict[str, Any]:
    return {"total": total, "jobPostings": [{"title": f"Job {p}", "externalPath": p} for p in paths]}


async def test_every_field_of_the_full_posting_is_mapped(board: HttpTarget) -> None:
    """The full posting: the id from its path (tenant first), `externalUrl`, the decoded title,
    `hiringOrganization.name`, `location` and `additionalLocations` (not the list's "2
    Locations"), the hybrid `remoteType`, `timeType`, the ISO `startDate` over "Posted 3 Days
    Ago", the description as plain text (entities decoded, the hidden part gone and counted) and
    the pay it states."""
    whole_site(board)
    fetched = await read(board)
    lead = by_id(fetched)["acme/Senior-Backend-Engineer--m-w-d----Team-Lead_R-10042"]
    assert lead.board == "workday"
    assert lead.source == f"workday:{SITE_URL}"
    assert lead.url == f"https://acme.wd5.myworkdayjobs.com/External{LEAD}"
    assert lead.title == "Senior Backend Engineer (m/w/d) & Team Lead"
    assert lead.company == "Acme Robotics GmbH"
    assert lead.locations == ["Berlin, Deutschland", "München, Deutschland"]
    assert (lead.workplace, lead.remote) == ("hybrid", None)
    assert lead.employment_type == "Full time"
    assert lead.posted_at == date(2026, 10, 7)
    assert lead.description == (
        "Über uns: Wir bauen Lagerroboter & die Software, die sie steuert.\n\n"
        "- Python & Go\n\n- NATS JetStream\n\n"
        "Gehalt: 70.000 € – 85.000 € pro Jahr"
    )
    assert lead.hidden_parts == 1
    assert lead.salary == Salary(min=70000, max=85000, currency="EUR", interval="year", stated="text")
    assert lead.department is None


async def test_japanese_posting_without_url_or_company_in_its_detail(board: HttpTarget) -> None:
    """A detail without `externalUrl` or `hiringOrganization` links to the site's page (with the
    URL's locale) and names the tenant; Japanese text and an escaped `<` survive; the list's
    `remoteType` stands in for the detail's; "Posted Today" is the fetch date."""
    whole_site(board)
    tokyo = by_id(await read(board))["acme/Software-Engineer-Backend_R-10043"]
    assert tokyo.url == f"https://acme.wd5.myworkdayjobs.com/en-US/External{TOKYO}"
    assert tokyo.title == "ソフトウェアエンジニア（バックエンド）"
    assert tokyo.company == "acme"
    assert tokyo.locations == ["東京都 渋谷区"]
    assert tokyo.workplace == "hybrid"
    assert tokyo.employment_type == "Full time"
    assert tokyo.fetched_at is not None
    assert tokyo.posted_at == tokyo.fetched_at.date()
    assert tokyo.description == "私たちは物流ロボットを開発しています。\n\n勤務地：東京 <渋谷>"


async def test_postings_whose_detail_fails_keep_the_lists_data(board: HttpTarget) -> None:
    """The fewest fields (a title and a path; its detail a 404) give a listing with the tenant as
    company and nothing else; a detail answered with an HTML page keeps the list's location (read
    as remote), and "Posted Yesterday"/"Posted 30+ Days Ago"/"Posted 12 Days Ago" count back
    from the fetch date."""
    whole_site(board)
    fetched = await read(board)
    jobs = by_id(fetched)
    bare = jobs["acme/Office-Manager_R-10044"]
    assert (bare.title, bare.company) == ("Office Manager", "acme")
    assert bare.url == "https://acme.wd5.myworkdayjobs.com/en-US/External/job/Hamburg/Office-Manager_R-10044"
    assert (bare.locations, bare.description, bare.posted_at) == ([], "", None)
    assert (bare.workplace, bare.remote, bare.employment_type, bare.salary) == (None, None, None, None)
    analyst = jobs["acme/Data-Analyst_R-10045"]
    assert analyst.fetched_at is not None
    today = analyst.fetched_at.date()
    assert (analyst.locations, analyst.workplace, analyst.remote) == (["Remote - Germany"], "remote", True)
    assert analyst.posted_at == today - timedelta(days=1)
    assert analyst.description == ""
    assert jobs["acme/Lagerist--m-w-d----Schicht-7_R-20007"].posted_at == today - timedelta(days=30)
    assert jobs["acme/Lagerist--m-w-d----Schicht-7_R-20007"].title == "Lagerist (m/w/d) – Schicht 7"
    assert jobs["acme/Werkstudent-IT-Support-2_R-30002"].posted_at == today - timedelta(days=12)
    assert jobs["acme/Werkstudent-IT-Support-2_R-30002"].locations == ["Köln, Deutschland"]


async def test_a_whole_read_pages_to_the_end_and_is_complete(board: HttpTarget) -> None:
    """No search terms: pages of 20 with an empty `searchText` until the short second page (whose
    `total` is 0, as Workday's later pages say), every posting's detail read once; complete."""
    whole_site(board)
    fetched = await read(board)
    assert fetched.complete is True
    assert len(fetched.listings) == 23
    assert fetched.skipped == 0
    assert searches(board) == [
        {"appliedFacets": {}, "limit": 20, "offset": 0, "searchText": ""},
        {"appliedFacets": {}, "limit": 20, "offset": 20, "searchText": ""},
    ]
    assert board.to(JOBS)[0].headers["content-type"] == "application/json"
    details = [r for r in board.requests if r.method == "GET"]
    assert len(details) == 23
    assert {r.path for r in details} >= {f"{API}{LEAD}", f"{API}{TOKYO}"}


async def test_the_first_pages_total_ends_the_read(board: HttpTarget) -> None:
    """A full page that reaches the first page's `total` is the last: no request for an empty
    page after it."""
    paths = [f"/job/X/Job_R-{n}" for n in range(20)]
    board.script(JOBS, ok_json(page(*paths, total=20)))
    fetched = await read(board)
    assert (fetched.complete, len(fetched.listings)) == (True, 20)
    assert [body["offset"] for body in searches(board)] == [0]


async def test_the_profiles_terms_are_searched_one_by_one_and_joined(board: HttpTarget) -> None:
    """`search` unset: one search per profile term (repeats and blanks dropped), postings found by
    several searches listed once; a searched read is never complete."""
    board.script(
        JOBS,
        ok_json(page("/job/A/Python-Dev_R-1", "/job/B/Go-Python_R-2", total=2)),
        ok_json(page("/job/B/Go-Python_R-2", "/job/C/Go-Dev_R-3", total=2)),
    )
    fetched = await read(board, terms=["python", "Go", "python", "  "])
    assert [b["searchText"] for b in searches(board)] == ["python", "Go"]
    assert [b["offset"] for b in searches(board)] == [0, 0]
    assert sorted(by_id(fetched)) == ["acme/Go-Dev_R-3", "acme/Go-Python_R-2", "acme/Python-Dev_R-1"]
    assert fetched.skipped == 0
    assert fetched.complete is False


async def test_the_sources_own_search_wins_over_the_profiles(board: HttpTarget) -> None:
    """`search = ["Rust"]` is searched instead of the profile's terms; `search = []` reads the
    whole site (empty `searchText`) whatever the profile's terms, and can be complete."""
    board.script(JOBS, ok_json(page("/job/A/Rust-Dev_R-1", total=1)))
    own = await read(board, site(board, search=["Rust"]), terms=["python"])
    assert [b["searchText"] for b in searches(board)] == ["Rust"]
    assert own.complete is False
    board.requests.clear()
    whole = await read(board, site(board, search=[]), terms=["python"])
    assert [b["searchText"] for b in searches(board)] == [""]
    assert whole.complete is True


async def test_a_page_cap_stops_the_read_incomplete(
    board: HttpTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site with more pages than `MAX_PAGES` is read up to the cap and the read is incomplete."""
    monkeypatch.setattr(workday, "MAX_PAGES", 2)
    first = fixture_json("workday_jobs_page1.json")
    second = {
        **first,
        "total": 0,
        "jobPostings": [{**p, "externalPath": f"{p['externalPath']}-2"} for p in first["jobPostings"]],
    }
    board.script(JOBS, ok_json({**first, "total": 100}), ok_json(second))
    fetched = await read(board)
    assert [b["offset"] for b in searches(board)] == [0, 20]
    assert len(fetched.listings) == 40
    assert fetched.complete is False


async def test_a_list_that_shifted_during_the_read_is_incomplete(board: HttpTarget) -> None:
    """Fewer distinct postings than the first page's `total` (one came twice, one was skipped
    over as the list moved): the read is not whole."""
    paths = [f"/job/X/Job_R-{n}" for n in range(20)]
    board.script(JOBS, ok_json(page(*paths, total=22)), ok_json(page(paths[19], "/job/X/Job_R-20")))
    fetched = await read(board)
    assert len(fetched.listings) == 21
    assert fetched.complete is False


async def test_details_are_capped(board: HttpTarget, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the first `MAX_DETAILS` postings' details are requested; the others keep the list's
    data and are still listed."""
    monkeypatch.setattr(workday, "MAX_DETAILS", 1)
    whole_site(board)
    fetched = await read(board)
    assert [r.path for r in board.requests if r.method == "GET"] == [f"{API}{LEAD}"]
    assert len(fetched.listings) == 23
    assert by_id(fetched)["acme/Software-Engineer-Backend_R-10043"].company == "acme"


async def test_postings_without_a_usable_path_are_skipped(board: HttpTarget) -> None:
    """A posting without `externalPath`, or with one that leaves the site (`..`) or is no path,
    is dropped and counted; it is never requested."""
    body = page("/job/A/Kept_R-1")
    body["jobPostings"] += [{"title": "No path"}, {"title": "Up", "externalPath": "/job/../../admin"}]
    body["jobPostings"].append({"title": "Absolute", "externalPath": "https://evil.example/job"})
    board.script(JOBS, ok_json(body))
    fetched = await read(board)
    assert list(by_id(fetched)) == ["acme/Kept_R-1"]
    assert fetched.skipped_reasons == {"no url": 3}
    assert [r.path for r in board.requests if r.method == "GET"] == [f"{API}/job/A/Kept_R-1"]


async def test_a_wrong_tenant_or_site_is_not_found(board: HttpTarget) -> None:
    """A 404 from the search endpoint (a wrong tenant or site) is `not_found`, naming its URL."""
    with pytest.raises(SourceError) as caught:
        await read(board, site(board, url="https://acme.wd5.myworkdayjobs.com/Nope"))
    assert caught.value.kind == "not_found"
    assert caught.value.url == board.url("/wday/cxs/acme/Nope/jobs")


async def test_an_html_page_instead_of_the_search_is_html_page(board: HttpTarget) -> None:
    """A maintenance page where the search's JSON was expected is `html_page`."""
    board.script(
        JOBS,
        Answer(200, b"<!DOCTYPE html><html><title>Wartung</title></html>", {"Content-Type": "text/html"}),
    )
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert (caught.value.kind, caught.value.url) == ("html_page", board.url(JOBS))


@pytest.mark.parametrize("body", [b'{"total": 3, "jobPostings": [', b'{"total": 3}', b'["jobPostings"]'])
async def test_a_malformed_search_answer_is_malformed(board: HttpTarget, body: bytes) -> None:
    """Broken JSON, or JSON without a `jobPostings` list, is `malformed`."""
    board.script(JOBS, Answer(200, body, {"Content-Type": "application/json"}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert (caught.value.kind, caught.value.url) == ("malformed", board.url(JOBS))


async def test_a_source_naming_no_site_is_refused_before_any_request(board: HttpTarget) -> None:
    """Neither `url` nor `host` + `tenant` + `site`: `refused`, saying what to set and what is
    missing; nothing is sent."""
    with pytest.raises(SourceError) as caught:
        await read(board, Workday(host="acme.wd5.myworkdayjobs.com", base_url=board.url("")))
    assert caught.value.kind == "refused"
    assert "set `url` (like https://acme.wd5.myworkdayjobs.com/en-US/External)" in str(caught.value)
    assert "(tenant, site missing)" in str(caught.value)
    assert board.requests == []


@pytest.mark.parametrize(
    "url",
    ["https://acme.wd5.myworkdayjobs.com/", "https://acme.wd5.myworkdayjobs.com/en-US/Ext%20ernal"],
)
def test_a_url_that_names_no_site_is_refused(url: str) -> None:
    """A URL without a site, or with one that is not a plain name, is `refused`."""
    with pytest.raises(SourceError) as caught:
        careers_site(Workday(url=url))
    assert caught.value.kind == "refused"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            Workday(url="https://acme.wd5.myworkdayjobs.com/en-US/External/job/Berlin/X_R-1"),
            (
                "acme.wd5.myworkdayjobs.com",
                "acme",
                "External",
                "https://acme.wd5.myworkdayjobs.com/en-US/External",
            ),
        ),
        (
            Workday(url="https://Acme.wd1.myworkdayjobs.com/Careers"),
            ("acme.wd1.myworkdayjobs.com", "acme", "Careers", "https://acme.wd1.myworkdayjobs.com/Careers"),
        ),
        (
            Workday(
                url="https://crowdstrike.wd5.myworkdayjobs.com/wday/cxs/crowdstrike/crowdstrikecareers/jobs"
            ),
            (
                "crowdstrike.wd5.myworkdayjobs.com",
                "crowdstrike",
                "crowdstrikecareers",
                "https://crowdstrike.wd5.myworkdayjobs.com/crowdstrikecareers",
            ),
        ),
        (
            Workday(url="https://wd3.myworkdaysite.com/de-DE/recruiting/acme/Extern"),
            (
                "wd3.myworkdaysite.com",
                "acme",
                "Extern",
                "https://wd3.myworkdaysite.com/de-DE/recruiting/acme/Extern",
            ),
        ),
        (
            Workday(host="wd1.myworkdaysite.com", tenant="acme", site="GHQ"),
            ("wd1.myworkdaysite.com", "acme", "GHQ", "https://wd1.myworkdaysite.com/recruiting/acme/GHQ"),
        ),
        (
            Workday(url="https://careers.acme.example/External", tenant="acme"),
            ("careers.acme.example", "acme", "External", "https://careers.acme.example/External"),
        ),
    ],
)
def test_the_site_is_read_from_each_url_form(source: Workday, expected: tuple[str, str, str, str]) -> None:
    """A careers page URL (with or without locale, a posting's URL too), the search endpoint's own
    URL, a `myworkdaysite.com/recruiting/{tenant}/{site}` URL, or `host` + `tenant` + `site`
    (which override what the URL says) name the same kind of site."""
    found = careers_site(source)
    assert (found.host, found.tenant, found.site, found.public) == expected


def test_posted_on_texts() -> None:
    """Workday's relative dates count back from the fetch date; "30+" is 30 days; an ISO date is
    itself; other wordings give no date."""
    today = date(2026, 10, 10)
    assert posted_on("Posted Today", today) == today
    assert posted_on("posted yesterday", today) == date(2026, 10, 9)
    assert posted_on("Posted 1 Day Ago", today) == date(2026, 10, 9)
    assert posted_on("Posted 3 Days Ago", today) == date(2026, 10, 7)
    assert posted_on("Posted 30+ Days Ago", today) == date(2026, 9, 10)
    assert posted_on("2026-09-01", today) == date(2026, 9, 1)
    assert posted_on("Vor 3 Tagen ausgeschrieben", today) is None
    assert posted_on(None, today) is None
