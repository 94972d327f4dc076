"""`python -m benchmarks.drafting [--listings N]`: the draft stage's own numbers.

1. offline: drafts a second of the offline provider through the whole stage path (prompt, the
   provider layer, the checks), in one process, over N listings x 2 steps.
2. service: the same through `jobsearch.draft` as a jetjobs worker on a real nats-server: N draft
   jobs published, timed until N export jobs have arrived at a stand-in export worker.
3. overhead: the provider layer's cost per call against a local OpenAI-shaped server that answers
   at once, minus a raw httpx POST of the same body to the same server (median of many calls).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec

from jetjobs import App, EmbeddedServer, JobContext, NatsSettings, Publisher, Settings, Worker
from jetjobs._observability.log import configure_logging
from jetjobs._transport.connection import connect
from jobsearch import draft as draft_stage
from jobsearch.draft.service import Drafter
from jobsearch.jobs import DRAFT, EXPORT, QUEUES, DraftJob, ExportJob
from jobsearch.listing import MergedListing
from jobsearch.llm import LlmClient, load_llm_settings
from jobsearch.profile import Education, Experience, Person, Profile

PROFILE = Profile(
    person=Person(
        name="Jane Doe",
        email="jane@example.org",
        links=["https://github.com/janedoe"],
        summary="Backend engineer with eight years of building reliable data services.",
        skills=["Python", "PostgreSQL", "Kubernetes", "Go", "Kafka", "AWS"],
        experience=[
            Experience(
                employer="Initech",
                title="Senior Software Engineer",
                start=date(2020, 3, 1),
                highlights=[
                    "Led the move of the billing pipeline to Kafka: month-end runs from 9 h to 40 min",
                    "Designed the PostgreSQL partitioning that keeps 4 TB of invoices queryable",
                ],
            ),
            Experience(
                employer="Hooli",
                title="Software Engineer",
                start=date(2016, 9, 1),
                end=date(2020, 2, 29),
                highlights=["Built the Python services behind the partner reporting API"],
            ),
        ],
        education=[Education(institution="Technical University of Munich", degree="BSc")],
    )
)
DESCRIPTION = (
    "We build event pipelines in Python and Kafka on Kubernetes, with PostgreSQL underneath. "
    "You will own services end to end, from design to on-call. Experience with Go is a plus. "
) * 6


def listings(n: int) -> list[MergedListing]:
    """N listings of a few hundred words each (the description sizes boards send)."""
    return [
        MergedListing(
            id=f"bench-{i}",
            title=("Backend Engineer", "Platform Engineer", "Data Engineer")[i % 3],
            company=f"Company {i % 97}",
            url=f"https://boards.example.com/jobs/{i}",
            locations=["Berlin"],
            description=DESCRIPTION,
        )
        for i in range(n)
    ]


async def offline_rate(n: int) -> dict[str, float]:
    """Drafts a second through Drafter with the offline provider (prompt + call + checks)."""
    jobs = [DraftJob(run_id="bench", listing=listing, profile=PROFILE) for listing in listings(n)]
    async with LlmClient(load_llm_settings({})) as client:
        drafter = Drafter(client)
        started = time.perf_counter()
        drafts = 0
        for job in jobs:
            drafts += len(await drafter.draft(job))
        elapsed = time.perf_counter() - started
    return {"drafts": drafts, "seconds": elapsed, "drafts_per_second": drafts / elapsed}


async def service_rate(n: int, concurrency: int) -> dict[str, float]:
    """Drafts a second through the draft service on a real nats-server (publish to last export)."""
    with tempfile.TemporaryDirectory() as store:
        server = EmbeddedServer(Path(store))
        server.start()
        try:
            settings = Settings(namespace="benchdraft", nats=NatsSettings(url=server.url), storage="memory")
            nc = await connect(server.url, settings.nats, name="bench-draft")
            arrived = 0
            done = anyio.Event()

            exporting = App("bench-export", builtins=False)

            @exporting.job(EXPORT, payload=ExportJob)
            async def export(ctx: JobContext, job: ExportJob) -> None:
                nonlocal arrived
                arrived += 1
                if arrived >= n:
                    done.set()

            drafting = App("bench-draft", builtins=False)
            draft_stage.register(drafting, env={})
            exporter = Worker(exporting, nc, settings, queues=[QUEUES["export"]], concurrency=50)
            drafter = Worker(drafting, nc, settings, queues=[QUEUES["draft"]], concurrency=concurrency)
            jobs = [DraftJob(run_id="bench", listing=listing, profile=PROFILE) for listing in listings(n)]
            async with anyio.create_task_group() as tg:
                await tg.start(exporter.run)
                await tg.start(drafter.run)
                publisher = Publisher(nc, settings)
                started = time.perf_counter()
                built = [publisher.build(DRAFT, job, queue=QUEUES["draft"]) for job in jobs]
                await publisher.publish_many(built)
                with anyio.fail_after(600):
                    await done.wait()
                elapsed = time.perf_counter() - started
                drafter.stop()
                exporter.stop()
            await nc.close()
        finally:
            server.stop()
    return {"listings": n, "drafts": 2 * n, "seconds": elapsed, "drafts_per_second": 2 * n / elapsed}


ANSWER = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hello."}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }
).encode()


@contextmanager
def instant_server() -> Iterator[str]:
    """An OpenAI-shaped server answering every POST at once, on HTTP/1.1 keep-alive."""

    response = (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        + f"content-length: {len(ANSWER)}\r\n\r\n".encode()
        + ANSWER
    )

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One write and no Nagle: otherwise delayed ACKs add ~40 ms to every call, both sides.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.wfile.write(response)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


_SYSTEM, _PROMPT = "You write cover letters." * 20, "Write one." * 200
_BODY = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": _PROMPT}],
    "max_completion_tokens": 500,
    "stream": False,
}
_HEADERS = {"authorization": "Bearer sk-bench", "content-type": "application/json"}


def _env(base: str) -> dict[str, str]:
    return {"LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": base}


async def _compare(raw: httpx.AsyncClient, llm: LlmClient, base: str, calls: int) -> dict[str, float]:
    """Alternate a raw POST and a `call_llm` of the same body; medians after 20 warm-up calls each."""
    raw_times, layer_times = [], []
    for i in range(calls * 2 + 40):
        t = time.perf_counter()
        if i % 2:
            r = await raw.post(f"{base}/chat/completions", json=_BODY, headers=_HEADERS)
            msgspec.json.decode(r.content)
            raw_times.append(time.perf_counter() - t)
        else:
            await llm.call_llm("cover_letter", _SYSTEM, _PROMPT, max_tokens=500)
            layer_times.append(time.perf_counter() - t)
    raw_us = statistics.median(raw_times[20:]) * 1e6
    layer_us = statistics.median(layer_times[20:]) * 1e6
    return {"raw_httpx_us": raw_us, "call_llm_us": layer_us, "overhead_us": layer_us - raw_us}


async def overhead(calls: int) -> dict[str, float]:
    """Median microseconds per call: LlmClient.call_llm vs a raw httpx POST of the same body."""
    with instant_server() as base:
        async with httpx.AsyncClient() as raw, LlmClient(load_llm_settings(_env(base))) as llm:
            return await _compare(raw, llm, base, calls)


async def overhead_in_memory(calls: int) -> dict[str, float]:
    """The same comparison over httpx.MockTransport: the layer's own CPU cost, without socket noise."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=ANSWER, headers={"content-type": "application/json"})

    base = "http://llm.invalid/v1"
    transport = httpx.MockTransport(answer)
    async with (
        httpx.AsyncClient(transport=transport) as raw,
        httpx.AsyncClient(transport=transport) as shared,
    ):
        return await _compare(raw, LlmClient(load_llm_settings(_env(base)), http=shared), base, calls)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    results["offline"] = await offline_rate(args.listings)
    print(f"offline, in process: {results['offline']['drafts_per_second']:.0f} drafts/s", flush=True)
    results["service"] = await service_rate(args.listings, args.concurrency)
    print(f"offline, through the service: {results['service']['drafts_per_second']:.0f} drafts/s", flush=True)
    results["overhead"] = await overhead(args.calls)
    o = results["overhead"]
    print(
        f"provider layer: call_llm {o['call_llm_us']:.0f} us, raw httpx {o['raw_httpx_us']:.0f} us, "
        f"overhead {o['overhead_us']:.0f} us per call",
        flush=True,
    )
    results["overhead_in_memory"] = m = await overhead_in_memory(args.calls)
    print(
        f"provider layer, in memory: call_llm {m['call_llm_us']:.0f} us, "
        f"raw httpx {m['raw_httpx_us']:.0f} us, "
        f"overhead {m['overhead_us']:.0f} us per call",
        flush=True,
    )
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.drafting")
    parser.add_argument("--listings", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--json", type=Path, help="also write the results here")
    arguments = parser.parse_args()
    configure_logging(json=True, level="WARNING")
    outcome = anyio.run(main, arguments)
    if arguments.json:
        arguments.json.write_text(json.dumps(outcome, indent=2))
