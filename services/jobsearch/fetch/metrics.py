"""The fetch stage's Prometheus counters (prometheus_client's default registry)."""

from __future__ import annotations

from prometheus_client import Counter

LISTINGS = Counter("jobsearch_fetch_listings", "Listings read from boards", ["board"])
SUBMITTED = Counter("jobsearch_fetch_submitted", "New listing jobs submitted to dedupe", ["board"])
SKIPPED = Counter("jobsearch_fetch_skipped", "Postings dropped while reading a board", ["board", "reason"])
FAILURES = Counter("jobsearch_fetch_board_failures", "Boards that could not be read", ["board", "kind"])
