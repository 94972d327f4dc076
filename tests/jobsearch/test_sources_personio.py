"""Personio's XML feed against a real local HTTP server: every field, the fewest, non-Latin text,
entities and CDATA, the pay field, the hardened parser (no entity expansion, no external entity),
and each way a read fails."""

from __future__ import annotations

from datetime import date

import pytest

from jobsearch.listing import Salary
from jobsearch.profile import Personio
from jobsearch.sources import SourceError, fetch_source
from jobsearch.sources.fetched import Fetched
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, ok_file

__all__ = ["board"]  # the fixture, imported for the tests below

XML = "application/xml; charset=utf-8"
FEED = "personio_positions.xml"


async def read(target: HttpTarget, language: str | None = None) -> Fetched:
    async with client() as http:
        source = Personio(company="kestrel", language=language, base_url=target.url(""))
        return await fetch_source(http, source)


async def refused(target: HttpTarget, answer: Answer) -> SourceError:
    """The SourceError reading a feed that answers `answer` raises."""
    target.script("/xml", answer)
    with pytest.raises(SourceError) as caught:
        await read(target)
    return caught.value


async def test_every_field_of_a_full_position(board: HttpTarget) -> None:
    """A position with every element: entities (`&amp;`, `&#252;`, `&#8211;`) decoded, the offices
    in order, remote read from an office's name, type and schedule in words, `createdAt` with a
    `+0200` offset, the sections in order under their names as plain text (the hidden paragraph
    left out and counted), and `salaryInformation` as the pay, not the amount the text names."""
    board.script("/xml", ok_file(FEED, XML))
    full = (await read(board)).listings[0]
    assert full.board == "personio"
    assert full.source == "personio:kestrel"
    assert full.external_id == "2800938"
    assert full.url == "https://kestrel.jobs.personio.de/job/2800938"  # the public host, not the mirror
    assert full.title == "Senior Backend Engineer (m/w/d) \u2013 Python & Go"
    assert full.company == "Kestrel Energie GmbH & Co. KG"
    assert full.locations == ["Berlin", "München", "Berlin (Remote)"]
    assert (full.workplace, full.remote) == ("remote", True)
    assert full.employment_type == "Permanent, full-time"
    assert full.department == "Engineering"
    assert full.posted_at == date(2026, 10, 21)
    assert full.salary == Salary(min=70000.0, max=85000.0, currency="EUR", interval="year", stated="field")
    assert full.description == (
        "Deine Aufgaben\nDu baust unsere Abrechnungsplattform in Python & Go.\n\n"
        "- PostgreSQL & Kafka\n\n- Größere Systeme\n\n"
        "Dein Profil\n5+ Jahre Erfahrung.\nGehaltsvorstellung: 60.000 € brutto/Jahr ist zu wenig.\n\n"
        "Warum wir?\nBüro in Kreuzberg, 30 Tage Urlaub."
    )
    assert full.hidden_parts == 1


async def test_the_fewest_fields_non_latin_text_and_pay(board: HttpTarget) -> None:
    """A position with only an id and a name is kept with the company word; Greek and Japanese text
    is kept; escaped HTML outside CDATA becomes text; a pay field without a maximum keeps its
    monthly interval; an unreadable amount gives way to the pay the text states; unknown codes are
    spelled out; a position without an id, and one listed twice, are dropped and counted."""
    board.script("/xml", ok_file(FEED, XML))
    fetched = await read(board)
    assert fetched.skipped_reasons == {"no id": 1, "repeated on the board": 1}
    assert [listing.external_id for listing in fetched.listings] == [
        "2800938", "2800941", "2800950", "2800977", "2800990",
    ]  # fmt: skip
    _, minimal, greek, japanese, seasonal = fetched.listings
    assert minimal.title == "Werkstudent:in Datenanalyse"
    assert (minimal.company, minimal.locations, minimal.description) == ("kestrel", [], "")
    assert (minimal.employment_type, minimal.salary, minimal.posted_at) == (None, None, None)
    assert (minimal.department, minimal.workplace, minimal.remote) == (None, None, None)
    assert greek.title == "Μηχανικός Λογισμικού"
    assert greek.company == "Kestrel Hellas Μονοπρόσωπη Α.Ε."  # noqa: RUF001 - Greek letters meant
    assert (greek.locations, greek.department) == (["Αθήνα"], "Λογισμικό")
    assert greek.employment_type == "Working student, part-time"
    assert greek.description == "Περιγραφή\nΟμάδα & πλατφόρμα"  # noqa: RUF001 - Greek letters meant
    assert greek.posted_at == date(2026, 10, 30)
    assert japanese.title == "ソフトウェアエンジニア"
    assert (japanese.company, japanese.locations) == ("Kestrel Japan 株式会社", ["東京"])
    assert japanese.employment_type == "Temporary, full- or part-time"
    assert japanese.description == "仕事内容\n日本語の説明"
    assert japanese.salary == Salary(min=400000.0, max=None, currency="JPY", interval="month")
    assert seasonal.employment_type == "Seasonal worker, flexible"
    assert seasonal.salary == Salary(min=15.0, max=15.0, currency="EUR", interval="hour", stated="text")


