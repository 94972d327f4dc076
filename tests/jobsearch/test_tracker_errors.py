"""Tracker errors a person can act on: one line saying what is wrong and what to do, no
traceback; a permanent one fails the run's render at once, a passing one is retried with a
deadline; a read-only tracker is left alone; every wait is bounded and says until when."""

from __future__ import annotations

import csv
import fcntl
import os
import stat
import uuid
from pathlib import Path

import anyio
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Reject, Retry, Settings
from jetjobs.testing import worker_env
from jobsearch.cli import main
from jobsearch.export import Deps, render_tracker
from jobsearch.jobs import QUEUES, TRACKER, TrackerJob
from jobsearch.run.children import StageServices
from jobsearch.run.progress import Progress, follow_ledger
from jobsearch.run.summary import RunSummary
from jobsearch.run.summary_lines import format_summary
from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store
from jobsearch.tracker import TrackerBusy, export_tracker
from tests.jobsearch.export_support import exported_data_dir, listing, sheet_rows

HINT = "; set JOBSEARCH_TRACKER or fix the folder"


def _sysfs() -> bool:
    with open("/proc/mounts", encoding="utf-8") as mounts:
        return any(line.split()[1:3] == ["/sys", "sysfs"] for line in mounts)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir holding two exported listings (no tracker yet)."""
    return exported_data_dir(tmp_path, monkeypatch, [listing(1), listing(2)], {"listings_new": 2})


def test_permission_denied_is_one_line(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tracker path where the system refuses to create files, even to root: `export` exits 1
    with one line naming the path and what to do. (sysfs refuses new files with EACCES whoever
    asks: the real PermissionError a chmod'ed folder gives a non-root user.)"""
    if not os.path.exists("/proc/mounts") or not _sysfs():
        pytest.skip("needs Linux's sysfs at /sys")
    target = Path(f"/sys/jobsearch-test-{uuid.uuid4().hex}.xlsx")
    monkeypatch.setenv("JOBSEARCH_TRACKER", str(target))
    assert main(["export"]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"jobsearch export: cannot write {target}: permission denied{HINT}\n"
    assert captured.out == ""
    assert not target.exists()


@pytest.mark.parametrize("below", ["tracker.xlsx", "sub/tracker.xlsx"])
def test_a_file_in_the_way_is_one_line(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], below: str
) -> None:
    """A tracker path under a regular file (the folder cannot be made: FileExistsError right
    under it, NotADirectoryError deeper): one line naming the file in the way; `--csv` too."""
    blocker = data_dir / "notes.txt"
    blocker.write_text("mine")
    target = blocker / below
    monkeypatch.setenv("JOBSEARCH_TRACKER", str(target))
    assert main(["export"]) == 1
    line = f"cannot write {target}: {blocker} is a file, not a folder{HINT}"
    assert capsys.readouterr().err == f"jobsearch export: {line}\n"
    assert main(["export", "--csv"]) == 1
    beside = target.with_suffix(".csv")
    line = f"cannot write {beside}: {blocker} is a file, not a folder{HINT}"
    assert capsys.readouterr().err == f"jobsearch export: {line}\n"
    assert blocker.read_text() == "mine"


