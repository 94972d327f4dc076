"""The fetch stage's jetjobs handlers: thin wiring from jobs to `jobsearch.fetch.service`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

import anyio
import msgspec

from jetjobs import App, ConfigError, JobContext, Reject, Retry
from jobsearch.fetch import service
from jobsearch.fetch.report import SearchReport, SourceReport
from jobsearch.jobs import (
    BOARD_READ,
    LISTING_BATCH,
    QUEUES,
    SEARCH,
    SOURCE,
    BoardReadJob,
    ListingBatchJob,
    SearchJob,
    SourceJob,
    batch_key,
    run_key,
)
from jobsearch.llm.settings import ExtractSettings, load_extract_settings
from jobsearch.sources import BoardHttp, HttpPolicy, SourceError
from jobsearch.sources.hn.extract import Extractor
from jobsearch.sources.hosts import ALLOW_HOSTS_VARIABLE, board_host_policy

SOURCE_ATTEMPTS = 3  # runs of a source job on transient failures (each with BoardHttp's own retries)
SOURCE_TIMEOUT = 900.0  # seconds: a paged board read politely takes a while
SUBMIT_WINDOW = 256  # listing jobs published per pipelined batch
# A board asking for a longer pause than this is reported now rather than holding the run open.
MAX_RETRY_DELAY = 300.0


def load_http_policy(env: Mapping[str, str] | None = None) -> HttpPolicy:
    """The boards' HTTP policy from `JOBSEARCH_HTTP_*` variables (each optional).

    `JOBSEARCH_HTTP_TIMEOUT`, `_DEADLINE`, `_RETRIES`, `_MIN_INTERVAL`, `_PER_HOST`, `_MAX_BYTES`,
    `JOBSEARCH_USER_AGENT` and `JOBSEARCH_ALLOW_HOSTS` (comma-separated). A bad value fails at
    start, naming the variable.
    """
    env = os.environ if env is None else env
    fields = ("timeout", "deadline", "retries", "min_interval", "per_host", "max_bytes")
    raw: dict[str, str] = {
        f: env[f"JOBSEARCH_HTTP_{f.upper()}"] for f in fields if env.get(f"JOBSEARCH_HTTP_{f.upper()}")
    }
    if env.get("JOBSEARCH_USER_AGENT"):
        raw["user_agent"] = env["JOBSEARCH_USER_AGENT"]
    allow_hosts = [entry.strip() for entry in env.get(ALLOW_HOSTS_VARIABLE, "").split(",") if entry.strip()]
    board_host_policy(allow_hosts)  # a bad entry fails now, naming the variable
    try:
        policy = msgspec.convert(raw, HttpPolicy, strict=False)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"JOBSEARCH_HTTP_* / JOBSEARCH_USER_AGENT: {exc}") from None
    return msgspec.structs.replace(policy, allow_hosts=tuple(allow_hosts))


class FetchHandlers:
    """The fetch stage's handlers and the one BoardHttp they share.

    The client is made on first use, inside the worker's event loop, and closed by `aclose()`; so
    is the model pass over unreadable Hacker News comments, when `extract` (by default read from
    `EXTRACT_*` here, so a wrong setting stops the service at start) names a provider.
    """

    def __init__(
        self, policy: HttpPolicy | None = None, *, extract: ExtractSettings | Literal["env"] | None = "env"
    ) -> None:
        self._policy = policy
        self._http: BoardHttp | None = None
        self._lock = anyio.Lock()
        self._extract = load_extract_settings() if extract == "env" else extract
        self._extractor: Extractor | None = None

    def register(self, app: App) -> None:
        """Register `jobsearch.search` and `jobsearch.source` on `app`."""
        app.job(SEARCH, payload=SearchJob)(self.search)
        app.job(SOURCE, payload=SourceJob)(self.source)

    async def http(self) -> BoardHttp:
        """The process's BoardHttp, made on first use."""
        async with self._lock:
            if self._http is None:
                self._http = BoardHttp(self._policy or load_http_policy())
            return self._http

    async def extractor(self) -> Extractor | None:
        """The process's model pass over unreadable comments (None without `EXTRACT_PROVIDER`)."""
        async with self._lock:
            if self._extractor is None and self._extract is not None:
                self._extractor = Extractor(self._extract)
            return self._extractor

    async def aclose(self) -> None:
        """Close the BoardHttp and the model pass's connections, if made."""
        if self._http is not None:
            http, self._http = self._http, None
            await http.aclose()
        if self._extractor is not None:
            extractor, self._extractor = self._extractor, None
            await extractor.aclose()

    async def search(self, ctx: JobContext, job: SearchJob) -> SearchReport:
        """`jobsearch.search`: one `jobsearch.source` job per source of the profile."""

        async def submit(jobs: Sequence[tuple[str, SourceJob]]) -> list[bool]:
            out = []
            for key, payload in jobs:
                enqueued = await ctx.enqueue(
                    SOURCE,
                    payload,
                    queue=QUEUES["fetch"],
                    key=key,
                    max_attempts=SOURCE_ATTEMPTS,
                    timeout=SOURCE_TIMEOUT,
                )
                out.append(enqueued.duplicate)
            return out

        return await service.fan_out(job, submit)

    async def source(self, ctx: JobContext, job: SourceJob) -> SourceReport:
        """`jobsearch.source`: read one board, one `jobsearch.listing` job per posting."""

        async def submit(jobs: Sequence[ListingBatchJob]) -> list[bool]:
            # Pipelined: a board of thousands of postings is one round trip per window, not each.
            built = [
                ctx.publisher.build(
                    LISTING_BATCH,
                    payload,
                    queue=QUEUES["dedupe"],
                    key=batch_key(job.run_id, "postings", [listing.key for listing in payload.listings]),
                )
                for payload in jobs
            ]
            return [e.duplicate for e in await ctx.publisher.publish_many(built, window=SUBMIT_WINDOW)]

        try:
            report = await service.read_source(
                job, await self.http(), submit, extractor=await self.extractor()
            )
        except SourceError as exc:
            raise outcome_of(exc) from None
        if report.complete:  # after its listing jobs: dedupe may note what the board still lists
            read = BoardReadJob(
                run_id=job.run_id, source=report.source, board=report.board, listed=report.listings
            )
            key = run_key(job.run_id, f"board_read:{report.source}")
            await ctx.enqueue(BOARD_READ, read, queue=QUEUES["dedupe"], key=key)
        return report


def outcome_of(exc: SourceError) -> Retry | Reject:
    """How a broken board ends its source job: retried later if that may help, else dead-lettered."""
    if exc.retryable and (exc.retry_after is None or exc.retry_after <= MAX_RETRY_DELAY):
        if exc.retry_after is None:
            return Retry(exc.retry_after, reason=str(exc))
        until = datetime.now(UTC) + timedelta(seconds=exc.retry_after)
        return Retry(exc.retry_after, reason=f"{exc}; read again at {until:%H:%M:%S} UTC")
    return Reject(str(exc))
