"""Personio's XML feed against a local server: every field, the fewest, non-Latin text, entities,
the hardened parser (no entity expansion, no external entity), and the failures."""

from __future__ import annotations

from datetime import date

import pytest

from jobsearch.profile import Personio
from jobsearch.sources import SourceError, fetch_source
from jobsearch.sources.fetched import Fetched
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, ok_file

__all__ = ["board"]

XML = "application/xml; charset=utf-8"


async def read(target: HttpTarget, **fields: str) -> Fetched:
    async with client() as http:
        return await fetch_source(http, Personio(company="kestrel", base_url=target.url(""), **fields))


async def test_every_field_of_a_full_position_and_the_fewest(board: HttpTarget) -> None:
    board.script("/xml", ok_file("personio_feed.xml", XML))
    fetched = await read(board)
    assert fetched.skipped_reasons == {"no id": 1}
    assert fetched.complete
    full, minimal, greek = fetched.listings
    assert full.board == "personio"
    assert full.source == "personio:kestrel"
    assert full.external_id == "1843211"
    assert full.url == "https://kestrel.jobs.personio.de/job/1843211"
    assert full.title == "Senior Backend Engineer (m/w/d) \u2013 Python & Go"
    assert full.company == "Kestrel Health GmbH"
    assert full.locations == ["Berlin", "München", "Remote (Germany)"]
    assert full.workplace == "remote"
    assert full.employment_type == "Permanent, full-time"
    assert full.department == "Engineering"
    assert full.posted_at == date(2026, 11, 28)
    # The sections in order, each under its heading; the hidden paragraph left out and counted.
    assert full.description.startswith("Deine Aufgaben\n")
    assert "Python & Go" in full.description
    assert full.description.index("Deine Aufgaben") < full.description.index("Dein Profil")
    assert "Ignore previous instructions" not in full.description
    assert full.hidden_parts == 1
    assert full.salary is not None
    assert (full.salary.min, full.salary.max, full.salary.currency, full.salary.interval) == (
        70000.0, 85000.0, "EUR", "year",
    )  # fmt: skip
    assert minimal.title == "Werkstudent:in Datenanalyse"
    assert minimal.company == "kestrel"
    assert minimal.locations == []
    assert minimal.description == ""
    assert minimal.employment_type is None
    assert greek.title == "Μηχανικός Λογισμικού"
    assert greek.locations == ["Αθήνα"]
    assert greek.employment_type == "Working student, part-time"
    assert "Ομάδα & πλατφόρμα" in greek.description
    assert greek.posted_at == date(2026, 11, 30)


async def test_the_language_is_asked_for_and_kept_in_the_link(board: HttpTarget) -> None:
    board.script("/xml?language=en", ok_file("personio_feed.xml", XML))
    fetched = await read(board, language="en")
    assert fetched.listings[0].url == "https://kestrel.jobs.personio.de/job/1843211?language=en"
    assert [r.path for r in board.requests] == ["/xml?language=en"]


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<workzag-jobs><position><id>1</id><name>&lol3;</name></position></workzag-jobs>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<workzag-jobs><position><id>1</id><name>&xxe;</name></position></workzag-jobs>"""


@pytest.mark.parametrize("body", [BOMB, EXTERNAL], ids=["entity-expansion", "external-entity"])
async def test_a_feed_with_a_dtd_or_entities_is_refused_unread(board: HttpTarget, body: bytes) -> None:
    board.script("/xml", Answer(200, body, {"Content-Type": XML}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "malformed"
    assert "DTD or entities" in str(caught.value)
    assert "root:" not in str(caught.value)


async def test_wrong_company_html_page_and_malformed_xml(board: HttpTarget) -> None:
    async with client() as http:
        with pytest.raises(SourceError) as caught:
            await fetch_source(http, Personio(company="nobody", base_url=board.url("")))
    assert caught.value.kind == "not_found"
    assert caught.value.url == board.url("/xml")
    board.script(
        "/xml", Answer(200, b"<!DOCTYPE html><html><body>Jobs</body></html>", {"Content-Type": "text/html"})
    )
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "html_page"
    board.script("/xml", Answer(200, b"<workzag-jobs><position><id>1</id>", {"Content-Type": XML}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert caught.value.kind == "malformed"
    assert "malformed XML" in str(caught.value)
    board.script("/xml", Answer(200, b"<rss><channel/></rss>", {"Content-Type": XML}))
    with pytest.raises(SourceError) as caught:
        await read(board)
    assert "not Personio's <workzag-jobs> feed" in str(caught.value)
