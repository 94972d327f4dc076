"""Scheduled runs end to end: `jobsearch up` (real service processes) on a real nats-server, a
schedule added with `jobsearch schedule add` in a non-UTC zone, the sample board, the offline
provider; nobody types `jobsearch run`."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import anyio
import anyio.abc
import msgspec
import pytest
from benchmarks.jobsearch_run import profile as profile_with
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings
from jobsearch.jobs import SCHEDULED_RUN
from jobsearch.run.progress import Progress, follow_ledger
from jobsearch.store import Store
from tests.jobsearch.digest_servers import Receivers
from tests.jobsearch.export_support import sheet_rows
from tests.jobsearch.run_support import pipeline_env, service_pid

pytestmark = pytest.mark.integration

# A half-hour offset from UTC: a schedule read in the wrong zone is hours off, never seconds.
ZONE = "Asia/Kolkata"


@pytest.fixture
def run_settings(settings: Settings) -> Settings:
    """The test settings with a short duplicate window: the second run's postings reach dedupe."""
    return msgspec.structs.replace(settings, duplicate_window=1.0)


@pytest.fixture
def data_dir(tmp_path: Path, run_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every process gets the test's server, a temp data dir and the offline provider through the
    environment, as a person's shell (or a systemd unit) would give them."""
    data = pipeline_env(run_settings, tmp_path / "data", monkeypatch)
    monkeypatch.setenv("JETJOBS_WEBHOOK_ALLOW_HOSTS", "127.0.0.1")  # the digest's local receivers
    return data


def jobsearch(*argv: str) -> subprocess.CompletedProcess[str]:
    """One `jobsearch` command, as typed."""
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=dict(os.environ),
    )


def add_schedule(name: str, cron: str, profile: Path) -> subprocess.CompletedProcess[str]:
    """`jobsearch schedule add NAME --cron CRON --tz ZONE --profile PROFILE`."""
    return jobsearch("schedule", "add", name, "--cron", cron, "--tz", ZONE, "--profile", str(profile))


def cron_in(seconds: int) -> tuple[str, datetime]:
    """A 6-field cron for the wall-clock second `seconds` from now in ZONE, and that instant."""
    at = datetime.now(ZoneInfo(ZONE)).replace(microsecond=0) + timedelta(seconds=seconds)
    return f"{at.second} {at.minute} {at.hour} * * *", at


class Up:
    """`jobsearch up` as a child process, its output read line by line."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._changed = anyio.Event()

    async def read(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        async for chunk in self.process.stdout:
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            self.lines += [line.decode() for line in complete]
            self._changed.set()
            self._changed = anyio.Event()
        self._changed.set()

    async def line_with(self, text: str) -> str:
        """The first line containing `text`, once it is printed."""
        while True:
            for line in self.lines:
                if text in line:
                    return line
            if self.process.returncode is not None:
                raise AssertionError(f"jobsearch up exited {self.process.returncode}: {self.lines}")
            await self._changed.wait()


@contextlib.asynccontextmanager
async def jobsearch_up(tmp_path: Path) -> AsyncIterator[Up]:
    """`jobsearch up`, started and running every service; stopped with SIGTERM at the end, which
    it must obey with exit 0."""
    log = (tmp_path / "up.log").open("wb")  # its stderr: read only to explain a failure
    process = await anyio.open_process(
        [sys.executable, "-m", "jobsearch.cli", "up", "-c", "4"],
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stderr=log,
    )
    running = Up(process)
    async with anyio.create_task_group() as tg:
        tg.start_soon(running.read)
        with anyio.fail_after(90):
            await running.line_with("running fetch")
        try:
            yield running
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                with anyio.fail_after(60):
                    await process.wait()
            log.close()
    assert process.returncode == 0, running.lines


async def wait_for_runs(progress: Progress, count: int, seconds: float) -> None:
    """Until `count` scheduled runs have settled in the ledger."""
    with anyio.fail_after(seconds):
        while progress.counts[SCHEDULED_RUN].succeeded + progress.counts[SCHEDULED_RUN].dead < count:
            await progress.next_change().wait()


def scheduled_runs(data_dir: Path) -> list[tuple[str, str, str | None, str]]:
    """(run_id, trigger, outcome, started_at) of the scheduled runs in the state of record."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        rows = store.conn.execute(
            "SELECT run_id, trigger, outcome, started_at FROM runs WHERE trigger LIKE 'schedule:%' "
            "ORDER BY started_at"
        ).fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


