"""`python -m benchmarks.fetch_stage [--size 5000] [--repeat 3]`: the fetch stage's speed.

1. Parse time per 1,000 postings for each board adapter: a 1,000-posting payload in the board's
   shape (built from `tests/jobsearch/fixtures/`) served by `httpx.MockTransport`, so the figure is
   JSON/XML decoding and mapping to Listings, not the network.
2. Listings per second the fetch stage sustains: one `jobsearch serve fetch` process on an
   embedded nats-server, a search with `Sample(size=N)`, timed from submitting the search until
   the listing batch jobs stored on the dedupe queue hold N listings.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
import httpx
from nats.aio.msg import Msg

from jetjobs import EmbeddedServer, NatsSettings, Publisher, Settings, open_connection
from jetjobs._transport.topology import Topology
from jobsearch.jobs import LISTING_BATCH, QUEUES, SEARCH, SearchJob
from jobsearch.profile import (
    Arbeitnow,
    Ashby,
    BambooHR,
    Breezy,
    Greenhouse,
    HackerNews,
    JobPosting,
    Lever,
    Person,
    Personio,
    Profile,
    Recruitee,
    RemoteOK,
    Remotive,
    Rss,
    Sample,
    SmartRecruiters,
    Source,
    Workable,
    Workday,
)
from jobsearch.sources import BoardHttp, HttpPolicy, fetch_source

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "jobsearch" / "fixtures"
N = 1000


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def _many(template: dict[str, Any], id_field: str, url_field: str | None) -> list[dict[str, Any]]:
    out = []
    for i in range(N):
        item = copy.deepcopy(template)
        item[id_field] = (
            f"{item[id_field]}-{i}" if isinstance(item[id_field], str) else item[id_field] * 10_000 + i
        )
        if url_field:
            item[url_field] = f"{item[url_field]}-{i}"
        out.append(item)
    return out


def _personio_feed() -> bytes:
    feed = (FIXTURES / "personio_feed.xml").read_text()
    first = feed[feed.index("<position>") : feed.index("</position>") + len("</position>")]
    ident = first.split("<id>")[1].split("</id>")[0]
    positions = "".join(first.replace(f"<id>{ident}</id>", f"<id>{ident}{i}</id>") for i in range(N))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<workzag-jobs>{positions}</workzag-jobs>'.encode()


def _workday_list(request: httpx.Request) -> dict[str, Any]:
    """The jobs endpoint's pages (20 a page, `total` on the first), N postings in all."""
    template = _load("workday_jobs_page1.json")["jobPostings"][0]
    offset, limit = (json.loads(request.content)[k] for k in ("offset", "limit"))
    page = []
    for i in range(offset, min(offset + limit, N)):
        posting = copy.deepcopy(template)
        posting["externalPath"] = f"{posting['externalPath']}-{i}"
        page.append(posting)
    return {"total": N if offset == 0 else 0, "jobPostings": page}


def _jobposting_page() -> bytes:
    """One careers page holding N JobPosting blocks in one `@graph`."""
    html = (FIXTURES / "jobposting_full.html").read_text()
    start = html.index('<script type="application/ld+json">') + len('<script type="application/ld+json">')
    block = json.loads(html[start : html.index("</script>", start)])
    posting = next(item for item in block["@graph"] if item.get("@type") == "JobPosting")
    posting["hiringOrganization"] = {"@type": "Organization", "name": "Acme Robotics GmbH"}
    graph = []
    for i in range(N):
        item = copy.deepcopy(posting)
        item["@id"] = item["url"] = f"https://careers.acme.example/jobs/platform-engineer-{i}"
        item["identifier"]["value"] = f"JR-{i}"
        item.pop("validThrough", None)
        graph.append(item)
    ld = json.dumps({"@context": "https://schema.org", "@graph": graph})
    return f'<html><head><script type="application/ld+json">{ld}</script></head><body></body></html>'.encode()


Answer = Any  # a body (bytes, or JSON as Python data) or a function of the request giving one


