"""Take the README's screenshots of the web pages from a realistic state (not a test).

`python -m tests.ui.screenshots ops` runs a private nats-server, two worker processes of the test
app on two queues, a stream of jobs (some of which dead-letter) and `jetjobs ui`, waits for two
whole minutes of throughput to show, and saves `docs/img/ops-page.png` (1440 px wide) and
`docs/img/ops-page-phone.png` (390 px, the top of the page).

`python -m tests.ui.screenshots review` records two runs' listings in a fresh SQLite state of
record (scored by the local fit), starts `jobsearch ui` over it and saves `docs/img/review-page.png`
(the table) and `docs/img/review-listing.png` (one listing beside its drafts) at 1440 px, and
`docs/img/review-page-phone.png` and `docs/img/review-listing-phone.png` at 390 px.

`python -m tests.ui.screenshots insights` records a week of a search (`seed_search`), starts
`jobsearch ui` over it and saves `docs/img/insights.png` (the `/insights` page, 1440 px wide).
"""

from __future__ import annotations

import os
import sys
import tempfile
from datetime import date
from pathlib import Path

import anyio
from playwright.async_api import async_playwright

from jetjobs import EmbeddedServer, NatsSettings, Publisher, Settings
from jetjobs._transport.connection import connect
from jetjobs.testing import WorkerPool
from jobsearch.fit import score
from jobsearch.listing import Salary
from jobsearch.profile import parse_profile
from jobsearch.store import Store
from tests.ui.conftest import CHROMIUM_ARGS, chromium_path
from tests.ui.listings import drafts, listing
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
            serving("jetjobs", ["ui", "--port", "0", "--allow-actions"], page_env(settings)) as url,
        ):
            await pool.start(2)
            await publisher.enqueue("jobs.missing", {"order": 1042, "note": "<b>not a tag</b>"})
            await publisher.enqueue("jobs.slow", {"seconds": "soon"}, queue="reports", max_attempts=2)
            async with anyio.create_task_group() as tg:
                tg.start_soon(_keep_busy, publisher)
                await _shoot_ops(url)
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


