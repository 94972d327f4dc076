"""The Breezy HR adapter against a real local HTTP server answering in the careers portal's shape.

`base_url` points the adapter at the server in place of `https://{company}.breezy.hr`; the
positions are in `fixtures/breezy_positions.json`.
"""

# ruff: noqa: RUF001 - en dashes are how Breezy writes pay ranges: the inputs carry them as written

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from jobsearch.listing import Listing, Salary
from jobsearch.profile import Breezy
from jobsearch.sources import Fetched, SourceError, fetch_source
from jobsearch.sources.breezy import stated_pay
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

FEED = "/json?verbose=true"


async def read(board: HttpTarget) -> Fetched:
    async with client() as http:
        return await fetch_source(http, Breezy(company="fjordline", base_url=board.url("")))


def by_id(fetched: Fetched) -> dict[str, Listing]:
    return {listing.external_id: listing for listing in fetched.listings}


async def test_every_field_of_a_full_position_is_mapped(board: HttpTarget) -> None:
    """The full position: its id, URL, decoded title, the company's name, every one of
    `locations`, a remote workplace from `remote_details`, `type.name`, the salary text read as
    the board's field, the published date, the verbose description as plain text (entities
    decoded, script and the hidden part gone, the pay as written first) and the department."""
    board.script(FEED, ok_file("breezy_positions.json"))
    fetched = await read(board)
    lead = by_id(fetched)["18df3ec23bf901"]
    assert lead.board == "breezy"
    assert lead.source == "breezy:fjordline"
    assert lead.key == "breezy:18df3ec23bf901"
    assert lead.url == "https://fjordline.breezy.hr/p/18df3ec23bf901-senior-backend-engineer-team-lead"
    assert lead.title == "Senior Backend Engineer & Team Lead"
    assert lead.company == "Fjordline Robotics, Inc."
    assert lead.locations == ["Tampa, FL", "Austin, TX"]
    assert (lead.workplace, lead.remote) == ("remote", True)
    assert lead.employment_type == "Full-Time"
    assert lead.salary == Salary(min=115000, max=145000, currency="USD", interval="year", stated="field")
    assert lead.posted_at == date(2026, 9, 14)
    assert lead.department == "Engineering & Data"
    assert lead.description == (
        "Salary: $115,000 – $145,000 / year\n\n"
        "We build warehouse robots & the software that runs them.\n\n"
        "- Python & Go\n\n- NATS JetStream\n\n"
        "Café on site — free."
    )
    assert lead.hidden_parts == 1


async def test_the_fewest_fields_and_the_lenient_shapes(board: HttpTarget) -> None:
    """A position with only an id, a title and a URL is kept with the company's name as the
    company and nothing else; one with `_id` and no `url` links to `/p/{friendly_id}` and takes
    plain-text `type`, `country` and `state` and an object `department`; a salary that is not
    text is not read. A position without a title, or with `locations` that is not a list, is
    dropped and counted."""
    board.script(FEED, ok_file("breezy_positions.json"))
    fetched = await read(board)
    assert fetched.skipped_reasons == {"no title": 1, "unexpected shape": 1}
    assert len(fetched.listings) == 6
    bare = by_id(fetched)["min1"]
    assert (bare.title, bare.url) == ("Office Manager", "https://fjordline.breezy.hr/p/min1-office-manager")
    assert (bare.company, bare.locations, bare.description) == ("fjordline", [], "")
    assert (bare.workplace, bare.remote, bare.salary, bare.posted_at) == (None, None, None, None)
    assert (bare.employment_type, bare.department) == (None, None)
    greek = by_id(fetched)["3f9e2c7a1b0d"]
    assert greek.title == "Μηχανικός Λογισμικού"
    assert greek.url == board.url("/p/3f9e2c7a1b0d-michanikos-logismikou")
    assert greek.locations == ["Αθήνα, Αττική, Greece"]
    assert (greek.workplace, greek.remote) == ("remote", True)
    assert (greek.employment_type, greek.department) == ("Contract", "Πωλήσεις")
    assert (greek.salary, greek.posted_at) == (None, date(2026, 6, 30))