async def test_one_request_reads_the_whole_feed(board: HttpTarget) -> None:
    """The feed has no paging: one GET of `/xml`, asking for XML, and the read is complete."""
    board.script("/xml", ok_file(FEED, XML))
    fetched = await read(board)
    assert fetched.complete is True
    assert [(r.method, r.path) for r in board.requests] == [("GET", "/xml")]
    assert board.requests[0].headers["accept"].startswith("application/xml")
    assert board.requests[0].headers["user-agent"].startswith("jobsearch/")


async def test_the_language_is_asked_for_and_kept_in_the_link(board: HttpTarget) -> None:
    """`language` is sent as `?language=` and kept in each position's link."""
    board.script("/xml?language=en", ok_file(FEED, XML))
    fetched = await read(board, language="en")
    assert fetched.listings[0].url == "https://kestrel.jobs.personio.de/job/2800938?language=en"
    assert [r.path for r in board.requests] == ["/xml?language=en"]


async def test_an_empty_feed_is_a_whole_read_of_nothing(board: HttpTarget) -> None:
    """A company with nothing published answers an empty root: no listings, nothing skipped."""
    board.script("/xml", Answer(200, b'<?xml version="1.0"?>\n<workzag-jobs/>', {"Content-Type": XML}))
    fetched = await read(board)
    assert (fetched.listings, fetched.skipped, fetched.complete) == ([], 0, True)


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<workzag-jobs><position><id>1</id><name>&lol4;</name></position></workzag-jobs>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<workzag-jobs><position><id>1</id><name>&xxe;</name></position></workzag-jobs>"""


@pytest.mark.parametrize("body", [BOMB, EXTERNAL], ids=["entity-expansion", "external-entity"])
async def test_a_feed_with_a_dtd_or_entities_is_refused_unread(board: HttpTarget, body: bytes) -> None:
    """An entity bomb and an external entity are `malformed`, refused before any entity is read."""
    error = await refused(board, Answer(200, body, {"Content-Type": XML}))
    assert error.kind == "malformed"
    assert error.detail == "sent XML with a DTD or entities, refused unread (DTDForbidden)"
    assert error.url == board.url("/xml")
    assert "root:" not in str(error)


async def test_a_wrong_company_is_not_found(board: HttpTarget) -> None:
    """A company Personio does not know answers 404: `not_found`, naming the feed's URL."""
    error = await refused(board, Answer(404, b"<html>Page not found</html>", {"Content-Type": "text/html"}))
    assert error.kind == "not_found"
    assert error.url == board.url("/xml")
    assert len(board.to("/xml")) == 1  # not retried


async def test_an_html_page_instead_of_the_feed(board: HttpTarget) -> None:
    """An HTML page where the feed was expected is `html_page`: after a redirect to Personio's
    marketing site (named by the URL it came from), and one that starts with a comment."""
    page = Answer(200, b"<!DOCTYPE html><html><body>Personio</body></html>", {"Content-Type": "text/html"})
    error = await refused(board, page)
    assert (error.kind, error.url) == ("html_page", board.url("/xml"))
    assert error.detail == "answered with an HTML page, not its XML feed (check `company`)"
    board.script("/en/", page)
    error = await refused(board, Answer(307, b"", {"Location": board.url("/en/")}))
    assert (error.kind, error.url) == ("html_page", board.url("/en/"))
    body = b"<!-- edge --><html><head><title>Jobs</title></head><body><p>Jobs</body></html>"
    error = await refused(board, Answer(200, body, {"Content-Type": "text/html; charset=utf-8"}))
    assert error.kind == "html_page"


async def test_a_body_that_is_not_the_feed_is_malformed(board: HttpTarget) -> None:
    """Broken XML, an empty body and XML with another root are `malformed`, saying which."""
    error = await refused(board, Answer(200, b"<workzag-jobs><position><id>1</id>", {"Content-Type": XML}))
    assert error.kind == "malformed"
    assert error.detail.startswith("answered with malformed XML (")
    error = await refused(board, Answer(200, b"", {"Content-Type": XML}))
    assert error.kind == "malformed"
    error = await refused(board, Answer(200, b"<rss><channel/></rss>", {"Content-Type": XML}))
    assert (error.kind, error.detail) == (
        "malformed",
        "answered with <rss>, not Personio's <workzag-jobs> feed",
    )