async def _shoot_ops(url: str) -> None:
    """The operations page once it shows two whole minutes of throughput: at 1440 px and at 390 px."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1440, "height": 860})
        await page.goto(url)
        await page.wait_for_selector("tr[data-worker]")
        rows = "#throughput table.rates tbody tr:nth-child(2)"
        await page.wait_for_selector(rows, timeout=200_000)  # two whole minutes, and a refresh
        await page.screenshot(path=str(IMAGES / "ops-page.png"), full_page=True)
        phone = await browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
        await phone.goto(url)
        await phone.wait_for_selector(rows)
        await phone.screenshot(path=str(IMAGES / "ops-page-phone.png"), full_page=False)
        await browser.close()


async def review_screenshots(store_dir: Path) -> None:
    """Two runs of listings (the second one's marked new), statuses moved along, one needing review."""
    db_path = store_dir / "jobsearch.sqlite"
    roles = [
        ("Senior Backend Engineer (Python)", "Northwind Labs", "greenhouse", 2, ("Berlin", "Remote (EU)")),
        ("Platform Engineer, Messaging", "Acme Robotics", "lever", 3, ("Amsterdam",)),
        ("Site Reliability Engineer", "Globex", "ashby", 4, ("Remote (EU)",)),
        ("Staff Engineer, Data Pipelines", "Initrode", "workable", 5, ("London", "Remote (UK)")),
        ("Backend Developer (Go/Python)", "Umbrella Health", "arbeitnow", 6, ("Munich",)),
        ("Infrastructure Engineer", "Hooli", "remotive", 8, ("Remote",)),
        ("Software Engineer, Job Scheduling", "Vandelay Logistics", "smartrecruiters", 9, ("Rotterdam",)),
    ]
    person = parse_profile(SHOT_PROFILE)
    with Store.open(db_path) as store:
        store.start_run("run-1", profile="profile.toml")
        for n, (title, company, board, days, places) in enumerate(roles, start=1):
            if n == 4:
                store.start_run("run-2", profile="profile.toml")
            run = "run-1" if n < 4 else "run-2"
            pay = Salary(min=70000 + 5000 * n, max=95000 + 6000 * n, currency="EUR", interval="year")
            item = listing(n, title=title, company=company, board=board, days_ago=days if n < 4 else 0,
                           salary=pay if n % 2 else None, locations=places,
                           description=POSTING.format(title=title, company=company))  # fmt: skip
            store.record_export(run_id=run, job_id=f"{run}-{n}", listing=item,
                                drafts=drafts(company, review=n == 5),
                                fit=score(person, item, date.today()))  # fmt: skip
        store.set_status("L0001", "Applied", source="ui")
        store.set_status("L0002", "Interview", source="ui")
        store.set_notes("L0002", "Call with the hiring manager on Thursday", source="ui")
        store.set_status("L0003", "Rejected", source="ui")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JETJOBS_", "NATS_"))}
    env["NATS_STORE_DIR"] = str(store_dir / "nats")
    profile = store_dir / "profile.toml"
    profile.write_text(SHOT_PROFILE)
    args = ["ui", "--port", "0", "--db", str(db_path), "--profile", str(profile)]
    async with serving("jobsearch.cli", args, env) as url:
        await _shoot(url, IMAGES / "review-page.png", "#listing-table")
        await _shoot(f"{url}listings/L0005", IMAGES / "review-listing.png", "#posting")
        await _shoot_phone(url, IMAGES / "review-page-phone.png", "#listing-table")
        await _shoot_phone(f"{url}listings/L0005", IMAGES / "review-listing-phone.png", "#posting")


async def _shoot_phone(url: str, path: Path, ready: str) -> None:
    """Open `url` in Chromium as a 390 px phone, wait for `ready`, save the top of the page."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        phone = await browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        await phone.goto(url)
        await phone.wait_for_selector(ready)
        await phone.screenshot(path=str(path), full_page=False)
        await browser.close()


SHOT_PROFILE = """[person]
name = "Ada Example"
skills = ["Python", "NATS", "Go", "PostgreSQL"]

[search]
terms = ["backend engineer", "platform engineer", "site reliability engineer"]
locations = ["Berlin", "Amsterdam"]
remote = "remote_or_hybrid"
"""


async def insights_screenshot(store_dir: Path) -> None:
    """A week of a search on six boards, with fit, pay and statuses: `/insights`."""
    from tests.ui.test_insights_page import seed_search  # noqa: PLC0415 (a test module's data)

    db_path = store_dir / "jobsearch.sqlite"
    seed_search(db_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JETJOBS_", "NATS_"))}
    env["NATS_STORE_DIR"] = str(store_dir / "nats")
    async with serving("jobsearch.cli", ["ui", "--port", "0", "--db", str(db_path)], env) as url:
        await _shoot(f"{url}insights", IMAGES / "insights.png", "#pay-chart")


POSTING = """{title} at {company}

About the team
We run the systems that move every order, invoice and notification: a few hundred services on
NATS JetStream and Postgres, deployed many times a day.

What you will do
- Design and run durable job processing: retries, dead letters, idempotent handlers.
- Own observability for your services: traces, metrics, alerts that mean something.
- Review designs and code with a small, friendly team.

What we look for
- Several years of backend work in Python or Go.
- Experience with message brokers (NATS, Kafka or RabbitMQ) in production.
- Clear writing: we decide in documents.

Benefits: 30 days of holiday, learning budget, remote within the EU."""


def main() -> None:
    """Take the screenshots named on the command line (`ops`, `review`)."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    shots = {"ops": ops_screenshot, "review": review_screenshots, "insights": insights_screenshot}
    if not sys.argv[1:] or any(name not in shots for name in sys.argv[1:]):
        sys.exit("usage: python -m tests.ui.screenshots ops|review|insights ...")
    for name in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as tmp:
            anyio.run(shots[name], Path(tmp))


if __name__ == "__main__":
    main()