def payloads() -> dict[str, tuple[Source, dict[str, Answer]]]:
    """For each board: a source and the bodies its URLs answer (path → body), N postings each.
    Where a board reads a detail per posting (Workday, BambooHR), the details answer 404, which the
    adapters read as "keep the list's data": the figure is the list's."""
    gh = _load("greenhouse_jobs.json")
    lever = _load("lever_postings.json")
    ashby = _load("ashby_board.json")
    workable = _load("workable_account.json")
    remoteok = _load("remoteok.json")
    remotive = _load("remotive.json")
    arbeit = _load("arbeitnow_page1.json")
    hn = _load("hn_thread.json")
    sr = _load("smartrecruiters_postings.json")
    wwr = (FIXTURES / "wwr.rss").read_text()
    head, item, tail = (
        wwr.partition("<item>")[0],
        wwr.split("<item>")[1].split("</item>")[0],
        "</channel>\n</rss>\n",
    )
    items = "".join(
        f"<item>{item.replace('senior-go-engineer', f'senior-go-engineer-{i}')}</item>" for i in range(N)
    )
    hn["children"] = _many(hn["children"][0], "id", None)
    arbeit["data"] = _many(arbeit["data"][0], "slug", "url")
    arbeit["links"]["next"] = None
    sr_items = _many(sr["content"][0], "id", None)
    return {
        "greenhouse": (
            Greenhouse(token="b"),
            {"/v1/boards/b/jobs": {"jobs": _many(gh["jobs"][0], "id", "absolute_url")}},
        ),
        "lever": (Lever(site="b"), {"/v0/postings/b": _many(lever[0], "id", "hostedUrl")[:99]}),
        "ashby": (
            Ashby(board_name="b"),
            {"/posting-api/job-board/b": {"jobs": _many(ashby["jobs"][0], "id", "jobUrl")}},
        ),
        "workable": (
            Workable(account="b"),
            {
                "/api/v1/widget/accounts/b": {
                    **workable,
                    "jobs": _many(workable["jobs"][0], "shortcode", "url"),
                }
            },
        ),
        "smartrecruiters (list only)": (
            SmartRecruiters(company="b"),
            {"/v1/companies/b/postings": {"offset": 0, "limit": 100, "totalFound": N, "content": sr_items}},
        ),
        "remoteok": (RemoteOK(), {"/api": [remoteok[0], *_many(remoteok[1], "id", "url")]}),
        "remotive": (
            Remotive(),
            {"/api/remote-jobs": {**remotive, "jobs": _many(remotive["jobs"][0], "id", "url")}},
        ),
        "arbeitnow": (Arbeitnow(max_pages=1), {"/api/job-board-api": arbeit}),
        "hackernews": (HackerNews(thread_id=1), {"/api/v1/items/1": hn}),
        "workday (list only)": (
            Workday(host="acme.wd5.myworkdayjobs.com", tenant="acme", site="External", search=[]),
            {"/wday/cxs/acme/External/jobs": _workday_list},
        ),
        "personio": (Personio(company="acme"), {"/xml": _personio_feed()}),
        "recruitee": (
            Recruitee(company="acme"),
            {
                "/api/offers/": {
                    "offers": _many(_load("recruitee_offers.json")["offers"][0], "id", "careers_url")
                }
            },
        ),
        "bamboohr (list only)": (
            BambooHR(company="acme"),
            {
                "/careers/list": {
                    "meta": {"totalCount": N},
                    "result": _many(_load("bamboohr_list.json")["result"][1], "id", None),
                }
            },
        ),
        "breezy": (Breezy(company="acme"), {"/json": _many(_load("breezy_positions.json")[0], "id", "url")}),
        "jobposting (one page)": (
            JobPosting(url="https://careers.acme.example/careers"),
            {"/careers": _jobposting_page()},
        ),
        "rss": (
            Rss(url="https://weworkremotely.example/feed.rss"),
            {"/feed.rss": (head + items + tail).encode()},
        ),
    }


