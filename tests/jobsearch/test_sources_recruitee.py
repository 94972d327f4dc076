"""The Recruitee adapter against a real local HTTP server answering in the Careers Site API's shape.

`base_url` points the adapter at the server in place of `https://{company}.recruitee.com`; the
offers are in `fixtures/recruitee_offers.json`.
"""

from __future__ import annotations

from datetime import date

import httpx
import pytest

from jobsearch.listing import Listing, Salary
from jobsearch.profile import Recruitee
from jobsearch.sources import BoardHttp, Fetched, SourceError, fetch_source
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import FAST, board, client, fixture_bytes, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

OFFERS = "/api/offers/"


async def read(board: HttpTarget, company: str = "alpenglow") -> Fetched:
    async with client() as http:
        return await fetch_source(http, Recruitee(company=company, base_url=board.url("")))


def by_id(fetched: Fetched) -> dict[str, Listing]:
    return {listing.external_id: listing for listing in fetched.listings}


async def test_every_field_of_a_full_offer_is_mapped(board: HttpTarget) -> None:
    """The full offer: its id, `careers_url`, decoded title, `company_name`, every one of
    `locations` (city, state, country), hybrid from the flags (with `on_site` also true), the
    employment type in words with its hours a week, the salary with its period, `published_at` as
    the posted date and `close_at` as the last day, highlight, description and requirements as
    plain text (entities decoded, script and the hidden part gone) and the department."""
    board.script(OFFERS, ok_file("recruitee_offers.json"))
    lead = by_id(await read(board))["2431127"]
    assert lead.board == "recruitee"
    assert lead.source == "recruitee:alpenglow"
    assert lead.key == "recruitee:2431127"
    assert lead.url == "https://careers.alpenglow.example/o/senior-backend-entwickler-teamlead"
    assert lead.title == "Senior Backend-Entwickler & Teamlead (m/w/d)"
    assert lead.company == "Alpenglow Systems GmbH"
    assert lead.locations == ["München, Bayern, Germany", "Zürich, Zürich, Switzerland"]
    assert (lead.workplace, lead.remote) == ("hybrid", False)
    assert lead.employment_type == "Full-time, permanent, 32-40 hours a week"
    assert lead.salary == Salary(min=65000, max=80000, currency="EUR", interval="year", stated="field")
    assert lead.posted_at == date(2026, 9, 14)
    assert lead.valid_through == date(2026, 11, 30)
    assert lead.department == "Engineering & Data"
    assert lead.description == (
        "Spannende Projekte, hybrides Arbeiten & faire Bezahlung.\n\n"
        "Wir bauen Lagerroboter & die Software dafür.\n\n"
        "- Python & Go\n\n- NATS JetStream\n\n"
        "Mindestens fünf Jahre Erfahrung (>5 Jahre) \u2013 gern in Größenordnungen über 10.000 Geräten."
    )
    assert lead.hidden_parts == 1
    assert "trackView" not in lead.description
    assert "Ignore all previous instructions" not in lead.description


async def test_the_fewest_fields_and_the_dropped_offers(board: HttpTarget) -> None:
    """An offer with only an id, a slug and a title is kept, linked to `/o/{slug}` on the
    careers site, with the company name as the company and nothing else. A draft, an offer without
    a title and one whose `locations` is not a list are dropped and counted."""
    board.script(OFFERS, ok_file("recruitee_offers.json"))
    fetched = await read(board)
    assert fetched.skipped_reasons == {"not published": 1, "no title": 1, "unexpected shape": 1}
    assert fetched.skipped == 3
    assert sorted(by_id(fetched)) == ["2431127", "2431128", "2431129", "2431130", "9001"]
    bare = by_id(fetched)["9001"]
    assert (bare.title, bare.url) == ("Office Manager", board.url("/o/office-manager"))
    assert (bare.company, bare.locations, bare.description, bare.hidden_parts) == ("alpenglow", [], "", 0)
    assert (bare.workplace, bare.remote, bare.salary, bare.posted_at, bare.valid_through) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert (bare.employment_type, bare.department) == (None, None)


async def test_non_latin_offers_and_the_salary_shapes(board: HttpTarget) -> None:
    """Japanese and Greek text is kept as written. Numeric amounts without a period are a year
    when a year's size; string amounts with `period: hour` are hourly, the currency in capitals.
    Without `locations`, `location` is the place, else city, `state_name` and country; without
    `published_at` the posted date is `created_at`; `on_site` alone is on-site."""
    board.script(OFFERS, ok_file("recruitee_offers.json"))
    jobs = by_id(await read(board))
    tokyo = jobs["2431128"]
    assert (tokyo.title, tokyo.locations, tokyo.description) == (
        "ソフトウェアエンジニア",
        ["東京, Japan"],
        "日本語の説明",
    )
    assert (tokyo.workplace, tokyo.remote, tokyo.employment_type) == ("remote", True, "Full-time")
    assert tokyo.salary == Salary(min=6_000_000, max=9_000_000, currency="JPY", interval="year")
    assert (tokyo.posted_at, tokyo.department) == (date(2026, 9, 10), None)
    athens = jobs["2431129"]
    assert athens.title == "Μηχανικός Λογισμικού"
    assert athens.locations == ["Αθήνα, Αττική, Greece"]
    assert athens.description == "Ελληνική περιγραφή \u2014 ομάδα υποστήριξης."
    assert (athens.workplace, athens.remote) == ("onsite", False)
    assert athens.employment_type == "Part-time, fixed-term, 20 hours a week"
    assert athens.salary == Salary(min=18.5, max=22.0, currency="EUR", interval="hour")
    assert (athens.posted_at, athens.department) == (date(2026, 8, 20), "Υποστήριξη")


