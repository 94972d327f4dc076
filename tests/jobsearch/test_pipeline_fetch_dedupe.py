"""fetch → dedupe → draft jobs, with both stages as real `jobsearch serve` processes on a real server.

No draft service runs: the draft jobs are read from the JOBS stream (`<ns>.jobs.jobsearch-draft.>`),
where they wait for one. The listing jobs' ends are followed through the platform's job events
(`jetjobs._demo.audit.LedgerCheck`), with the ledger read for any event a killed worker never sent.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from jetjobs import EmbeddedServer, Publisher, Settings
from jetjobs._demo.audit import LedgerCheck, read_stream
from jetjobs._transport.connection import connect
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import Job
from jetjobs.testing import WorkerPool
from jobsearch.dedupe.report import read_listings
from jobsearch.jobs import (
    BATCH_POSTINGS,
    DRAFT_SHORTLIST,
    LISTING,
    LISTING_BATCH,
    QUEUES,
    SEARCH,
    SOURCE,
    DraftJob,
    DraftShortlistJob,
    ListingBatchJob,
    ListingJob,
    SearchJob,
)
from jobsearch.listing import Listing
from jobsearch.profile import Drafting, Person, Profile, Sample
from tests.support import FAST_LIVENESS, fast_settings

pytestmark = [pytest.mark.integration]
REPO_ROOT = Path(__file__).resolve().parents[2]
_JOB = msgspec.json.Decoder(Job)


def pipeline_settings(namespace: str, url: str) -> Settings:
    """Short leases and heartbeats (a killed service's jobs come back in seconds), memory streams."""
    return fast_settings(namespace, url, **FAST_LIVENESS)


def stage(settings: Settings, stage_name: str, data_dir: Path) -> WorkerPool:
    """`jobsearch serve STAGE` subprocesses with the test's settings and data dir."""
    assert settings.nats.url is not None
    return WorkerPool(
        "",
        settings,
        settings.nats.url,
        env={"JOBSEARCH_DATA_DIR": str(data_dir)},
        cwd=REPO_ROOT,
        command=[
            sys.executable,
            "-m",
            "jobsearch.cli",
            "--log-format",
            "json",
            "serve",
            stage_name,
            "-c",
            "8",
        ],
    )


@contextlib.asynccontextmanager
async def following(settings: Settings) -> AsyncIterator[tuple[LedgerCheck, Publisher]]:
    """A connection that follows the namespace's job events, and a publisher."""
    assert settings.nats.url is not None
    nc = await connect(settings.nats.url, settings.nats, name="jobsearch-test")
    check = LedgerCheck(nc, settings)
    try:
        await check.setup()
        yield check, Publisher(nc, settings)
    finally:
        await check.close()
        await nc.close()


def settled(check: LedgerCheck, job_type: str) -> int:
    """How many jobs of `job_type` have ended."""
    return sum(1 for event in check.settled.values() if event.type == job_type)


async def jobs_on(check: LedgerCheck, queue: str) -> list[Job]:
    """Every job published on `queue` so far."""
    topology = Topology(check.settings)
    subject = f"{check.settings.namespace}.jobs.{queue}.>"
    return [_JOB.decode(msg.data) for msg in await read_stream(check.js, topology.jobs_stream, subject)]


async def search(publisher: Publisher, run_id: str, size: int | None = None) -> None:
    """Submit one search over the sample board."""
    profile = Profile(person=Person(name="Sam Sample"), sources=[Sample(size=size)])
    await publisher.enqueue(SEARCH, SearchJob(run_id=run_id, profile=profile), queue=QUEUES["fetch"])


async def raw_search(check: LedgerCheck, run_id: str) -> None:
    """Submit a search as a client in any language would: a JSON envelope (schemas/job.schema.json)
    whose payload follows schemas/jobsearch/search.schema.json, published on the job subject."""
    payload = {
        "run_id": run_id,
        "profile": {"person": {"name": "Sam Sample"}, "sources": [{"board": "sample"}]},
    }
    envelope = {
        "id": f"raw-search-{run_id}",
        "type": SEARCH,
        "payload": payload,
        "queue": QUEUES["fetch"],
        "priority": "normal",
        "created_at": "2026-11-30T08:00:00Z",
        "max_attempts": 3,
        "timeout": 300.0,
    }
    subject = f"{check.settings.namespace}.jobs.{QUEUES['fetch']}.normal.{SEARCH}"
    ack = await check.js.publish(
        subject, json.dumps(envelope).encode(), headers={"Nats-Msg-Id": envelope["id"]}
    )
    assert not ack.duplicate


async def postings_on(check: LedgerCheck) -> list[tuple[str, ListingBatchJob]]:
    """(job id, batch) of every listing batch on the dedupe queue so far."""
    return [
        (job.id, msgspec.convert(job.payload, ListingBatchJob))
        for job in await jobs_on(check, QUEUES["dedupe"])
        if job.type == LISTING_BATCH
    ]


async def drain_run(check: LedgerCheck, runs: int) -> list[Listing]:
    """Wait until `runs` source jobs ended, then until every listing batch published so far ended;
    the postings they carried."""
    await check.wait_until(lambda: settled(check, SOURCE) >= runs, timeout=60)
    batches = await postings_on(check)
    remaining = await check.wait_drained([job_id for job_id, _ in batches], timeout=120)
    assert not remaining, f"{len(remaining)} listing batches never finished"
    return [listing for _, batch in batches for listing in batch.listings]


async def shortlist(check: LedgerCheck, publisher: Publisher, run_id: str) -> None:
    """What a run's owner submits once dedupe has drained: the shortlist of the listings to draft,
    here every one (no fit bar, no cap); wait until it ended."""
    everyone = Profile(person=Person(name="Sam Sample"), drafting=Drafting(min_fit=0, max_per_run=10000))
    submitted = await publisher.enqueue(
        DRAFT_SHORTLIST, DraftShortlistJob(run_id=run_id, profile=everyone), queue=QUEUES["dedupe"]
    )
    assert not await check.wait_drained([submitted.id], timeout=60)


def drafts_by_listing(jobs: list[Job]) -> dict[str, set[str]]:
    """merged listing id → the ids of the draft jobs submitted for it."""
    by_listing: dict[str, set[str]] = defaultdict(set)
    for job in jobs:
        draft = msgspec.convert(job.payload, DraftJob)
        by_listing[draft.listing.id].add(job.id)
    return by_listing


async def test_search_flows_to_draft_jobs_and_a_second_run_drafts_nothing(
    nats_server: EmbeddedServer, namespace: str, tmp_path: Path
) -> None:
    """A search published as raw JSON over the bundled sample board (40 postings, some of them one
    job) and its shortlist give one draft job per merged listing; a second search hands dedupe
    all 40 postings again and submits no draft job; and the same 40 postings as listing jobs under
    yet other keys reach dedupe and submit no draft job either: the seen-set stops them."""
    settings = pipeline_settings(namespace, nats_server.url)
    async with (
        following(settings) as (check, publisher),
        stage(settings, "fetch", tmp_path) as fetch,
        stage(settings, "dedupe", tmp_path) as dedupe,
    ):
        await fetch.start()
        await dedupe.start()
        await raw_search(check, "run1")
        first = await drain_run(check, runs=1)
        assert len(first) == 40
        await shortlist(check, publisher, "run1")
        drafts = drafts_by_listing(await jobs_on(check, QUEUES["draft"]))
        stored = read_listings(tmp_path / "jobsearch.sqlite")
        assert 30 <= len(stored) < 40  # the sample's cross-posts and reposts merged
        assert set(drafts) == {s.listing.id for s in stored}
        assert all(len(ids) == 1 for ids in drafts.values())
        assert all(s.state == "drafted" for s in stored)

        await search(publisher, "run2")
        second = await drain_run(check, runs=2)
        assert len(second) == 80  # a later run hands dedupe every posting again
        await shortlist(check, publisher, "run2")
        assert drafts_by_listing(await jobs_on(check, QUEUES["draft"])) == drafts

        later = [
            await publisher.enqueue(
                LISTING,
                ListingJob(run_id="run3", listing=listing, profile=Profile(person=Person(name="S"))),
                queue=QUEUES["dedupe"],
                key=f"run3:{listing.key}",
            )
            for listing in first
        ]
        assert not any(e.duplicate for e in later)
        remaining = await check.wait_drained([e.id for e in later], timeout=60)
        assert not remaining
        assert drafts_by_listing(await jobs_on(check, QUEUES["draft"])) == drafts
        assert len(read_listings(tmp_path / "jobsearch.sqlite")) == len(stored)
        assert not [p for p in fetch.processes + dedupe.processes if p.crashed]


@pytest.mark.chaos
async def test_dedupe_killed_mid_run_loses_nothing_and_drafts_nothing_twice(
    nats_server: EmbeddedServer, namespace: str, tmp_path: Path
) -> None:
    """kill -9 of the dedupe service while it works through 3,000 postings (30 batches), then a
    new one: every batch ends, every merged listing is drafted, and each by exactly one draft job
    id."""
    settings = pipeline_settings(namespace, nats_server.url)
    size = 3000
    async with (
        following(settings) as (check, publisher),
        stage(settings, "fetch", tmp_path) as fetch,
        stage(settings, "dedupe", tmp_path) as dedupe,
    ):
        await fetch.start()
        (victim,) = await dedupe.start()
        await search(publisher, "run1", size=size)
        batches = size // BATCH_POSTINGS
        await check.wait_until(lambda: settled(check, LISTING_BATCH) >= batches // 6, timeout=120)
        await dedupe.kill(victim)
        assert settled(check, LISTING_BATCH) < batches, "the kill must come mid-run"
        await dedupe.start()
        postings = await drain_run(check, runs=1)
        assert len(postings) == size
        await shortlist(check, publisher, "run1")
        drafts = drafts_by_listing(await jobs_on(check, QUEUES["draft"]))
        stored = read_listings(tmp_path / "jobsearch.sqlite")
        assert len(stored) == size - size // 10  # every 10th generated posting is a cross-post
        assert set(drafts) == {s.listing.id for s in stored}
        twice = {listing: ids for listing, ids in drafts.items() if len(ids) != 1}
        assert not twice, f"drafted under several job ids: {twice}"
        assert all(s.state == "drafted" for s in stored)
        assert sum(len(s.listing.sources) for s in stored) == size
        assert not [p for p in fetch.processes + dedupe.processes if p.crashed]