async def parse_times(repeat: int) -> dict[str, tuple[float, int]]:
    """Median milliseconds to read N postings, per board (and how many listings came out)."""
    results: dict[str, tuple[float, int]] = {}
    for board, (source, bodies) in payloads().items():
        encoded = {
            p: b if isinstance(b, bytes) or callable(b) else json.dumps(b).encode() for p, b in bodies.items()
        }

        def handler(request: httpx.Request, encoded: dict[str, Answer] = encoded) -> httpx.Response:
            body = encoded.get(request.url.path)
            if body is None:  # details (SmartRecruiters, Workday, BambooHR), robots.txt: not parsed
                return httpx.Response(404)
            if callable(body):
                body = json.dumps(body(request)).encode()
            head = body.lstrip()[:6]
            kind = {b"<html>": "text/html", b"<?xml ": "application/xml"}.get(head, "application/json")
            return httpx.Response(200, content=body, headers={"Content-Type": kind})

        policy = HttpPolicy(min_interval=0, per_host=32)
        times = []
        count = 0
        for _ in range(repeat):
            async with BoardHttp(policy, transport=httpx.MockTransport(handler)) as http:
                started = time.perf_counter()
                fetched = await fetch_source(http, source)
                times.append(time.perf_counter() - started)
                count = len(fetched.listings)
        results[board] = (statistics.median(times) * 1000 * N / max(count, 1), count)
    return results


async def stage_rate(size: int, url: str) -> float:
    """Listings per second through one `jobsearch serve fetch` process."""
    namespace = "bench" + uuid.uuid4().hex[:8]
    settings = Settings(namespace=namespace, nats=NatsSettings(url=url), storage="file")
    env = {**os.environ, "NATS_URL": url, "JETJOBS_NAMESPACE": namespace, "JETJOBS_STORAGE": "file"}
    topology = Topology(settings)
    subject = topology.job_subject(QUEUES["dedupe"], "normal", LISTING_BATCH)
    service = await anyio.open_process(
        [sys.executable, "-m", "jobsearch.cli", "--loglevel", "WARNING", "serve", "fetch"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=None,
    )
    try:
        async with open_connection(settings.nats, name="bench") as nc:
            js = nc.jetstream()
            publisher = Publisher(nc, settings, topology=topology)
            profile = Profile(person=Person(name="Bench"), sources=[Sample(size=size)])
            await topology.ensure_queue(js, QUEUES["dedupe"])
            stored = 0
            done = anyio.Event()

            async def count(msg: Msg) -> None:  # listings arrive in batch jobs: count what they hold
                nonlocal stored
                stored += len(json.loads(msg.data)["payload"]["listings"])
                if stored >= size:
                    done.set()

            sub = await js.subscribe(subject, cb=count, ordered_consumer=True)
            started = time.perf_counter()
            await publisher.enqueue(SEARCH, SearchJob(run_id="bench", profile=profile), queue=QUEUES["fetch"])
            await done.wait()
            elapsed = time.perf_counter() - started
            await sub.unsubscribe()
            return size / elapsed
    finally:
        service.terminate()
        with anyio.fail_after(30):
            await service.wait()


async def main(args: argparse.Namespace) -> None:
    print(f"Adapter parse time per {N} postings (median of {args.repeat}):")
    for board, (ms, count) in (await parse_times(args.repeat)).items():
        print(f"  {board:28} {ms:8.1f} ms   ({count} listings)")
    with tempfile.TemporaryDirectory() as store, EmbeddedServer(Path(store)) as server:
        rates = [await stage_rate(args.size, server.url or "") for _ in range(args.repeat)]
    print(f"Fetch stage, Sample(size={args.size}), one service process:")
    each = ", ".join(f"{r:,.0f}" for r in rates)
    print(f"  {statistics.median(rates):,.0f} listings/s (median of {args.repeat}: {each})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fetch_stage")
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    anyio.run(main, parser.parse_args())
