"""What the fetch stage's jobs leave in the ledger as their result."""

from __future__ import annotations

import msgspec

from jobsearch.sources.fetched import Extraction


class SourceReport(msgspec.Struct, kw_only=True, frozen=True):
    """The result of one `jobsearch.source` job: what one board gave and where it went."""

    source: str
    board: str
    listings: int  # usable postings the board gave
    submitted: int  # new `jobsearch.listing` jobs
    duplicates: int  # listing jobs already submitted inside the stream's duplicate window
    skipped: int  # postings dropped (no title, no URL, unexpected shape...)
    skipped_reasons: dict[str, int] = {}
    seconds: float = 0.0
    complete: bool = True  # the board was read to its end (a page cap stopped it: False)
    # Parts of the listings' descriptions nobody sees (hidden by their markup), removed from them.
    hidden_parts: int = 0
    # The items read, where one is not one posting (Hacker News comments); 0 where each is one.
    read: int = 0
    # What the model pass over the comments the rules could not read did (EXTRACT_PROVIDER), with
    # its tokens and cost; None when none ran.
    extraction: Extraction | None = None


class SearchReport(msgspec.Struct, kw_only=True, frozen=True):
    """The result of one `jobsearch.search` job: the source jobs it submitted."""

    sources: list[str]  # the source names, one job each
    submitted: int  # new source jobs
    duplicates: int  # source jobs this run had already submitted (a rerun of the search job)
