"""What one open tab of the operations page costs: bytes per minute and server CPU per fragment.

`python -m benchmarks.ops_page [--seconds 60] [--code DIR]` runs a private nats-server with 300
dead letters and one live worker, starts `jetjobs ui` as a process, and then:

1. keeps one Chromium tab open on the page for `--seconds` (visible), counting the bytes of every
   response (headers and body, as Chromium reports them) and the page process's CPU time
   (`/proc/PID/stat`), and how many fragment requests the tab made;
2. asks each fragment 40 times the way the page's script does (sending back the last `ETag`, if
   the server gave one) and reports the page process's CPU milliseconds per request.

`--code DIR` puts DIR first on the page process's `PYTHONPATH`: the "before" figures come from
a copy of an older `shared/` (`git archive HEAD shared | tar -x -C /tmp/old`, then
`--code /tmp/old/shared`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
from playwright.async_api import Response, async_playwright

from jetjobs import EmbeddedServer, NatsSettings, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.connection import connect
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, utcnow
from jetjobs.testing import WorkerPool, worker_env

ROOT = Path(__file__).resolve().parents[1]
FRAGMENTS = ("workers", "queues", "throughput", "deadletters")
TICK = os.sysconf("SC_CLK_TCK")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]  # fmt: skip


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def dead_letters(nc: Any, settings: Settings, count: int) -> None:
    """`count` dead letters of three types and two reasons, a minute apart."""
    topology = Topology(settings)
    js = nc.jetstream()
    await topology.ensure_base(js)
    dead = DeadLetters(js, topology, Ledger(await topology.status_kv(js)))
    start = utcnow() - timedelta(minutes=count)
    for n in range(count):
        job_type = ("email.send", "jobsearch.draft", "report.monthly")[n % 3]
        letter = DeadLetter(
            job_id=f"job-{n:05d}",
            type=job_type,
            queue="default",
            reason="rejected" if n % 2 else "exhausted",
            error=f"handler failed: upstream answered 503 (attempt {n % 5 + 1})\n" * 3,
            attempts=5,
            worker="w-bench",
            failed_at=start + timedelta(minutes=n),
            enqueued_at=None,
            original_subject=topology.job_subject("default", "normal", job_type),
            original=b'{"id": "x", "payload": {"to": "someone@example.org"}}',
        )
        await dead.put(letter)


async def measure(seconds: float, code: str | None) -> dict[str, Any]:
    """Run the scenario once; the figures as a dict."""
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedServer(Path(tmp))
        server.start()
        try:
            settings = Settings(namespace="bench", nats=NatsSettings(url=server.url), storage="memory")
            nc = await connect(server.url, settings.nats)
            await dead_letters(nc, settings, 300)
            env = worker_env(settings, server.url)
            if code:
                env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
            async with WorkerPool("tests.apps:app", settings, server.url, cwd=ROOT) as pool:
                await pool.start(1)
                result = await _with_page(env, seconds)
            await nc.close()
            return result
        finally:
            server.stop()


async def _with_page(env: dict[str, str], seconds: float) -> dict[str, Any]:
    process = await anyio.open_process(
        [sys.executable, "-m", "jetjobs", "ui", "--port", "0"], env=env, cwd=ROOT
    )
    try:
        assert process.stdout is not None
        line = b""
        async for chunk in process.stdout:
            line += chunk
            if b"\n" in line:
                break
        url = line.decode().split(" on ", 1)[1].strip()
        tab = await _one_tab(url, process.pid, seconds)
        per_fragment = await _per_fragment(url, process.pid)
        return {"tab": tab, "per_fragment": per_fragment}
    finally:
        process.terminate()
        await process.wait()


async def _one_tab(url: str, pid: int, seconds: float) -> dict[str, Any]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1366, "height": 900})
        await page.goto(url)
        await page.wait_for_load_state("networkidle")
        sizes: list[int] = []
        fragments = 0

        async def finished(response: Response) -> None:
            nonlocal fragments
            try:
                size = await response.request.sizes()
                sizes.append(size["responseHeadersSize"] + size["responseBodySize"])
            except Exception as exc:
                print(f"no size for {response.url}: {exc}", file=sys.stderr)
                sizes.append(0)
            fragments += "/fragments/" in response.url

        page.on("response", finished)
        cpu = cpu_seconds(pid)
        await anyio.sleep(seconds)
        cpu = cpu_seconds(pid) - cpu
        await browser.close()
    minutes = seconds / 60
    return {
        "bytes_per_minute": round(sum(sizes) / minutes),
        "requests_per_minute": round(len(sizes) / minutes, 1),
        "fragment_requests_per_minute": round(fragments / minutes, 1),
        "server_cpu_ms_per_minute": round(1000 * cpu / minutes),
        "server_core_share": round(cpu / seconds, 4),
    }


async def _per_fragment(url: str, pid: int, rounds: int = 40) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        for name in FRAGMENTS:
            etag = ""
            cpu = cpu_seconds(pid)
            sizes, statuses = [], []
            for _ in range(rounds):
                headers = {"X-Fragment": "1"} | ({"If-None-Match": etag} if etag else {})
                answer = await client.get(f"/fragments/{name}", headers=headers)
                etag = answer.headers.get("etag", etag)
                sizes.append(len(answer.content))
                statuses.append(answer.status_code)
            cpu = cpu_seconds(pid) - cpu
            figures[name] = {
                "cpu_ms": round(1000 * cpu / rounds, 2),
                "first_body_bytes": sizes[0],
                "later_body_bytes": max(sizes[1:]),
                "answers_304": statuses.count(304),
            }
    return figures


def main() -> None:
    """Parse the options, run, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--code", help="a directory put first on the page process's PYTHONPATH")
    args = parser.parse_args()
    print(json.dumps(anyio.run(measure, args.seconds, args.code), indent=2))


if __name__ == "__main__":
    main()
