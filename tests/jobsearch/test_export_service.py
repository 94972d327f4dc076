"""The export service on a real nats-server: `jobsearch serve export` processes, several at once."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings, StatusRecord
from jetjobs.testing import worker_env
from jobsearch.jobs import EXPORT, QUEUES, TRACKER, ExportJob, TrackerJob
from jobsearch.run.children import StageServices
from jobsearch.run.progress import Progress, follow_ledger, wait_drained
from jobsearch.store import Store
from tests.jobsearch.export_support import drafts, listing, sheet_rows

pytestmark = [pytest.mark.integration]


@pytest.fixture
def data_dir(tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Children get the test's server, settings and a temp data dir through the environment."""
    env = worker_env(settings, settings.nats.url or "")
    env["JOBSEARCH_DATA_DIR"] = str(tmp_path / "data")
    for name in ("JOBSEARCH_DB", "JOBSEARCH_TRACKER"):
        env.pop(name, None)
    for name in list(os.environ):
        if name.startswith(("JOBSEARCH_", "JETJOBS_")) and name not in env:
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # As `jobsearch run` does before it starts the services: the file exists, in WAL mode.
    Store.open(tmp_path / "data" / "jobsearch.sqlite").close()
    return tmp_path / "data"


async def test_two_export_services_at_once(nc: NATS, settings: Settings, data_dir: Path) -> None:
    """Two export services share the queue and the SQLite file: every listing recorded once, its
    drafts once, both services did work, and two tracker renders at once both succeed."""
    publisher = Publisher(nc, settings)
    progress = Progress([EXPORT, TRACKER])
    subscription = await follow_ledger(publisher, progress)
    jobs = [
        publisher.build(
            EXPORT,
            ExportJob(run_id="r1", listing=listing(n % 150), drafts=drafts()),
            queue=QUEUES["export"],
        )
        for n in range(300)  # listings 0..149 twice each: concurrent upserts of one listing
    ]
    # Both running before the jobs arrive, each holding few at a time: they share the queue.
    async with (
        StageServices(["export"], concurrency=2) as one,
        StageServices(["export"], concurrency=2) as two,
    ):
        await publisher.publish_many(jobs)
        with anyio.fail_after(90):
            await wait_drained(publisher, progress, [QUEUES["export"]], tick=0.5)
        renders = [
            await publisher.enqueue(TRACKER, TrackerJob(run_id=f"render{i}"), queue=QUEUES["export"])
            for i in range(2)
        ]
        with anyio.fail_after(60):
            for render in renders:
                await progress.watch(render.id).wait()
        workers = {one.current["export"].worker_id, two.current["export"].worker_id}
    await subscription.unsubscribe()
    assert progress.counts[EXPORT].succeeded == 300
    assert progress.counts[EXPORT].dead == 0
    assert [progress.records[r.id].state for r in renders] == ["succeeded", "succeeded"]
    kv = await publisher.topology.status_kv(publisher.js)
    done_by = set()
    for job in jobs:
        entry = await kv.get(job.id)
        assert entry.value is not None
        done_by.add(msgspec.json.decode(entry.value, type=StatusRecord).worker)
    assert done_by == workers
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        assert store.conn.execute("SELECT count(*) FROM listings").fetchone()[0] == 150
        assert store.conn.execute("SELECT count(*) FROM drafts").fetchone()[0] == 600
    rows = sheet_rows(data_dir / "tracker.xlsx")
    assert len(rows) == 150
    assert not list(data_dir.glob("*.tmp"))  # noqa: ASYNC240 - a test's final check


async def test_a_locked_tracker_is_retried_until_the_lock_goes(
    nc: NATS, settings: Settings, data_dir: Path
) -> None:
    """The render job meets a spreadsheet's lock file: it retries (ledger says why), never writes;
    once the lock file goes, the retry writes the tracker."""
    publisher = Publisher(nc, settings)
    progress = Progress([EXPORT, TRACKER])
    subscription = await follow_ledger(publisher, progress)
    lock = data_dir / ".~lock.tracker.xlsx#"
    lock.write_text("a spreadsheet program")
    await publisher.enqueue(EXPORT, ExportJob(run_id="r1", listing=listing(1)), queue=QUEUES["export"])
    async with StageServices(["export"], concurrency=2):
        render = await publisher.enqueue(TRACKER, TrackerJob(run_id="r1"), queue=QUEUES["export"])
        with anyio.fail_after(60):
            while render.id not in progress.errors:
                await progress.next_change().wait()
        assert "open in a spreadsheet program" in progress.errors[render.id]
        assert not (data_dir / "tracker.xlsx").exists()
        lock.unlink()
        with anyio.fail_after(60):
            await progress.watch(render.id).wait()
    await subscription.unsubscribe()
    assert progress.records[render.id].state == "succeeded"
    assert len(sheet_rows(data_dir / "tracker.xlsx")) == 1
