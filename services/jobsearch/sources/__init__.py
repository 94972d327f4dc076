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

import importlib

from jobsearch.profile import Sample, Source, source_name
from jobsearch.sources import sample
from jobsearch.sources.errors import FailureKind, SourceError
from jobsearch.sources.fetched import Fetched
from jobsearch.sources.http import USER_AGENT, BoardHttp, HttpPolicy

__all__ = ["USER_AGENT", "BoardHttp", "FailureKind", "Fetched", "HttpPolicy", "SourceError", "fetch_source"]


async def fetch_source(http: BoardHttp, source: Source) -> Fetched:
    """Read one source's board: its listings, and the postings dropped and why.

    Raises:
        SourceError: the board could not be read (wrong name, server error after retries,
            malformed body, HTML error page, body too large, timeout).
    """
    name = source_name(source)
    if isinstance(source, Sample):
        return sample.fetch(source, name)
    board = type(source).__struct_config__.tag
    try:
        module = importlib.import_module(f"jobsearch.sources.{board}")
    except ModuleNotFoundError:
        raise SourceError(str(board), "refused", "this board is not supported yet") from None
    fetched: Fetched = await module.fetch(http, source, name)
    return fetched
