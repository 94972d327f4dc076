"""The job boards: one module per board, each mapping its board's API shape to `Listing`.

```python
async with BoardHttp() as http:
    fetched = await fetch_source(http, Greenhouse(token="acme"))
fetched.listings, fetched.skipped_reasons
```
Every failure to read a board is a `SourceError` (`jobsearch.sources.errors`). The fetch stage
(`jobsearch.fetch`) is the only user; this package knows nothing of NATS or jobs.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio.to_thread

from jobsearch.profile import (
    Arbeitnow,
    Ashby,
    BambooHR,
    Breezy,
    Greenhouse,
    HackerNews,
    JobPosting,
    Lever,
    Personio,
    Recruitee,
    RemoteOK,
    Remotive,
    Rss,
    Sample,
    SmartRecruiters,
    Source,
    Workable,
    Workday,
    source_name,
)
from jobsearch.sources import (
    arbeitnow,
    ashby,
    bamboohr,
    breezy,
    greenhouse,
    hackernews,
    jobposting,
    lever,
    personio,
    recruitee,
    remoteok,
    remotive,
    rss,
    sample,
    smartrecruiters,
    workable,
    workday,
)
from jobsearch.sources.errors import FailureKind, SourceError
from jobsearch.sources.fetched import Fetched
from jobsearch.sources.http import USER_AGENT, BoardHttp, HttpPolicy

__all__ = ["USER_AGENT", "BoardHttp", "FailureKind", "Fetched", "HttpPolicy", "SourceError", "fetch_source"]


async def fetch_source(  # noqa: PLR0911, PLR0912 - one exit per board
    http: BoardHttp, source: Source, *, terms: Sequence[str] = ()
) -> Fetched:
    """Read one source's board: its listings, and the postings dropped and why.

    `terms` are the profile's search terms, for the boards read through their own search (Workday).

    Raises:
        SourceError: the board could not be read (wrong name, server error after retries,
            malformed body, HTML error page, body too large, timeout).
    """
    name = source_name(source)
    match source:
        case Greenhouse():
            return await greenhouse.fetch(http, source, name)
        case Lever():
            return await lever.fetch(http, source, name)
        case Ashby():
            return await ashby.fetch(http, source, name)
        case Workable():
            return await workable.fetch(http, source, name)
        case SmartRecruiters():
            return await smartrecruiters.fetch(http, source, name)
        case RemoteOK():
            return await remoteok.fetch(http, source, name)
        case Remotive():
            return await remotive.fetch(http, source, name)
        case Arbeitnow():
            return await arbeitnow.fetch(http, source, name)
        case HackerNews():
            return await hackernews.fetch(http, source, name)
        case Rss():
            return await rss.fetch(http, source, name)
        case Workday():
            return await workday.fetch(http, source, name, terms=terms)
        case Personio():
            return await personio.fetch(http, source, name)
        case Recruitee():
            return await recruitee.fetch(http, source, name)
        case BambooHR():
            return await bamboohr.fetch(http, source, name)
        case Breezy():
            return await breezy.fetch(http, source, name)
        case JobPosting():
            return await jobposting.fetch(http, source, name)
        case Sample():
            # Generating tens of thousands of postings is seconds of CPU: off the event loop, so
            # the worker's heartbeats and lease extensions go on meanwhile.
            return await anyio.to_thread.run_sync(sample.fetch, source, name)