async def test_workplace_pay_and_non_latin_text(board: HttpTarget) -> None:
    """`is_remote` with `remote_details.value` "hybrid" is hybrid, not remote; `is_remote: false`
    is on-site; a bare `$` in Canada is Canadian dollars; umlauts and Japanese stay as written;
    a city and state without `name` are joined with the country."""
    board.script(FEED, ok_file("breezy_positions.json"))
    jobs = by_id(await read(board))
    german = jobs["c80c266fc34a01"]
    assert german.title == "Softwareentwickler (m/w/d) für Fördertechnik"
    assert german.locations == ["München, Bayern, Germany"]
    assert (german.workplace, german.remote) == ("hybrid", None)
    assert german.salary == Salary(min=65000, max=80000, currency="EUR", interval="year", stated="field")
    assert german.department == "Forschung & Entwicklung"
    assert german.description.endswith(
        "Wir entwickeln Steuerungen für Förderbänder & Lagersysteme.\n\n"
        "Größere Verantwortung, flache Hierarchien."
    )
    cook = jobs["5a3b663b95ce"]
    assert (cook.workplace, cook.remote) == ("onsite", False)
    assert cook.salary == Salary(min=25, max=27, currency="CAD", interval="hour", stated="field")
    assert (cook.employment_type, cook.department) == ("Part-Time", None)
    japanese = jobs["7d21a0b4e9f3"]
    assert (japanese.title, japanese.locations, japanese.department) == (
        "ソフトウェアエンジニア",
        ["東京"],
        "開発部",
    )
    assert (japanese.description, japanese.salary, japanese.workplace) == ("日本語の説明", None, "onsite")


def test_a_dollar_named_as_us_dollars_stays_us_dollars() -> None:
    """Only a bare `$` takes the position's country's dollar: `US$` in Canada is US dollars, and
    a `$` in a country without its own dollar stays the reader's US dollar."""
    assert stated_pay("US$90,000 – US$110,000 / year", "CA") == Salary(
        min=90000, max=110000, currency="USD", interval="year", stated="field"
    )
    assert stated_pay("$4,000 / month", "AU") == Salary(
        min=4000, max=4000, currency="AUD", interval="month", stated="field"
    )
    assert stated_pay("$4,000 / month", "MX") == Salary(
        min=4000, max=4000, currency="USD", interval="month", stated="field"
    )
    assert stated_pay("Competitive", "US") is None


async def test_one_request_reads_the_whole_board(board: HttpTarget) -> None:
    """The board is one request, `GET /json?verbose=true` asking for JSON with our User-Agent,
    and the read is complete: Breezy does not page, so no cap can stop it."""
    board.script(FEED, ok_file("breezy_positions.json"))
    fetched = await read(board)
    assert fetched.complete is True
    assert [(r.method, r.path) for r in board.requests] == [("GET", FEED)]
    sent = board.to(FEED)[0].headers
    assert sent["accept"] == "application/json"
    assert sent["user-agent"].startswith("jobsearch/")


async def test_an_empty_board(board: HttpTarget) -> None:
    """A company with no open positions answers `[]`: no listings, and a whole read."""
    board.script(FEED, ok_json([]))
    assert await read(board) == Fetched(listings=[], skipped=0, skipped_reasons={}, complete=True)


async def test_a_wrong_company_is_not_found(board: HttpTarget) -> None:
    """A 404 is `not_found`, not retried, naming the URL."""
    board.script(FEED, Answer(404, b"Career portal not found", {"Content-Type": "text/plain"}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "not_found"
    assert caught.value.url == board.url(FEED)
    assert str(caught.value) == (
        "breezy: HTTP 404: no such board (check the source's name or token) at " + board.url(FEED)
    )
    assert len(board.to(FEED)) == 1


async def test_a_redirect_to_breezys_home_page_is_not_found(board: HttpTarget) -> None:
    """A company Breezy does not know is sent to its home page: `not_found`, naming where it was
    sent and saying to check the company name, at the URL asked for."""
    board.script(FEED, Answer(302, b"", {"Location": "/"}))
    board.script("/", ok_file("breezy_home.html", "text/html; charset=utf-8"))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "not_found"
    assert caught.value.url == board.url(FEED)
    assert f"sent to {board.url('/')}" in str(caught.value)
    assert "check the source's `company`" in str(caught.value)
    assert [r.path for r in board.requests] == [FEED, "/"]


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'[{"id": "18df3ec23bf901", "name": "Senior', "answered with malformed JSON"),
        (b'{"error": "company not found"}', "answered with JSON that is not a list of positions"),
    ],
)
async def test_a_malformed_body(board: HttpTarget, body: bytes, detail: str) -> None:
    """Truncated JSON, or JSON that is not the positions array, is `malformed`."""
    board.script(FEED, Answer(200, body, {"Content-Type": "application/json"}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    error: Any = caught.value
    assert (error.kind, error.url) == ("malformed", board.url(FEED))
    assert error.detail.startswith(detail)
