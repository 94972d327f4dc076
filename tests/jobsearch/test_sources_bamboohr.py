"""The BambooHR adapter against a real local HTTP server answering in the careers site's shape.

`base_url` points the adapter at the server in place of `https://{company}.bamboohr.com`; the
careers list and three openings' details are in `fixtures/bamboohr_*.json`, in the shape real
boards answer (escaped slashes, a title's trailing space, null fields, `location` and
`atsLocation` as alternates).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from jobsearch.listing import Listing, Salary
from jobsearch.profile import BambooHR
from jobsearch.sources import Fetched, SourceError, bamboohr, fetch_source
from jobsearch.sources.bamboohr import stated_pay
from tests.http_target import Answer, HttpTarget, serving
from tests.jobsearch.boards import board, client, fixture_json, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

LIST = "/careers/list"
PUBLIC = "https://lumenworks.bamboohr.com/careers"
NOT_FOUND = b'{"type":"not_found","title":"Resource not found.","details":"Looks like the id you provided doesn\'t exist.","meta":[]}'  # noqa: E501 - BambooHR's own 404 body, verbatim


def script_board(board: HttpTarget) -> None:
    """The list, and the details of 399, 412 and 415 (420 and 421 answer BambooHR's 404)."""
    board.script(LIST, ok_file("bamboohr_list.json"))
    for opening in (399, 412, 415):
        board.script(f"/careers/{opening}/detail", ok_file(f"bamboohr_detail_{opening}.json"))
    for opening in (420, 421):
        board.script(
            f"/careers/{opening}/detail", Answer(404, NOT_FOUND, {"Content-Type": "application/json"})
        )


async def read(board: HttpTarget, company: str = "lumenworks") -> Fetched:
    async with client() as http:
        return await fetch_source(http, BambooHR(company=company, base_url=board.url("")))


def by_id(fetched: Fetched) -> dict[str, Listing]:
    return {listing.external_id: listing for listing in fetched.listings}


def detail_paths(board: HttpTarget) -> list[str]:
    return sorted(r.path for r in board.requests if r.path.endswith("/detail"))


async def test_every_field_of_a_full_opening_is_mapped(board: HttpTarget) -> None:
    """The full opening: its id, its share URL, the title without its trailing space, the company
    slug, the detail's office with its country, hybrid from `locationType` "2", the employment
    status, `compensation` read as the board's field, `datePosted`, the description as plain text
    (entities decoded, script and the hidden part gone, the pay as written first) and the
    department."""
    script_board(board)
    lead = by_id(await read(board))["412"]
    assert lead.board == "bamboohr"
    assert lead.source == "bamboohr:lumenworks"
    assert lead.key == "bamboohr:412"
    assert lead.url == f"{PUBLIC}/412"
    assert lead.title == "Senior Backend Engineer & Team Lead"
    assert lead.company == "lumenworks"
    assert lead.locations == ["München, Bayern, Germany"]
    assert (lead.workplace, lead.remote) == ("hybrid", None)
    assert lead.employment_type == "Full-Time"
    assert lead.salary == Salary(min=70000, max=85000, currency="EUR", interval="year", stated="field")
    assert lead.posted_at == date(2026, 7, 21)
    assert lead.department == "Engineering & Data"
    assert lead.description == (
        "Salary: €70,000 - €85,000 per year\n\n"
        "We build warehouse robots & the software that runs them.\n\n"
        "- Python & Go\n\n- NATS JetStream\n\n"
        "Teams of <10 engineers, Büro in der Maxvorstadt."
    )
    assert lead.hidden_parts == 1


async def test_a_remote_opening_lists_its_region_and_pays_in_its_dollar(board: HttpTarget) -> None:
    """`locationType` "1" is remote; the place is the detail's `atsLocation` (the region a remote
    opening accepts); a bare `$` for an opening in Canada is Canadian dollars."""
    script_board(board)
    dev = by_id(await read(board))["415"]
    assert dev.title == "Développeur·se Backend / Backend Developer"
    assert dev.locations == ["Montréal, Canada"]
    assert (dev.workplace, dev.remote) == ("remote", True)
    assert dev.employment_type == "Contractor"
    assert dev.salary == Salary(min=95000, max=115000, currency="CAD", interval="year", stated="field")
    assert dev.posted_at == date(2026, 7, 2)
    assert dev.description == "Salary: $95,000 - $115,000 per year\n\nTravail à distance depuis le Canada."


async def test_an_on_site_opening_without_a_pay_field_gets_the_pay_its_text_states(board: HttpTarget) -> None:
    """`locationType` "0" is on-site; with `compensation` null the description's pay is read
    (`stated="text"`); a null share URL links to the public careers page; a null department in
    the detail falls back to the list's, its entity decoded; Greek text is kept."""
    script_board(board)
    clerk = by_id(await read(board))["399"]
    assert clerk.title == "Λογίστρια / Λογιστής"
    assert clerk.url == f"{PUBLIC}/399"
    assert clerk.locations == ["Αθήνα, Αττική, Greece"]
    assert (clerk.workplace, clerk.remote) == ("onsite", False)
    assert clerk.salary == Salary(min=24000, max=28000, currency="EUR", interval="year", stated="text")
    assert clerk.department == "Finance & Controlling"
    assert clerk.employment_type == "Part-Time"
    assert clerk.posted_at == date(2026, 6, 30)


async def test_the_fewest_fields_and_an_opening_without_a_title(board: HttpTarget) -> None:
    """An opening with only a (numeric) id and a title, whose detail answers 404, is kept at its
    public URL with the company slug and nothing else; one without a title is dropped and
    counted. The read is complete: the list holds all `meta.totalCount` openings."""
    script_board(board)
    fetched = await read(board)
    assert fetched.skipped_reasons == {"no title": 1}
    assert sorted(by_id(fetched)) == ["399", "412", "415", "420"]
    bare = by_id(fetched)["420"]
    assert (bare.title, bare.url, bare.company) == ("Office Manager", f"{PUBLIC}/420", "lumenworks")
    assert (bare.locations, bare.description, bare.hidden_parts) == ([], "", 0)
    assert (bare.workplace, bare.remote, bare.salary, bare.posted_at) == (None, None, None, None)
    assert (bare.employment_type, bare.department) == (None, None)
    assert fetched.complete is True


async def test_the_list_is_read_once_and_each_opening_s_detail_once(board: HttpTarget) -> None:
    """One list request (no paging: BambooHR has none), then one detail request per opening with
    an id, each at `/careers/{id}/detail`, with no query string."""
    script_board(board)
    await read(board)
    assert len(board.to(LIST)) == 1
    assert board.to(LIST)[0].method == "GET"
    assert detail_paths(board) == [f"/careers/{i}/detail" for i in (399, 412, 415, 420, 421)]
    assert len(board.requests) == 6


async def test_the_detail_cap_reads_the_newest_openings_and_the_read_stays_complete(
    board: HttpTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the cap at 3, only the three highest ids' details are read; the others are kept
    without description, date or pay, and the read is complete, since the list gave every
    opening."""
    monkeypatch.setattr(bamboohr, "MAX_DETAILS", 3)
    script_board(board)
    fetched = await read(board)
    assert detail_paths(board) == [f"/careers/{i}/detail" for i in (415, 420, 421)]
    jobs = by_id(fetched)
    assert sorted(jobs) == ["399", "412", "415", "420"]
    assert jobs["415"].description.startswith("Salary: $95,000")
    unread = jobs["412"]
    assert (unread.description, unread.salary, unread.posted_at) == ("", None, None)
    assert unread.locations == ["München, Bayern"]  # the list's copy of the office
    assert (unread.workplace, unread.title) == ("hybrid", "Senior Backend Engineer & Team Lead")
    assert fetched.complete is True


async def test_a_list_shorter_than_its_total_count_is_not_a_complete_read(board: HttpTarget) -> None:
    """`meta.totalCount` over the openings listed: what was read is kept, and `complete` is False."""
    body = fixture_json("bamboohr_list.json")
    body["meta"]["totalCount"] = 9
    board.script(LIST, ok_json(body))
    fetched = await read(board)
    assert fetched.complete is False
    assert len(fetched.listings) == 4


@pytest.mark.parametrize(
    "answer",
    [
        Answer(404, NOT_FOUND, {"Content-Type": "application/json"}),
        Answer(200, b"<!DOCTYPE html><html><body>Oops</body></html>", {"Content-Type": "text/html"}),
        Answer(200, b'{"result": {"jobOpening": "closed"}}', {"Content-Type": "application/json"}),
        Answer(200, b'{"result": ', {"Content-Type": "application/json"}),
    ],
    ids=["404", "html", "wrong shape", "malformed"],
)
async def test_an_opening_whose_detail_fails_is_kept_from_the_list(board: HttpTarget, answer: Answer) -> None:
    """A detail that cannot be read leaves the opening as the list gives it: title, department,
    employment status, place and workplace, with no description."""
    script_board(board)
    board.script("/careers/415/detail", answer)
    dev = by_id(await read(board))["415"]
    assert dev.url == f"{PUBLIC}/415"
    assert dev.title == "Développeur·se Backend / Backend Developer"
    assert dev.locations == ["Montréal, Québec, Canada"]  # the list's atsLocation, province included
    assert (dev.workplace, dev.department, dev.employment_type) == (
        "remote",
        "Engineering & Data",
        "Contractor",
    )
    assert (dev.description, dev.salary, dev.posted_at) == ("", None, None)


async def test_a_bare_list_is_read_as_the_result(board: HttpTarget) -> None:
    """A tenant answering the openings as a bare JSON list is read like `result`."""
    board.script(LIST, ok_json(fixture_json("bamboohr_list.json")["result"]))
    fetched = await read(board)
    assert len(fetched.listings) == 4
    assert fetched.complete is True


async def test_a_wrong_company_name_answering_404_is_not_found(board: HttpTarget) -> None:
    """A 404 for the list is `not_found`, naming the list's URL; no detail is asked for."""
    with pytest.raises(SourceError) as caught:
        await read(board, company="nosuchco")
    assert caught.value.kind == "not_found"
    assert caught.value.board == "bamboohr"
    assert caught.value.url == board.url(LIST)
    assert board.url(LIST) in str(caught.value)
    assert detail_paths(board) == []


async def test_a_company_redirected_to_bamboohr_s_own_site_is_an_html_page(board: HttpTarget) -> None:
    """BambooHR redirects a company it does not know to its own site: the HTML page at the end of
    the redirect is `html_page`, naming that page's URL and the source's `company` to check."""
    with serving() as site:
        site.script("/", ok_file("bamboohr_home.html", "text/html; charset=UTF-8"))
        board.script(LIST, Answer(302, b"", {"Location": site.url("/")}))
        with pytest.raises(SourceError) as caught:
            await read(board)
        assert len(site.to("/")) == 1
    assert caught.value.kind == "html_page"
    assert caught.value.url == site.url("/")
    assert "check the source's `company`" in str(caught.value)


async def test_an_html_page_in_place_of_the_list_is_html_page(board: HttpTarget) -> None:
    """An HTML page answered at the list's own URL (sent as JSON, even) is `html_page`."""
    board.script(LIST, ok_file("bamboohr_home.html", "application/json"))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert (caught.value.kind, caught.value.url) == ("html_page", board.url(LIST))


@pytest.mark.parametrize(
    "body",
    [b'{"meta": {"totalCount": 2}, "result": [{"id": "1"', b'{"meta": {}, "error": "busy"}', b'"ok"'],
    ids=["truncated", "no result", "not an object"],
)
async def test_a_malformed_list_is_malformed(board: HttpTarget, body: bytes) -> None:
    """A body that is not JSON, or JSON without a `result` list, is `malformed`, naming the URL."""
    board.script(LIST, Answer(200, body, {"Content-Type": "application/json"}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert (caught.value.kind, caught.value.url) == ("malformed", board.url(LIST))
    assert detail_paths(board) == []


@pytest.mark.parametrize("company", ["evil.example/x?", "acme.bamboohr.com", "-acme", ""])
async def test_a_company_that_is_not_a_subdomain_is_refused_before_any_request(
    board: HttpTarget, company: str
) -> None:
    """The company becomes a host name: anything but one DNS label is `not_found`, unsent."""
    with pytest.raises(SourceError) as caught:
        await read(board, company=company)
    assert caught.value.kind == "not_found"
    assert "is not a BambooHR company name" in str(caught.value)
    assert board.requests == []


@pytest.mark.parametrize(
    ("location_type", "is_remote", "workplace", "remote"),
    [
        ("0", None, "onsite", False),
        ("1", None, "remote", True),
        ("2", None, "hybrid", None),
        (2, None, "hybrid", None),
        ("2", True, "hybrid", None),
        ("0", "True", "remote", True),
        (None, True, "remote", True),
        (None, None, None, None),
        ("7", False, None, None),
    ],
)
async def test_workplace_from_location_type_and_is_remote(
    board: HttpTarget, location_type: Any, is_remote: Any, workplace: str | None, remote: bool | None
) -> None:
    """`locationType` "0"/"1"/"2" (a string or a number) is on-site/remote/hybrid; a true
    `isRemote` (a boolean or the string "True") makes a non-hybrid opening remote; an unknown
    type with no flag is unknown."""
    opening = {"id": "7", "jobOpeningName": "Role", "locationType": location_type, "isRemote": is_remote}
    board.script(LIST, ok_json({"meta": {"totalCount": 1}, "result": [opening]}))
    (listing,) = (await read(board)).listings
    assert (listing.workplace, listing.remote) == (workplace, remote)


def test_stated_pay_keeps_named_us_dollars_and_reads_country_codes() -> None:
    """A bare `$` is the opening's country's dollar (by name or code); `US$` stays US dollars;
    text with no pay gives None."""
    assert stated_pay("$28 - $34 per hour", "AU") == Salary(
        min=28, max=34, currency="AUD", interval="hour", stated="field"
    )
    assert stated_pay("US$95,000 - $115,000 per year", "Canada") == Salary(
        min=95000, max=115000, currency="USD", interval="year", stated="field"
    )
    assert stated_pay("$95,000 - $115,000 per year", "United States") == Salary(
        min=95000, max=115000, currency="USD", interval="year", stated="field"
    )
    assert stated_pay("Competitive", "Canada") is None
