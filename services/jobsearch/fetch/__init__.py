"""The fetch stage: `jobsearch.search` fans out to sources, `jobsearch.source` reads one board.

Both run on the `jobsearch-fetch` queue (`jobsearch serve fetch`). The postings a board gives go
to `jobsearch-dedupe` in `jobsearch.listing_batch` jobs (up to 100 postings each), keyed by the
run and the postings they carry, so a redelivered source job submits nothing twice in its run,
while every run hands dedupe every posting (dedupe's database decides what is new). A whole read
ends with one `jobsearch.board_read` job naming the source and how many postings it listed.

A board that cannot be read fails its own source job only: a transient failure (5xx or 429 after
the client's retries, a timeout, a dropped connection) is retried by jetjobs with backoff, up to
`SOURCE_ATTEMPTS` runs, then dead-lettered; a permanent one (404 wrong token, malformed JSON, an
HTML error page, a body over the size cap) is dead-lettered at once. Either way the dead letter
carries the readable reason, and a log line and a counter report it; the other sources go on.
"""

from __future__ import annotations

from jetjobs import App
from jobsearch.fetch.handlers import FetchHandlers, load_http_policy
from jobsearch.fetch.report import SearchReport, SourceReport

__all__ = ["FetchHandlers", "SearchReport", "SourceReport", "register"]


def register(app: App) -> FetchHandlers:
    """Register the fetch stage's handlers on the pipeline's App (one BoardHttp per process).

    The HTTP settings are read here, so a bad `JOBSEARCH_HTTP_*`, `JOBSEARCH_USER_AGENT` or
    `JOBSEARCH_ALLOW_HOSTS` stops `jobsearch serve fetch` at start, naming the variable.
    """
    handlers = FetchHandlers(load_http_policy())
    handlers.register(app)
    return handlers
