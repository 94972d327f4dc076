"""The fetch stage: against a real nats-server (fan-out, listing jobs, a broken board, a rerun),
and its work without a server (`jobsearch.fetch.service`, the outcome of a broken board)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack

import httpx
import msgspec
import pytest
from nats.aio.client import Client as NATS
from prometheus_client import REGISTRY

from jetjobs import App, JobContext, Publisher, Reject, Retry, Settings
from jetjobs._runtime.metrics import WorkerMetrics
from jobsearch.app import build_app
from jobsearch.fetch import FetchHandlers, SourceReport, metrics, service
from jobsearch.fetch.handlers import SOURCE_ATTEMPTS, outcome_of
from jobsearch.jobs import (
    BATCH_BYTES,
    BATCH_POSTINGS,
    BOARD_READ,
    LISTING_BATCH,
    QUEUES,
    SEARCH,
    SOURCE,
    BoardReadJob,
    ListingBatchJob,
    ListingJob,
    SearchJob,
    SourceJob,
    in_batches,
)
from jobsearch.profile import Greenhouse, Lever, Person, Profile, Remotive, Sample
from jobsearch.sources import SourceError
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import FAST, board, client, ok_file
from tests.support import dead_letter_of, running_worker, status_of

__all__ = ["board"]  # the fixture, imported for the tests below

BUNDLED = 40  # postings in services/jobsearch/sources/data/sample.json


def profile(target: HttpTarget) -> Profile:
    """A profile with the sample board and a Greenhouse board whose token does not exist."""
    return Profile(
        person=Person(name="Sam Sample"),
        sources=[
            Sample(),
            Greenhouse(token="no-such-co", base_url=target.url("")),
        ],
    )


def dedupe_stand_in(seen: list[ListingJob], reads: list[BoardReadJob] | None = None) -> App:
    """An App on the dedupe queue that only records the postings (as one listing job each) and
    the board reads it receives."""
    app = App("dedupe-stand-in", builtins=False)

    @app.job(LISTING_BATCH, payload=ListingBatchJob)
    async def listings(ctx: JobContext, job: ListingBatchJob) -> None:
        seen.extend(ListingJob(run_id=job.run_id, listing=p, profile=job.profile) for p in job.listings)

    @app.job(BOARD_READ, payload=BoardReadJob)
    async def board_read(ctx: JobContext, job: BoardReadJob) -> None:
        if reads is not None:
            reads.append(job)

    return app


@pytest.mark.integration
async def test_search_fans_out_and_a_broken_board_is_reported(
    nc: NATS, settings: Settings, board: HttpTarget
) -> None:
    """A search with a good and a broken source yields listing jobs for the good one, one board
    read for it, and a dead letter naming the broken board and its 404. The same run's search
    again submits nothing new (its keys are in the window); the next run hands dedupe every
    posting again (what is new is dedupe's call, not the window's)."""
    fetch_app = App("fetch", builtins=False)
    handlers = FetchHandlers(FAST)
    handlers.register(fetch_app)
    seen: list[ListingJob] = []
    reads: list[BoardReadJob] = []
    publisher = Publisher(nc, settings)
    async with (
        running_worker(fetch_app, nc, settings, queues=[QUEUES["fetch"]]) as (_, fetched),
        running_worker(dedupe_stand_in(seen, reads), nc, settings, queues=[QUEUES["dedupe"]]) as (_, deduped),
    ):
        first = await publisher.enqueue(
            SEARCH, SearchJob(run_id="run-1", profile=profile(board)), queue=QUEUES["fetch"]
        )
        # The search, the sample source: succeeded; the Greenhouse source: dead.
        await fetched.wait(lambda: fetched.count("succeeded") == 2 and fetched.count("dead") == 1)
        await deduped.wait(lambda: len(seen) == BUNDLED and bool(reads))

        again = await publisher.enqueue(
            SEARCH, SearchJob(run_id="run-1", profile=profile(board)), queue=QUEUES["fetch"]
        )
        await fetched.wait(lambda: fetched.count("succeeded") == 3)
        second = await publisher.enqueue(
            SEARCH, SearchJob(run_id="run-2", profile=profile(board)), queue=QUEUES["fetch"]
        )
        await fetched.wait(lambda: fetched.count("succeeded") == 5 and fetched.count("dead") == 2)
        await deduped.wait(lambda: len(seen) == 2 * BUNDLED and len(reads) == 2)
    await handlers.aclose()

    assert len(seen) == 2 * BUNDLED
    assert {job.listing.key for job in seen} == {f"sample:{job.listing.external_id}" for job in seen}
    assert sorted(job.run_id for job in seen) == ["run-1"] * BUNDLED + ["run-2"] * BUNDLED
    assert [(r.run_id, r.source, r.listed) for r in reads] == [
        ("run-1", "sample", BUNDLED),
        ("run-2", "sample", BUNDLED),
    ]

    search = await status_of(nc, settings, first.id)
    assert search.result == {"sources": ["sample", "greenhouse:no-such-co"], "submitted": 2, "duplicates": 0}
    assert (await status_of(nc, settings, again.id)).result["duplicates"] == 2
    assert (await status_of(nc, settings, second.id)).result["submitted"] == 2

    reports: list[SourceReport] = []
    dead: list[str] = []
    for job_id, outcomes in fetched.by_job.items():
        record = await status_of(nc, settings, job_id)
        if "dead" in outcomes:
            letter = await dead_letter_of(nc, settings, job_id)
            assert letter.reason == "rejected"
            dead.append(letter.error or "")
        elif job_id not in (first.id, again.id, second.id):
            reports.append(msgspec.convert(record.result, SourceReport))
    assert len(dead) == 2
    assert all("greenhouse" in error and "404" in error for error in dead), dead
    assert [(r.submitted, r.duplicates) for r in reports] == [(BUNDLED, 0), (BUNDLED, 0)]
    assert len(board.requests) == 2  # one request per run for the broken board, no retry on a 404


@pytest.mark.integration
async def test_a_board_that_keeps_failing_is_retried_then_dead_lettered(
    nc: NATS, settings: Settings, board: HttpTarget
) -> None:
    """A board answering 503 every time: its source job runs SOURCE_ATTEMPTS times (each with the
    client's own retries), then is dead-lettered as exhausted with the board's error."""
    board.script("/api/remote-jobs", Answer(503, b"down for maintenance"))
    fetch_app = App("fetch", builtins=False)
    handlers = FetchHandlers(FAST)
    handlers.register(fetch_app)
    source = Remotive(base_url=board.url(""))
    search = SearchJob(run_id="run-503", profile=Profile(person=Person(name="S"), sources=[source]))
    async with running_worker(fetch_app, nc, settings, queues=[QUEUES["fetch"]]) as (_, fetched):
        await Publisher(nc, settings).enqueue(SEARCH, search, queue=QUEUES["fetch"])
        await fetched.wait(lambda: fetched.count("dead") == 1)
    await handlers.aclose()
    [source_job] = [job_id for job_id, outcomes in fetched.by_job.items() if "dead" in outcomes]
    letter = await dead_letter_of(nc, settings, source_job)
    assert letter.reason == "exhausted"
    assert "remotive: HTTP 503 after 3 attempts" in (letter.error or "")
    assert letter.attempts == SOURCE_ATTEMPTS
    assert len(board.to("/api/remote-jobs")) == SOURCE_ATTEMPTS * (1 + FAST.retries)


# The stage's work without a server: `jobsearch.fetch.service` and the outcome of a broken board.


async def test_read_source_reports_counts_and_submits_postings_in_batches(board: HttpTarget) -> None:
    """read_source submits the postings in listing batches (with the run id, the source and the
    profile once) and reports listings, submissions, duplicates and skips by reason."""
    board.script("/v1/boards/acme/jobs?content=true&pay_transparency=true", ok_file("greenhouse_jobs.json"))
    person = Person(name="Sam Sample")
    source = Greenhouse(token="acme", base_url=board.url(""))
    submitted: list[ListingBatchJob] = []

    async def submit(jobs: Sequence[ListingBatchJob]) -> list[bool]:
        submitted.extend(jobs)
        return [False for _ in jobs]

    job = SourceJob(run_id="r1", source=source, profile=Profile(person=person, sources=[source]))
    async with client() as http:
        report = await service.read_source(job, http, submit)
    [batch] = submitted
    assert [p.external_id for p in batch.listings] == ["4012345", "4012346", "4012347"]
    assert (batch.run_id, batch.source, batch.profile.person) == ("r1", "greenhouse:acme", person)
    assert (report.listings, report.submitted, report.duplicates, report.skipped) == (3, 3, 0, 2)
    assert report.skipped_reasons == {"no title": 1, "no url": 1}
    assert report.source == "greenhouse:acme"


def test_postings_are_cut_into_batches_by_count_and_size() -> None:
    """`in_batches`: at most BATCH_POSTINGS a batch and about BATCH_BYTES of JSON; order kept; a
    posting larger than the limit travels alone."""
    items = ["x" * 1000] * 250 + ["y" * (BATCH_BYTES + 10)] + ["z"] * 3
    batches = in_batches(items)
    assert [len(b) for b in batches][:3] == [BATCH_POSTINGS, BATCH_POSTINGS, 50]
    assert batches[3] == ["y" * (BATCH_BYTES + 10)]
    assert batches[4] == ["z"] * 3
    assert [x for b in batches for x in b] == items
    assert [len(b) for b in in_batches(["w" * 50_000] * 7)] == [3, 3, 1]


async def test_a_broken_board_is_counted_and_raised(board: HttpTarget) -> None:
    """A board that fails raises SourceError out of read_source, submits nothing, and counts one
    failure by board and kind in the Prometheus counter."""
    source = Lever(site="gone", base_url=board.url(""))
    job = SourceJob(run_id="r1", source=source, profile=Profile(person=Person(name="S"), sources=[source]))

    async def submit(jobs: Sequence[ListingBatchJob]) -> list[bool]:
        raise AssertionError("nothing may be submitted for a broken board")

    before = REGISTRY.get_sample_value(
        "jobsearch_fetch_board_failures_total", {"board": "lever", "kind": "not_found"}
    )
    async with client() as http:
        with pytest.raises(SourceError):
            await service.read_source(job, http, submit)
    after = REGISTRY.get_sample_value(
        "jobsearch_fetch_board_failures_total", {"board": "lever", "kind": "not_found"}
    )
    assert after == (before or 0) + 1


def test_broken_board_outcomes() -> None:
    """Transient failures are retried (after the board's Retry-After when it gave one); permanent
    ones and very long waits are dead-lettered with the readable reason."""
    transient = SourceError(
        "remotive", "server_error", "HTTP 503 after 4 attempts", url="https://r.example/api"
    )
    retry = outcome_of(transient)
    assert isinstance(retry, Retry)
    assert retry.delay is None
    assert "remotive: HTTP 503" in retry.reason
    assert outcome_of(SourceError("x", "rate_limited", "HTTP 429", retry_after=120)).delay == 120  # type: ignore[union-attr]
    assert isinstance(outcome_of(SourceError("x", "rate_limited", "HTTP 429", retry_after=7200)), Reject)
    reject = outcome_of(SourceError("greenhouse", "not_found", "HTTP 404: no such board"))
    assert isinstance(reject, Reject)
    assert reject.reason == "greenhouse: HTTP 404: no such board"


async def test_fan_out_keys_one_source_job_per_source() -> None:
    """fan_out submits one SourceJob per source, keyed `<run_id>:source:<source name>`."""
    sources = [Sample(), Greenhouse(token="acme"), Lever(site="q", name="my lever")]
    profile = Profile(person=Person(name="S"), sources=sources)  # type: ignore[arg-type]
    seen: list[tuple[str, SourceJob]] = []

    async def submit(jobs: Sequence[tuple[str, SourceJob]]) -> list[bool]:
        seen.extend(jobs)
        return [False, True, False]

    report = await service.fan_out(SearchJob(run_id="r9", profile=profile), submit)
    assert [key for key, _ in seen] == ["r9:source:sample", "r9:source:greenhouse:acme", "r9:source:my lever"]
    assert [job.source for _, job in seen] == sources
    assert (report.submitted, report.duplicates) == (2, 1)


async def test_board_failures_appear_on_the_worker_metrics_page() -> None:
    """The fetch stage's counters (prometheus_client's default registry) are served on the
    worker's /metrics page beside the jetjobs metrics."""
    metrics.FAILURES.labels("remotive", "timeout").inc()
    page = WorkerMetrics()
    port = page.serve(0)
    try:
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
    finally:
        page.close()
    assert 'jobsearch_fetch_board_failures_total{board="remotive",kind="timeout"}' in text
    assert "jetjobs_jobs_started" in text


async def test_the_service_closes_the_board_client_it_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    """`build_app` with a resource stack (as `jobsearch serve` uses it) closes the fetch stage's
    BoardHttp when the stack unwinds, and not before."""
    closed: list[FetchHandlers] = []

    async def aclose(self: FetchHandlers) -> None:
        closed.append(self)

    monkeypatch.setattr(FetchHandlers, "aclose", aclose)
    async with AsyncExitStack() as resources:
        app = build_app(["fetch"], resources)
        assert set(app.handlers) == {SEARCH, SOURCE}
        assert closed == []
    assert len(closed) == 1
