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

import anyio.to_thread

from jobsearch.profile import (
    Arbeitnow,
    Ashby,
    Greenhouse,
    HackerNews,
    Lever,
    RemoteOK,
    Remotive,
    Rss,
    Sample,
    SmartRecruiters,
    Source,
    Workable,
    source_name,
)
from jobsearch.sources import (
    arbeitnow,
    ashby,
    greenhouse,
    hackernews,
    lever,
    remoteok,
    remotive,
    rss,
    sample,
    smartrecruiters,
    workable,
)
from jobsearch.sources.errors import FailureKind, SourceError
from jobsearch.sources.fetched import Fetched
from jobsearch.sources.http import USER_AGENT, BoardHttp, HttpPolicy

__all__ = ["USER_AGENT", "BoardHttp", "FailureKind", "Fetched", "HttpPolicy", "SourceError", "fetch_source"]


async def fetch_source(http: BoardHttp, source: Source) -> Fetched:  # noqa: PLR0911 - one exit per board
    """Read one source's board: its listings, and the postings dropped and why.

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
        case Sample():
            # Generating tens of thousands of postings is seconds of CPU: off the event loop, so
            # the worker's heartbeats and lease extensions go on meanwhile.
            return await anyio.to_thread.run_sync(sample.fetch, source, name)
