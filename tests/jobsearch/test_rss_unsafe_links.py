"""RSS items whose link would run script or render in place (`javascript:`, `data:`) are dropped
and counted, so the run's report says how many a feed gave, not only the postings it kept."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from jobsearch.fetch import service
from jobsearch.jobs import ListingBatchJob, SourceJob
from jobsearch.listing import Listing
from jobsearch.profile import Person, Profile, Rss
from jobsearch.run.summary import source_skip_lines
from jobsearch.sources import BoardHttp
from jobsearch.sources.rss import UNSAFE_LINK
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import FAST, board

__all__ = ["board"]  # the fixture, imported for the tests below

FEED = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Remote Desk</title><link>https://remotedesk.example/</link>
<item><title>Backend Engineer at Corvid Labs</title><guid>rd-1</guid>
  <link>https://remotedesk.example/jobs/1</link><description>Python and NATS.</description></item>
<item><title>Platform Engineer at Evil Corp</title><guid>rd-2</guid>
  <link>javascript:alert(document.cookie)</link><description>Apply now.</description></item>
<item><title>SRE at Evil Corp</title><guid>rd-3</guid>
  <link>data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==</link></item>
<item><title>Data Engineer at Evil Corp</title><guid>rd-4</guid>
  <link> JavaScript:alert(1)</link></item>
<item><title>Designer at Evil Corp</title><guid>rd-5</guid><link>java&#9;script:alert(1)</link></item>
<item><title>Frontend Engineer at Lumen Health</title><guid>rd-6</guid>
  <link>https://remotedesk.example/jobs/6</link></item>
<item><title>QA Engineer at Nowhere</title><guid>rd-7</guid><link>ftp://remotedesk.example/7</link></item>
</channel></rss>
"""


async def read_feed(board: HttpTarget) -> tuple[dict[str, Any], list[Listing]]:
    """The fetch stage's read of the feed from a real local server: the source job's result as the
    ledger keeps it (JSON), and the listings it submitted."""
    board.script("/jobs.rss", Answer(200, FEED.encode(), {"Content-Type": "application/rss+xml"}))
    job = SourceJob(
        run_id="r1", source=Rss(url=board.url("/jobs.rss")), profile=Profile(person=Person(name="Sam"))
    )
    submitted: list[Listing] = []

    async def submit(jobs: Sequence[ListingBatchJob]) -> list[bool]:
        for batch in jobs:
            submitted.extend(batch.listings)
        return [False] * len(jobs)

    async with BoardHttp(FAST) as http:
        report = await service.read_source(job, http, submit)
    result: dict[str, Any] = json.loads(msgspec.json.encode(report))
    return result, submitted


async def test_javascript_and_data_links_are_dropped_and_counted(board: HttpTarget) -> None:
    """Of seven items, the two with web links become listings; the four whose link is `javascript:`
    or `data:` (in any case, with a space before it or a tab inside it) are counted under their own
    reason, and the `ftp:` one as having no web address."""
    result, listings = await read_feed(board)
    assert [(x.title, x.company, x.url) for x in listings] == [
        ("Backend Engineer", "Corvid Labs", "https://remotedesk.example/jobs/1"),
        ("Frontend Engineer", "Lumen Health", "https://remotedesk.example/jobs/6"),
    ]
    assert result["skipped_reasons"] == {UNSAFE_LINK: 4, "no url": 1}
    assert result["skipped"] == 5
    assert all("evil" not in x.company.lower() for x in listings)


async def test_the_run_summary_names_the_unsafe_links(board: HttpTarget) -> None:
    """The run's report has a line for the feed saying how many unsafe links it dropped."""
    result, _ = await read_feed(board)
    [line] = source_skip_lines([result])
    assert line == f"{result['source']}: 2 postings; 4 unsafe link (javascript:/data:), 1 no url"