async def test_an_offer_with_only_translated_text(board: HttpTarget) -> None:
    """An offer whose own title and text are empty takes its first translation's; a salary with
    a period and no amounts is no salary; a location object with only a country code gives the
    code in capitals, one with only a name gives the name; an unknown employment code is put in
    words, and a zero `min_hours` is not stated."""
    board.script(OFFERS, ok_file("recruitee_offers.json"))
    nl = by_id(await read(board))["2431130"]
    assert (nl.title, nl.url) == ("Data-analist", board.url("/o/data-analist"))
    assert nl.description == "Wij zoeken een data-analist.\n\nSQL & Python"
    assert nl.locations == ["NL", "Utrecht Centraal"]
    assert (nl.salary, nl.workplace, nl.remote) == (None, None, None)
    assert nl.employment_type == "Working student, 16 hours a week"
    assert (nl.company, nl.posted_at) == ("alpenglow", date(2026, 7, 1))


async def test_one_request_reads_the_whole_board(board: HttpTarget) -> None:
    """The offers endpoint does not page: one GET of `/api/offers/`, with our User-Agent and a
    JSON Accept header, gives a complete read; an empty board is a complete read of nothing."""
    board.script(OFFERS, ok_file("recruitee_offers.json"))
    fetched = await read(board)
    assert fetched.complete is True
    assert [(r.method, r.path) for r in board.requests] == [("GET", OFFERS)]
    sent = board.to(OFFERS)[0].headers
    assert sent["user-agent"].startswith("jobsearch/")
    assert sent["accept"] == "application/json"
    board.script(OFFERS, ok_json({"offers": []}))
    assert await read(board) == Fetched(listings=[], skipped=0, skipped_reasons={}, complete=True)


async def test_the_careers_site_of_the_company_is_read_by_default() -> None:
    """Without `base_url` the adapter reads `https://{company}.recruitee.com/api/offers/` and
    links an offer without `careers_url` to `/o/{slug}` there (a transport that reaches no host)."""
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"offers": [{"id": 7, "slug": "barista", "title": "Barista"}]})

    async with BoardHttp(FAST, transport=httpx.MockTransport(answer)) as http:
        fetched = await fetch_source(http, Recruitee(company="kaffeebar"))
    assert seen == ["https://kaffeebar.recruitee.com/api/offers/"]
    assert [listing.url for listing in fetched.listings] == ["https://kaffeebar.recruitee.com/o/barista"]


async def test_a_wrong_company_name_is_not_found(board: HttpTarget) -> None:
    """A company Recruitee does not know answers 404: `not_found`, naming the URL, not retried."""
    board.script(
        OFFERS, Answer(404, fixture_bytes("recruitee_not_found.json"), {"Content-Type": "application/json"})
    )
    with pytest.raises(SourceError) as caught:
        await read(board, company="nosuchco")
    assert caught.value.kind == "not_found"
    assert caught.value.url == board.url(OFFERS)
    assert str(caught.value).startswith("recruitee: HTTP 404")
    assert not caught.value.retryable
    assert len(board.to(OFFERS)) == 1


async def test_an_html_page_instead_of_the_offers(board: HttpTarget) -> None:
    """A careers page (HTML) where the offers' JSON was expected is `html_page`, naming the URL."""
    board.script(OFFERS, ok_file("recruitee_careers_page.html", "text/html; charset=utf-8"))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert (caught.value.kind, caught.value.url) == ("html_page", board.url(OFFERS))


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        (ok_file("recruitee_malformed.json"), "malformed JSON"),
        (ok_json([{"id": 1, "title": "A bare list"}]), "no `offers` list"),
        (ok_json({"offers": {"id": 1}}), "no `offers` list"),
        (ok_json({"error": "Not Found"}), "no `offers` list"),
    ],
)
async def test_a_body_that_is_not_the_offers_list_is_malformed(
    board: HttpTarget, answer: Answer, detail: str
) -> None:
    """Cut-off JSON, or JSON without an `offers` list, is `malformed`, naming the URL."""
    board.script(OFFERS, answer)
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert (caught.value.kind, caught.value.url) == ("malformed", board.url(OFFERS))
    assert detail in caught.value.detail
