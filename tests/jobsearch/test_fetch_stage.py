"""The fetch stage against a real nats-server: fan-out, listing jobs, a broken board, a rerun."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Publisher, Settings
from jobsearch.fetch import FetchHandlers, SourceReport, register
from jobsearch.jobs import LISTING, QUEUES, SEARCH, ListingJob, SearchJob
from jobsearch.profile import Greenhouse, Person, Profile, Sample
from tests.http_target import HttpTarget
from tests.jobsearch.boards import FAST, board
from tests.support import dead_letter_of, running_worker, status_of

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
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


def dedupe_stand_in(seen: list[ListingJob]) -> App:
    """An App on the dedupe queue that only records the listing jobs it receives."""
    app = App("dedupe-stand-in", builtins=False)

    @app.job(LISTING, payload=ListingJob)
    async def listing(ctx: JobContext, job: ListingJob) -> None:
        seen.append(job)

    return app


async def test_search_fans_out_and_a_broken_board_is_reported(
    nc: NATS, settings: Settings, board: HttpTarget
) -> None:
    """A search with a good and a broken source yields listing jobs for the good one and a dead
    letter naming the broken board and its 404; a second search inside the duplicate window
    submits no new listing job."""
    fetch_app = App("fetch", builtins=False)
    handlers = register(fetch_app)
    assert isinstance(handlers, FetchHandlers)
    handlers._policy = FAST
    seen: list[ListingJob] = []
    publisher = Publisher(nc, settings)
    async with (
        running_worker(fetch_app, nc, settings, queues=[QUEUES["fetch"]]) as (_, fetched),
        running_worker(dedupe_stand_in(seen), nc, settings, queues=[QUEUES["dedupe"]]) as (_, deduped),
    ):
        first = await publisher.enqueue(
            SEARCH, SearchJob(run_id="run-1", profile=profile(board)), queue=QUEUES["fetch"]
        )
        # The search, the sample source: succeeded; the Greenhouse source: dead.
        await fetched.wait(lambda: fetched.count("succeeded") == 2 and fetched.count("dead") == 1)
        await deduped.wait(lambda: deduped.count("succeeded") == BUNDLED)

        second = await publisher.enqueue(
            SEARCH, SearchJob(run_id="run-2", profile=profile(board)), queue=QUEUES["fetch"]
        )
        await fetched.wait(lambda: fetched.count("succeeded") == 4 and fetched.count("dead") == 2)
    await handlers.aclose()

    assert len(seen) == BUNDLED
    assert {job.listing.key for job in seen} == {f"sample:{job.listing.external_id}" for job in seen}
    assert all(job.run_id == "run-1" for job in seen)

    search = await status_of(nc, settings, first.id)
    assert search.result == {"sources": ["sample", "greenhouse:no-such-co"], "submitted": 2, "duplicates": 0}
    assert (await status_of(nc, settings, second.id)).result["submitted"] == 2

    reports: list[SourceReport] = []
    dead: list[str] = []
    for job_id, outcomes in fetched.by_job.items():
        record = await status_of(nc, settings, job_id)
        if "dead" in outcomes:
            letter = await dead_letter_of(nc, settings, job_id)
            assert letter.reason == "rejected"
            dead.append(letter.error or "")
        elif job_id not in (first.id, second.id):
            reports.append(msgspec.convert(record.result, SourceReport))
    assert len(dead) == 2
    assert all("greenhouse" in error and "404" in error for error in dead), dead
    by_submitted: dict[int, Any] = {r.submitted: r for r in reports}
    assert by_submitted[BUNDLED].duplicates == 0
    assert by_submitted[0].duplicates == BUNDLED  # the rerun: every listing key already in the window
    assert len(board.requests) == 2  # one request per run for the broken board, no retry on a 404
