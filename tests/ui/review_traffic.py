"""What one open tab of the review page costs: bytes per minute on the wire, idle and during a run.

`python -m tests.ui.review_traffic [--seconds 60] [--listings 2000] [--code DIR]` records
`--listings` listings with drafts in a fresh SQLite state of record (the size the docs measure),
starts a private nats-server and `jobsearch ui` as a process, and keeps one visible Chromium tab
open on the listings for `--seconds` twice:

1. `idle`: the run that recorded them has finished;
2. `run`: a run is going on (started, its lock held, nothing new recorded meanwhile);
3. `run_writing`: the same run records one new listing every 10 s;

counting the bytes of every response after the page loaded (headers and body as Chromium reports
them, compressed as they travelled), the requests made, and the page process's CPU time.

`--code DIR` puts DIR first on the page process's `PYTHONPATH`: the "before" figures come from a
copy of the code before the change (`git archive HEAD services shared | tar -x -C /tmp/old`, then
`--code /tmp/old/services:/tmp/old/shared`). Not a test: run it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import Request, Response, async_playwright

from jetjobs import EmbeddedServer, NatsSettings, Settings
from jobsearch.listing import Salary
from jobsearch.store import Store
from tests.ui.conftest import CHROMIUM_ARGS, chromium_path
from tests.ui.listings import drafts, listing
from tests.ui.server import page_env, serving

TICK = os.sysconf("SC_CLK_TCK")
BOARDS = ("greenhouse", "lever", "ashby", "workable", "remotive")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def record(db_path: Path, count: int) -> None:
    """`count` listings of one finished run, each with a cover letter and a note."""
    with Store.open(db_path) as store:
        store.start_run("run-1", profile="profile.toml")
        for n in range(1, count + 1):
            pay = Salary(min=50_000 + 10 * n, max=70_000 + 10 * n, currency="EUR", interval="year")
            item = listing(n, title=f"Backend Engineer {n}", company=f"Company {n % 400}",
                           board=BOARDS[n % len(BOARDS)], days_ago=n % 30,
                           salary=pay if n % 3 else None)  # fmt: skip
            store.record_export(
                run_id="run-1", job_id=f"run-1-{n}", listing=item, drafts=drafts(item.company)
            )
        store.finish_run("run-1", outcome="ok", summary={})


async def one_tab(url: str, pid: int, seconds: float) -> dict[str, Any]:
    """Keep one tab open on `url` for `seconds`; its traffic after the load, and the server's CPU."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1366, "height": 900})
        first: list[int] = []

        async def loaded(request: Request) -> None:
            size = await request.sizes()
            first.append(size["responseHeadersSize"] + size["responseBodySize"])

        page.on("requestfinished", loaded)
        await page.goto(url)
        await page.wait_for_load_state("networkidle")
        page.remove_listener("requestfinished", loaded)
        sizes: list[int] = []
        statuses: list[int] = []

        async def answered(response: Response) -> None:
            # `response`, not `requestfinished`: Chromium reports no "finished" for a fetch's 304.
            statuses.append(response.status)
            size = await response.request.sizes()
            sizes.append(size["responseHeadersSize"] + size["responseBodySize"])

        page.on("response", answered)
        cpu = cpu_seconds(pid)
        await anyio.sleep(seconds)
        cpu = cpu_seconds(pid) - cpu
        page.remove_listener("response", answered)
        await anyio.sleep(0.5)  # the last answers' sizes
        await browser.close()
    minutes = seconds / 60
    return {
        "page_load_bytes": sum(first),
        "bytes_per_minute": round(sum(sizes) / minutes),
        "requests_per_minute": round(len(statuses) / minutes, 1),
        "answers_304": statuses.count(304),
        "server_cpu_ms_per_minute": round(1000 * cpu / minutes),
    }


async def measure(seconds: float, count: int, code: str | None) -> dict[str, Any]:
    """Both scenarios over one database; the figures as a dict."""
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "jobsearch.sqlite"
        record(db_path, count)
        server = EmbeddedServer(Path(tmp) / "nats")
        server.start()
        try:
            settings = Settings(namespace="bench", nats=NatsSettings(url=server.url), storage="memory")
            env = page_env(settings)
            if code:
                env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
            args = ["ui", "--port", "0", "--db", str(db_path)]
            figures: dict[str, Any] = {"listings": count, "seconds": seconds}
            async with serving("jobsearch.cli", args, env) as url:
                pid = _page_pid(url)
                figures["idle"] = await one_tab(url, pid, seconds)
                with Store.open(db_path) as store:
                    store.start_run("run-2", profile="profile.toml")  # held by this process until it ends
                    figures["run"] = await one_tab(url, pid, seconds)
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(_one_new_listing_every, store, 10.0, count)
                        figures["run_writing"] = await one_tab(url, pid, seconds)
                        tg.cancel_scope.cancel()
                    store.finish_run("run-2", outcome="ok", summary={})
            return figures
        finally:
            server.stop()


async def _one_new_listing_every(store: Store, seconds: float, after: int) -> None:
    """What a slow run writes: one new listing with drafts every `seconds` (a board at a time)."""
    for n in range(after + 1, after + 1000):
        await anyio.sleep(seconds)
        item = listing(n, title=f"Backend Engineer {n}", company=f"Company {n % 400}", board="lever")
        store.record_export(run_id="run-2", job_id=f"run-2-{n}", listing=item, drafts=drafts(item.company))


def _page_pid(url: str) -> int:
    """The pid of the process listening on `url`'s port (the page: started by `serving`)."""
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    inode = ""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
            inode = fields[9]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) == f"socket:[{inode}]" for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    raise RuntimeError(f"no process listens on port {port}")


def main() -> None:
    """Parse the options, run, print JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--listings", type=int, default=2000)
    parser.add_argument("--code", help="directories put first on the page process's PYTHONPATH")
    args = parser.parse_args()
    print(json.dumps(anyio.run(measure, args.seconds, args.listings, args.code), indent=2))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
