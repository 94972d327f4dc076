"""Take the README's screenshots of the web pages from a realistic state (not a test).

`python -m tests.ui.screenshots ops` runs a private nats-server, two worker processes of the test
app on two queues, a stream of jobs (some of which dead-letter) and `jetjobs ui`, waits for the
throughput to show, and saves `docs/img/ops-page.png`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import anyio
from playwright.async_api import async_playwright

from jetjobs import EmbeddedServer, NatsSettings, Publisher, Settings
from jetjobs.connection import connect
from jetjobs.pool import WorkerPool
from tests.ui.conftest import CHROMIUM_ARGS, chromium_path
from tests.ui.server import page_env, serving

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "img"


async def ops_screenshot(store: Path) -> None:
    """A busy `shop` deployment: workers, backlog, dead letters, two minutes of throughput."""
    server = EmbeddedServer(store)
    server.start()
    try:
        settings = Settings(namespace="shop", nats=NatsSettings(url=server.url), storage="memory")
        nc = await connect(server.url, settings.nats)
        publisher = Publisher(nc, settings)
        async with (
            WorkerPool(
                "tests.apps:app", settings, server.url, cwd=ROOT, concurrency=4, queues=("default", "reports")
            ) as pool,  # fmt: skip
            serving("jetjobs.cli", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url,
        ):
            await pool.start(2)
            await publisher.enqueue("jobs.missing", {"order": 1042, "note": "<b>not a tag</b>"})
            await publisher.enqueue("jobs.slow", {"seconds": "soon"}, queue="reports", max_attempts=2)
            async with anyio.create_task_group() as tg:
                tg.start_soon(_keep_busy, publisher)
                await anyio.sleep(75)  # a little over a minute of throughput samples
                await _shoot(url, IMAGES / "ops-page.png", "tr[data-worker]")
                tg.cancel_scope.cancel()
        await nc.close()
    finally:
        server.stop()


async def _keep_busy(publisher: Publisher) -> None:
    """Six jobs a second on two queues (one in six high priority); one more dead letter later."""
    for second in range(10_000):
        for i in range(6):
            await publisher.enqueue("jobs.slow", {"seconds": 0.8 + (i % 3) / 5},
                                    queue="reports" if i % 3 == 0 else "default",
                                    priority="high" if i == 1 else "normal")  # fmt: skip
        if second == 60:
            await publisher.enqueue("report.monthly", {"month": "2026-10"}, queue="reports")
        await anyio.sleep(1)


async def _shoot(url: str, path: Path, ready: str) -> None:
    """Open `url` in Chromium, wait for `ready`, save a full-page PNG."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1440, "height": 860})
        await page.goto(url)
        await page.wait_for_selector(ready)
        await page.screenshot(path=str(path), full_page=True)
        await browser.close()


def main() -> None:
    """Take the screenshot named on the command line (`ops`)."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if sys.argv[1:] == ["ops"]:
            anyio.run(ops_screenshot, Path(tmp))
        else:
            sys.exit("usage: python -m tests.ui.screenshots ops")


if __name__ == "__main__":
    main()
