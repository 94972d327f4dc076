"""Why a board could not be read.

```
SourceError                 a board could not be read; `kind` says how, `retryable` whether later may help
```
One exception for every board: the fetch stage reports it (a log line, a counter, the job's dead
letter) and the other sources go on. The message names the board, the URL and what to do.
"""

from __future__ import annotations

from typing import Literal

FailureKind = Literal[
    "not_found",  # 404/410: a wrong token, site or account name
    "refused",  # 401/403 or another 4xx: the board will not answer this request
    "server_error",  # 5xx (or 429) after the client's retries
    "rate_limited",  # 429 asking for a wait longer than the client will wait in one go
    "timeout",  # no complete answer within the timeouts
    "network",  # connection refused, reset, DNS failure
    "malformed",  # the body is not the JSON/XML the board documents
    "html_page",  # an HTML page (an error or login page) where JSON was expected
    "too_large",  # the body exceeds the response size cap
    "host_denied",  # an internal address that JOBSEARCH_ALLOW_HOSTS does not name
]

# Failures that a later attempt may not repeat; the others are the board's or the URL's fault.
TRANSIENT: frozenset[FailureKind] = frozenset({"server_error", "rate_limited", "timeout", "network"})


class SourceError(Exception):
    """A board could not be read.

    Attributes:
        board: the board (`greenhouse`, ...).
        kind: what failed (see `FailureKind`).
        url: the URL that failed, when there is one.
        retry_after: seconds the board asked us to wait (a 429's `Retry-After`), if any.
    """

    def __init__(
        self,
        board: str,
        kind: FailureKind,
        detail: str,
        *,
        url: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        where = f" at {url}" if url else ""
        super().__init__(f"{board}: {detail}{where}")
        self.board = board
        self.kind = kind
        self.detail = detail
        self.url = url
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """Whether a later attempt may succeed (5xx, 429, timeouts, network), not a wrong name."""
        return self.kind in TRANSIENT
