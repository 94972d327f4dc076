"""`python -m benchmarks.dedupe [--listings N] [--concurrency C]`: listings/s of one dedupe service.

Publishes N generated sample listing jobs (`Sample(size=N)`: every 10th a cross-post) on the
`jobsearch-dedupe` queue of an embedded nats-server, then starts one `jobsearch serve dedupe`
process and times it from its start until every listing job has ended (job events). Also times
the seen-set alone in this process (match, merge, filter, SQLite commit; no NATS).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import anyio

from jetjobs import EmbeddedServer, NatsSettings, Publisher, Settings
from jetjobs._demo.audit import LedgerCheck
from jetjobs._transport.connection import connect
from jetjobs.testing import WorkerPool
from jobsearch.dedupe.store import SeenSet
from jobsearch.jobs import LISTING, QUEUES, ListingJob
from jobsearch.profile import Person, Profile, Sample, Search
from jobsearch.sources.sample import fetch

# A profile to score fit with (the service scores every listing with the run's profile).
FIT_PROFILE = Profile(
    person=Person(name="Bench", location="Berlin, Germany", skills=["Python", "Go", "PostgreSQL", "Kafka"]),
    search=Search(terms=["Backend Engineer", "Platform Engineer"], locations=["Berlin"], salary_floor=70000),
)


def seen_set_rate(count: int, directory: Path, *, fit: bool = False) -> float:
    """Listings per second through the seen-set alone (with `fit`, scoring each for a profile)."""
    listings = fetch(Sample(size=count), "sample").listings
    seen = SeenSet(directory / f"alone-{fit}.sqlite")
    profile = FIT_PROFILE if fit else None
    start = time.perf_counter()
    for listing in listings:
        seen.record(listing, Search(), "bench", profile)
    elapsed = time.perf_counter() - start
    seen.close()
    return count / elapsed


async def service_rate(count: int, concurrency: int, directory: Path, url: str, *, drafts: bool) -> float:
    """Listings per second through one `jobsearch serve dedupe` process (without drafts: the
    profile's filters drop every listing, so no draft job is published)."""
    settings = Settings(namespace="benchdedupe", nats=NatsSettings(url=url), storage="memory")
    nc = await connect(url, settings.nats, name="bench-dedupe")
    check = LedgerCheck(nc, settings)
    await check.setup()
    publisher = Publisher(nc, settings)
    search = Search() if drafts else Search(terms=["no listing says this"])
    profile = Profile(person=Person(name="Bench"), search=search)
    jobs = [
        publisher.build(
            LISTING,
            ListingJob(run_id="bench", listing=listing, profile=profile),
            queue=QUEUES["dedupe"],
            key=listing.key,
        )
        for listing in fetch(Sample(size=count), "sample").listings
    ]
    await publisher.publish_many(jobs)
    ids = [job.id for job in jobs]
    serve = ["serve", "dedupe", "-c", str(concurrency)]
    pool = WorkerPool(
        "",
        settings,
        url,
        env={"JOBSEARCH_DATA_DIR": str(directory)},
        command=[sys.executable, "-m", "jobsearch.cli", "--log-format", "json", *serve],
    )
    try:
        async with pool:
            start = time.perf_counter()
            await pool.start()
            remaining = await check.wait_drained(ids, timeout=600)
            elapsed = time.perf_counter() - start
            if remaining:
                raise SystemExit(f"{len(remaining)} listing jobs did not finish")
    finally:
        await check.close()
        await nc.close()
    return count / elapsed


def main() -> None:
    """Run both measurements and print them."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dedupe")
    parser.add_argument("--listings", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--no-drafts", action="store_true", help="a profile that drops every listing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        alone = seen_set_rate(args.listings, directory)
        with_fit = seen_set_rate(args.listings, directory, fit=True)
        server = EmbeddedServer(directory / "nats")
        server.start()
        try:
            served = anyio.run(
                partial(service_rate, drafts=not args.no_drafts),
                args.listings,
                args.concurrency,
                directory,
                server.url,
            )
        finally:
            server.stop()
    print(f"seen-set alone:          {alone:8.0f} listings/s ({args.listings} listings)")
    print(f"seen-set and fit:        {with_fit:8.0f} listings/s (each scored for a profile)")
    what = "no draft jobs" if args.no_drafts else "a draft job per new listing"
    print(f"one dedupe service (-c {args.concurrency}): {served:8.0f} listings/s ({what})")


if __name__ == "__main__":
    main()