def test_a_read_only_tracker_is_left_alone(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tracker made read-only (chmod 444) is neither read back nor replaced, even by root (its
    mode bits decide): one line says so; the CSV is still written."""
    tracker = data_dir / "tracker.xlsx"
    assert main(["export"]) == 0
    tracker.chmod(0o444)
    before = tracker.read_bytes()
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        store.record_export(run_id="r2", job_id="j3", listing=listing(3), drafts=[])
    capsys.readouterr()
    try:
        assert main(["export"]) == 1
        err = capsys.readouterr().err
        assert err == (
            f"jobsearch export: {tracker} is read-only (r--r--r--); left it as it is. To update it, "
            "make it writable (chmod u+w) or set JOBSEARCH_TRACKER to another file\n"
        )
        assert tracker.read_bytes() == before
        assert stat.S_IMODE(tracker.stat().st_mode) == 0o444
        assert main(["export", "--csv"]) == 0
        with (data_dir / "tracker.csv").open(encoding="utf-8-sig", newline="") as written:
            assert len(list(csv.reader(written))) == 4  # the header and three listings
    finally:
        tracker.chmod(0o644)
    assert main(["export"]) == 0
    assert len(sheet_rows(tracker)) == 3


def test_waiting_for_another_render_is_bounded_and_said(data_dir: Path) -> None:
    """Another renderer holds the render lock: the export says what it waits for and until when,
    goes on as soon as the lock is free, and gives up at the deadline with one line."""
    tracker = data_dir / "tracker.xlsx"
    heard: list[str] = []
    lock = data_dir / ".tracker.xlsx.render-lock"
    with Store.open(data_dir / "jobsearch.sqlite") as store, lock.open("a") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        with pytest.raises(TrackerBusy) as busy:
            export_tracker(store, tracker, lock_wait=0, on_wait=heard.append)
        assert str(busy.value).startswith(
            f"another render of {tracker} still held .tracker.xlsx.render-lock at "
        )
        assert str(busy.value).endswith(" UTC; nothing was written (if no jobsearch is running, try again)")
        assert not tracker.exists()

        def other_render_ends(message: str) -> None:
            heard.append(message)
            fcntl.flock(other, fcntl.LOCK_UN)

        report = export_tracker(store, tracker, on_wait=other_render_ends)
    assert report.rows == 2
    assert len(heard) == 2
    for message in heard:
        assert message.startswith(f"waiting for another render of {tracker} to finish (it holds ")
        assert " until " in message
        assert message.endswith(" UTC")


async def test_the_render_job_retries_a_locked_tracker_until_a_said_time(data_dir: Path) -> None:
    """A spreadsheet program holds the tracker: the render job retries every 10 s and says until
    when; on its last attempt it fails with the reason instead of retrying."""
    (data_dir / "~$tracker.xlsx").write_text("Excel")
    deps = Deps(load_pipeline_settings())
    try:
        with pytest.raises(Retry) as retry:
            render_tracker(deps, TrackerJob(run_id="r1"), attempt=3, max_attempts=30)
        assert retry.value.delay == 10.0
        assert "is open in a spreadsheet program (lock file ~$tracker.xlsx present)" in retry.value.reason
        assert "; retrying every 10 s until " in retry.value.reason
        with pytest.raises(Reject) as reject:
            render_tracker(deps, TrackerJob(run_id="r1"), attempt=30, max_attempts=30)
        assert "gave up after 30 tries" in reject.value.reason
    finally:
        await deps.aclose()
    assert not (data_dir / "tracker.xlsx").exists()


@pytest.mark.integration
@pytest.mark.parametrize("case", ["unwritable", "read-only"])
async def test_a_permanent_tracker_error_fails_the_render_at_once(
    nc: NATS, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """On a real server, the export service's render job meets an unwritable or read-only
    tracker: dead after one attempt (not retried for minutes), its error the one line the run's
    summary prints."""
    data = tmp_path / "data"
    env = worker_env(settings, settings.nats.url or "")
    for name in list(os.environ):
        if name.startswith(("JOBSEARCH_", "JETJOBS_")):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(data))
    with Store.open(data / "jobsearch.sqlite") as store:
        store.record_export(run_id="r1", job_id="j1", listing=listing(1), drafts=[])
    if case == "unwritable":
        (data / "notes.txt").write_text("mine")
        target = data / "notes.txt" / "tracker.xlsx"
        line = f"cannot write {target}: {data / 'notes.txt'} is a file, not a folder{HINT}"
    else:
        target = data / "tracker.xlsx"
        target.write_bytes(b"frozen")
        target.chmod(0o444)
        line = (
            f"{target} is read-only (r--r--r--); left it as it is. To update it, make it writable "
            "(chmod u+w) or set JOBSEARCH_TRACKER to another file"
        )
    monkeypatch.setenv("JOBSEARCH_TRACKER", str(target))
    publisher = Publisher(nc, settings)
    progress = Progress([TRACKER])
    subscription = await follow_ledger(publisher, progress)
    async with StageServices(["export"], concurrency=1):
        render = await publisher.enqueue(
            TRACKER, TrackerJob(run_id="r1"), queue=QUEUES["export"], max_attempts=30
        )
        with anyio.fail_after(60):
            await progress.watch(render.id).wait()
    await subscription.unsubscribe()
    record = progress.records[render.id]
    assert (record.state, record.attempt, record.dead_reason) == ("dead", 1, "rejected")
    assert record.error == line
    summary = format_summary(RunSummary(run_id="r1", seconds=1.0, tracker_error=record.error))
    assert f"  tracker    NOT written: {line}" in summary
    if case == "read-only":
        assert target.read_bytes() == b"frozen"
        target.chmod(0o644)