@pytest.mark.timeout(400)
async def test_a_schedule_runs_the_search_with_nobody_typing_run_and_up_restarts_a_killed_stage(
    tmp_path: Path, data_dir: Path, nc: NATS, run_settings: Settings
) -> None:
    """A daily cron in Asia/Kolkata a few seconds ahead fires a whole run under `jobsearch up`:
    listings recorded, the tracker written, the run in `runs` as `schedule:morning` at the wall
    time asked for. Then the draft service is killed: `up` starts it again, and the next firing
    (another schedule) still completes."""
    profile = profile_with(tmp_path)
    progress = Progress([SCHEDULED_RUN])
    async with jobsearch_up(tmp_path) as up:
        subscription = await follow_ledger(Publisher(nc, run_settings), progress)
        cron, due = cron_in(8)
        added = jobsearch(
            "schedule", "add", "morning", "--cron", cron, "--tz", ZONE, "--profile", str(profile)
        )
        assert added.returncode == 0, added.stdout + added.stderr
        assert f"{cron} {ZONE}" in added.stdout
        assert "nothing serves scheduled runs" not in added.stdout  # `up` serves them

        await wait_for_runs(progress, 1, 180)
        [(run_id, trigger, outcome, started_at)] = scheduled_runs(data_dir)
        assert (trigger, outcome) == ("schedule:morning", "ok")
        started = datetime.fromisoformat(started_at)
        assert abs((started - due).total_seconds()) < 30  # the zone's wall time, not UTC's
        rows = sheet_rows(data_dir / "tracker.xlsx")
        assert rows
        assert all(row["Cover letter"] for row in rows)
        listed = jobsearch("schedule", "list")
        assert "morning" in listed.stdout
        assert "ok" in listed.stdout, listed.stdout

        killed = service_pid(up.process.pid, "draft")
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        with anyio.fail_after(60):
            await up.line_with("the draft service exited; started it again")
        cron, _ = cron_in(6)
        again = jobsearch(
            "schedule", "add", "evening", "--cron", cron, "--tz", ZONE, "--profile", str(profile)
        )
        assert again.returncode == 0, again.stdout + again.stderr
        await wait_for_runs(progress, 2, 180)
        await subscription.unsubscribe()
    outcomes = [(trigger, outcome) for _, trigger, outcome, _ in scheduled_runs(data_dir)]
    assert outcomes == [("schedule:morning", "ok"), ("schedule:evening", "ok")]
    assert run_id not in {r[0] for r in scheduled_runs(data_dir)[1:]}


@pytest.mark.timeout(300)
async def test_a_profile_broken_since_the_schedule_was_added_is_a_failed_run_told_by_the_digest(
    tmp_path: Path,
    data_dir: Path,
    nc: NATS,
    run_settings: Settings,
    receivers: tuple[Receivers, str],
) -> None:
    """The profile gets a typo after `schedule add`: the firing records a failed run whose summary
    names the file and the key, submits no search, and the digest (with the [digest] the profile
    had when it was last valid) says the run did not run and why."""
    http, base = receivers
    profile = profile_with(tmp_path)
    profile.write_text(profile.read_text() + f'\n[digest]\nwebhook = "{base}/hooks/jobsearch"\n')
    progress = Progress([SCHEDULED_RUN])
    async with jobsearch_up(tmp_path):
        subscription = await follow_ledger(Publisher(nc, run_settings), progress)
        cron, _ = cron_in(6)
        added = add_schedule("morning", cron, profile)
        assert added.returncode == 0, added.stdout + added.stderr
        profile.write_text(profile.read_text().replace("[person]", "[person]\nnmae = 'typo'", 1))
        await wait_for_runs(progress, 1, 120)
        await subscription.unsubscribe()
    [(run_id, trigger, outcome, _)] = scheduled_runs(data_dir)
    assert (trigger, outcome) == ("schedule:morning", "failed")
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        summary = store.conn.execute("SELECT summary FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
        listings = store.conn.execute("SELECT count(*) FROM listings").fetchone()[0]
    assert "nmae" in summary
    assert str(profile) in summary
    assert listings == 0
    [told] = http.to("/hooks/jobsearch")
    assert told.body["subject"] == "jobsearch: the scheduled run 'morning' did not run"
    assert "nmae" in told.body["text"]
    assert told.body["listings"] == []


def test_schedule_add_refuses_a_bad_profile_and_a_bad_zone(tmp_path: Path, data_dir: Path) -> None:
    """`schedule add` checks now what the run would find at 07:30 with nobody watching: a profile
    with a typo (exit 2, naming the key) and an unknown zone (exit 2, naming it)."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[person]\nname = "A"\nnmae = "typo"\n')
    refused = jobsearch("schedule", "add", "--daily", "07:30", "--profile", str(bad))
    assert refused.returncode == 2
    assert "nmae" in refused.stderr
    profile = profile_with(tmp_path)
    zone = jobsearch("schedule", "add", "--daily", "07:30", "--tz", "Mars/Olympus", "--profile", str(profile))
    assert zone.returncode == 2
    assert "Mars/Olympus" in zone.stderr
    time = jobsearch("schedule", "add", "--daily", "7.30", "--profile", str(profile))
    assert time.returncode == 2
    assert "HH:MM" in time.stderr
