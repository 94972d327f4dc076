"""The fetch stage's work, free of NATS: fan a search out to its sources, read one source.

`jobsearch.fetch.register` wires these to jetjobs jobs; here they take their dependencies as
arguments, so tests drive them with a local HTTP server and a list instead of a stream.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

import anyio.to_thread
import msgspec
import structlog

from jobsearch.fetch import metrics
from jobsearch.fetch.report import SearchReport, SourceReport
from jobsearch.jobs import ListingBatchJob, SearchJob, SourceJob, in_batches
from jobsearch.profile import source_name
from jobsearch.sources import BoardHttp, SourceError, fetch_source, hackernews
from jobsearch.sources.fetched import Fetched
from jobsearch.sources.hn.extract import Extractor

log = structlog.get_logger("jobsearch.fetch")

# Submits jobs; answers, for each, whether the stream already had its key (a duplicate).
SubmitSources = Callable[[Sequence[tuple[str, SourceJob]]], Awaitable[list[bool]]]
SubmitListings = Callable[[Sequence[ListingBatchJob]], Awaitable[list[bool]]]


def source_key(run_id: str, name: str) -> str:
    """The `jobsearch.source` job's key: one per source per run."""
    return f"{run_id}:source:{name}"


async def fan_out(job: SearchJob, submit: SubmitSources) -> SearchReport:
    """Submit one `jobsearch.source` job per source of the profile."""
    names = [source_name(source) for source in job.profile.sources]
    jobs = [
        (source_key(job.run_id, name), SourceJob(run_id=job.run_id, source=source, profile=job.profile))
        for name, source in zip(names, job.profile.sources, strict=True)
    ]
    duplicates = await submit(jobs)
    report = SearchReport(sources=names, submitted=duplicates.count(False), duplicates=duplicates.count(True))
    log.info("fetch.search", run_id=job.run_id, sources=len(names), submitted=report.submitted)
    return report


async def read_source(
    job: SourceJob, http: BoardHttp, submit: SubmitListings, *, extractor: Extractor | None = None
) -> SourceReport:
    """Read one board and submit its postings in `jobsearch.listing_batch` jobs; with `extractor`
    (`EXTRACT_PROVIDER`), a model reads the Hacker News comments the rules could not.

    Raises:
        SourceError: the board could not be read (logged and counted here; the caller decides
            whether to retry).
    """
    name = source_name(job.source)
    board = str(type(job.source).__struct_config__.tag)
    started = time.perf_counter()
    try:
        fetched = await fetch_source(http, job.source, terms=job.profile.search.terms)
    except SourceError as exc:
        metrics.FAILURES.labels(board, exc.kind).inc()
        log.warning(
            "fetch.board_failed",
            run_id=job.run_id,
            source=name,
            board=board,
            kind=exc.kind,
            url=exc.url,
            error=str(exc),
            retryable=exc.retryable,
        )
        raise
    if extractor is not None and fetched.unread:
        fetched = await _model_pass(fetched, name, extractor, job.run_id)
    # Cutting a large board's postings into batches by size is CPU work: off the event loop.
    cuts = await anyio.to_thread.run_sync(in_batches, fetched.listings)
    batches = [
        ListingBatchJob(run_id=job.run_id, source=name, listings=listings, profile=job.profile)
        for listings in cuts
    ]
    duplicates = await submit(batches)
    repeated = sum(len(b.listings) for b, duplicate in zip(batches, duplicates, strict=True) if duplicate)
    report = SourceReport(
        source=name,
        board=board,
        listings=len(fetched.listings),
        submitted=len(fetched.listings) - repeated,
        duplicates=repeated,
        skipped=fetched.skipped,
        skipped_reasons=fetched.skipped_reasons,
        seconds=round(time.perf_counter() - started, 3),
        hidden_parts=sum(listing.hidden_parts for listing in fetched.listings),
        complete=fetched.complete,
        read=fetched.read,
        extraction=fetched.extraction,
    )
    metrics.LISTINGS.labels(board).inc(report.listings)
    metrics.SUBMITTED.labels(board).inc(report.submitted)
    for reason, count in fetched.skipped_reasons.items():
        metrics.SKIPPED.labels(board, reason).inc(count)
    log.info("fetch.source", run_id=job.run_id, **msgspec.structs.asdict(report))
    return report


async def _model_pass(fetched: Fetched, name: str, extractor: Extractor, run_id: str) -> Fetched:
    """The board's unread comments read by a model; what the rules read stands whatever it does."""
    try:
        return await hackernews.read_unread(fetched, name, extractor)
    except Exception as exc:  # a fault of the optional pass never costs the board its listings
        log.warning(
            "fetch.extraction_failed", run_id=run_id, source=name, error=f"{type(exc).__name__}: {exc}"
        )
        return fetched
