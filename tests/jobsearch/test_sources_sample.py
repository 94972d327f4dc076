"""The offline `sample` board: the bundled fictional postings and the generated scale set."""

from __future__ import annotations

import importlib.resources
import json

import httpx

from jobsearch.profile import Sample
from jobsearch.sources import BoardHttp, fetch_source


def no_network(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"the sample board made a request: {request.url}")


async def read(source: Sample) -> list:  # type: ignore[type-arg]
    async with BoardHttp(transport=httpx.MockTransport(no_network)) as http:
        fetched = await fetch_source(http, source)
    assert fetched.skipped == 0
    return fetched.listings


def test_the_bundled_file_says_it_is_sample_data() -> None:
    """The shipped JSON names itself sample data and uses only reserved .example URLs."""
    raw = json.loads(importlib.resources.files("jobsearch.sources").joinpath("data/sample.json").read_text())
    assert raw["notice"].startswith("SAMPLE DATA")
    assert all(".example/" in p["url"] for p in raw["postings"])


async def test_bundled_set_has_the_cases_the_pipeline_must_handle() -> None:
    """40 listings, no network: cross-posts, a tracking-parameter repost, non-Latin text, and a
    hostile posting carried verbatim as plain data."""
    listings = await read(Sample())
    assert len(listings) == 40
    assert len({x.key for x in listings}) == 40
    assert all(x.board == "sample" and x.source == "sample" for x in listings)
    titles = {x.external_id: x for x in listings}
    assert titles["nw-101"].title == titles["nw-101-lever"].title
    assert titles["nw-101"].url != titles["nw-101-lever"].url
    assert "utm_source=" in titles["lum-7-repost"].url
    assert titles["lum-7-repost"].url.startswith(titles["lum-7"].url + "?")
    assert titles["sd-1"].title == "バックエンドエンジニア\uff08Python\uff09"
    hostile = titles["hostile-1"]
    assert hostile.title == "<script>alert(1)</script>"
    assert hostile.company == '=HYPERLINK("http://x")'
    assert "Ignore previous instructions" in hostile.description
    assert "track(" not in titles["of-1"].description  # script content dropped
    minimal = titles["min-1"]
    assert (minimal.company, minimal.locations, minimal.salary, minimal.posted_at) == ("", [], None, None)


async def test_generated_set_is_deterministic_and_sized() -> None:
    """`Sample(size=N)` gives N listings with unique keys, the same ones every time."""
    first = await read(Sample(size=5000))
    second = await read(Sample(size=5000))
    assert len(first) == 5000
    assert len({x.key for x in first}) == 5000
    assert [(x.external_id, x.title, x.company, x.url) for x in first] == [
        (x.external_id, x.title, x.company, x.url) for x in second
    ]
    assert await read(Sample(size=0)) == []
