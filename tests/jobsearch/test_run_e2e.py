"""`jobsearch run` end to end: real `jobsearch serve STAGE` processes on a real nats-server, the
bundled sample board, the offline provider, a temp data dir."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import msgspec
import pytest
from benchmarks.jobsearch_run import profile as profile_with
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings
from jobsearch.dedupe.report import read_listings
from jobsearch.jobs import DRAFT, EXPORT, LISTING_BATCH
from jobsearch.run.progress import Progress, follow_ledger
from jobsearch.store import Store
from tests.jobsearch.export_support import sheet_rows
from tests.jobsearch.run_support import pipeline_env, service_pid

pytestmark = pytest.mark.integration


@pytest.fixture
def run_settings(settings: Settings) -> Settings:
    """The test settings with a short duplicate window, so that a second run's listings reach
    dedupe's seen-set, not only the stream's deduplication."""
    return msgspec.structs.replace(settings, duplicate_window=1.0)


@pytest.fixture
def data_dir(tmp_path: Path, run_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The run and its children get the test's server and settings, a temp data dir and the
    offline provider, through the environment (as a person's shell would give them)."""
    return pipeline_env(run_settings, tmp_path / "data", monkeypatch)


async def first_of(*events: anyio.Event) -> None:
    """Wait until any of `events` is set."""
    async with anyio.create_task_group() as tg:

        async def wait(event: anyio.Event) -> None:
            await event.wait()
            tg.cancel_scope.cancel()

        for event in events:
            tg.start_soon(wait, event)


def run(profile: Path) -> subprocess.CompletedProcess[str]:
    """`jobsearch run --profile PROFILE`, as a person types it (output not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env=dict(os.environ),
    )


def counts(data_dir: Path) -> tuple[int, int]:
    """(listings, drafts) in the state of record."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        listings = store.conn.execute("SELECT count(*) FROM listings").fetchone()[0]
        drafts = store.conn.execute("SELECT count(*) FROM drafts").fetchone()[0]
    return listings, drafts


def test_run_writes_the_tracker_a_second_run_adds_nothing_and_a_replay_redrafts_once_unless_told_again(
    tmp_path: Path, data_dir: Path
) -> None:
    """The example profile with the sample board: a tracker with one row per listing dedupe kept,
    each with its drafts, exit 0, a summary naming the tracker; run again: nothing new.

    Then `jobsearch replay --since 1h --stage draft` after those runs (the second drafted nothing):
    every kept listing is drafted again (new draft rows beside the old ones), the tracker keeps one
    row per listing. The same command typed again adds nothing, starts no service and says why
    (the jobs were replayed before; `--again` to insist); with `--again` each listing is drafted
    once more. (One test: the replay needs a run before it, and these runs serve both.)"""
    profile = profile_with(tmp_path)
    first = run(profile)
    assert first.returncode == 0, first.stdout + first.stderr
    kept = read_listings(data_dir / "jobsearch.sqlite")
    assert kept
    assert {item.state for item in kept} == {"drafted"}
    rows = sheet_rows(data_dir / "tracker.xlsx")
    assert sorted(row["ID"] for row in rows) == sorted(item.listing.id for item in kept)
    assert all(row["Cover letter"] and row["Connection note"] for row in rows)
    assert {row["Provider/model"] for row in rows} == {"offline/template-v2"}
    assert {row["Status"] for row in rows} == {"Drafted"}
    assert f"tracker    {data_dir / 'tracker.xlsx'} ({len(kept)} listings)" in first.stdout
    assert "sources    1 ok, 0 failed" in first.stdout
    assert "progress: fetched 40" in first.stdout
    before = counts(data_dir)

    second = run(profile)
    assert second.returncode == 0, second.stdout + second.stderr
    assert counts(data_dir) == before
    assert len(sheet_rows(data_dir / "tracker.xlsx")) == len(kept)
    assert re.search(
        r"listings   seen 40 = new 0 \+ updated 0 \+ merged 0 \+ unchanged \d+ \+ filtered \d+", second.stdout
    )
    assert "drafts     0" in second.stdout

    replay_draft_once_unless_told_again(data_dir)


def test_a_bad_profile_fails_at_start_naming_it(tmp_path: Path, data_dir: Path) -> None:
    """A profile with a wrong key: exit 2 and the file, line and key in the message; no services."""
    profile = tmp_path / "bad.toml"
    profile.write_text('[person]\nname = "A"\nnmae = "typo"\n')
    result = run(profile)
    assert result.returncode == 2
    assert "bad.toml" in result.stderr
    assert "nmae" in result.stderr


@pytest.mark.timeout(400)
async def test_a_stage_service_killed_mid_run_loses_nothing(
    tmp_path: Path, data_dir: Path, nc: NATS, run_settings: Settings
) -> None:
    """SIGKILL the dedupe service (the slowest stage, so it always holds jobs) mid-run: the run
    restarts it, the jobs it held are redelivered, and every kept listing still reaches the
    tracker with its drafts; exit 0."""
    # 15 batches of postings: the kill comes after 5, so 10 are still to dedupe (each takes dedupe
    # ~0.1 s, while drafting every kept listing takes ~20 ms each: the size is what the test costs).
    profile = profile_with(tmp_path, size=1500, open_search=True)
    progress = Progress([LISTING_BATCH, DRAFT, EXPORT])
    subscription = await follow_ledger(Publisher(nc, run_settings), progress)
    log = (tmp_path / "run.log").open("wb")  # the run's stderr: read only to explain a failure
    process = await anyio.open_process(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile), "-c", "4"],
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stderr=log,
    )
    output = bytearray()

    async def collect() -> None:
        assert process.stdout is not None
        async for chunk in process.stdout:
            output.extend(chunk)

    async with anyio.create_task_group() as tg:
        tg.start_soon(collect)
        exited = anyio.Event()

        async def watch_exit() -> None:
            await process.wait()
            exited.set()

        tg.start_soon(watch_exit)
        with anyio.fail_after(120):
            while progress.counts[LISTING_BATCH].succeeded < 5 and not exited.is_set():
                await first_of(progress.next_change(), exited)
        assert not exited.is_set(), output.decode() + (tmp_path / "run.log").read_text()
        killed = service_pid(process.pid, "dedupe")
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        looked_at_kill = progress.counts[LISTING_BATCH].succeeded
        with anyio.fail_after(300):
            code = await process.wait()
    await subscription.unsubscribe()
    log.close()
    text = output.decode()
    assert code == 0, text + (tmp_path / "run.log").read_text()
    assert "the dedupe service exited; restarted it" in text
    assert looked_at_kill < progress.counts[LISTING_BATCH].succeeded  # the kill was mid-run
    assert progress.redelivered  # the jobs the killed service held ran again
    assert progress.counts[LISTING_BATCH].dead == 0
    kept = read_listings(data_dir / "jobsearch.sqlite")
    assert len(kept) > 50
    assert {item.state for item in kept} == {"drafted"}
    rows = sheet_rows(data_dir / "tracker.xlsx")
    assert sorted(row["ID"] for row in rows) == sorted(item.listing.id for item in kept)
    assert all(row["Cover letter"] for row in rows)
    assert progress.counts[DRAFT].dead == 0
    assert progress.counts[EXPORT].dead == 0


def replay_draft(*extra: str) -> subprocess.CompletedProcess[str]:
    """`jobsearch replay --since 1h --stage draft`, as a person types it."""
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "replay", "--since", "1h", "--stage", "draft", *extra],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env=dict(os.environ),
    )


def replay_draft_once_unless_told_again(data_dir: Path) -> None:
    """The replay part of the first test, after its runs (see its docstring)."""
    listings, drafts = counts(data_dir)
    kept = listings  # one draft job per kept listing

    first = replay_draft()
    assert first.returncode == 0, first.stdout + first.stderr
    assert counts(data_dir) == (listings, 2 * drafts)
    assert f"drafts     {drafts} for {kept} listings (offline/template-v2 {drafts})" in first.stdout
    assert len(sheet_rows(data_dir / "tracker.xlsx")) == listings

    second = replay_draft()
    assert second.returncode == 0, second.stdout + second.stderr
    assert counts(data_dir) == (listings, 2 * drafts)
    assert f"nothing to replay: the {kept} draft jobs since" in second.stdout
    assert "were replayed before (add --again to run them once more)" in second.stdout
    assert "progress:" not in second.stdout  # no services, no run

    dry = replay_draft("--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "would run 0 draft jobs again" in dry.stdout

    again = replay_draft("--again")
    assert again.returncode == 0, again.stdout + again.stderr
    assert counts(data_dir) == (listings, 3 * drafts)
    assert f"drafts     {drafts} for {kept} listings (offline/template-v2 {drafts})" in again.stdout


@pytest.mark.timeout(120)
async def test_a_run_without_services_says_which_stage_no_worker_serves(
    tmp_path: Path, data_dir: Path
) -> None:
    """`jobsearch run --no-services` with no stage service running anywhere does not wait in
    silence: it names the queue that holds the search and the command that would serve it; a
    SIGTERM then stops it cleanly."""
    profile = profile_with(tmp_path)
    process = await anyio.open_process(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile), "--no-services"],
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    output = bytearray()
    assert process.stdout is not None
    with anyio.fail_after(60):
        async for chunk in process.stdout:
            output.extend(chunk)
            if b"start `jobsearch serve fetch`" in output:
                break
    text = output.decode()
    assert "jobs are queued on jobsearch-fetch and no live worker serves it" in text, text
    process.send_signal(signal.SIGTERM)
    with anyio.fail_after(30):
        code = await process.wait()
    assert code == 128 + signal.SIGTERM


async def test_a_run_refuses_services_left_running_with_other_settings(
    tmp_path: Path, data_dir: Path
) -> None:
    """A `jobsearch serve draft` started with another LLM setting would draft this run's listings
    with it: the run does not start its own, says which service and what to do, exits 2, and
    starts nothing."""
    other = dict(os.environ) | {"LLM_TIMEOUT": "7"}
    service = await anyio.open_process(
        [sys.executable, "-m", "jobsearch.cli", "--log-format", "json", "serve", "draft"],
        env=other,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert service.stderr is not None
        seen = bytearray()
        with anyio.fail_after(60):
            async for chunk in service.stderr:
                seen.extend(chunk)
                if b"worker.started" in seen:
                    break
        result = await anyio.to_thread.run_sync(run, profile_with(tmp_path))
        assert result.returncode == 2, result.stdout + result.stderr
        assert "already running with other settings than this run" in result.stderr
        assert f"pid {service.pid} draft" in result.stderr
        assert not (data_dir / "tracker.xlsx").exists()  # nothing ran
    finally:
        service.terminate()
        with anyio.fail_after(30):
            await service.wait()


def test_a_run_drafts_only_the_best_listings_by_fit(tmp_path: Path, data_dir: Path) -> None:
    """The example profile as written ([drafting] min_fit = 50, max_per_run = 15): the run drafts
    at most 15 listings, each with a fit of 50 or more and none worse than a listing it left
    undrafted above the bar; the rest are kept in the tracker, undrafted; the summary says how
    many it chose, how many were below the bar and how many the cap held back."""
    profile = profile_with(tmp_path, size=200, open_search=True, draft_all=False)
    result = run(profile)
    assert result.returncode == 0, result.stdout + result.stderr
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        rows = store.conn.execute(
            "SELECT l.fit, EXISTS (SELECT 1 FROM drafts d WHERE d.listing_id = l.id) FROM listings l"
        ).fetchall()
    drafted = sorted((fit for fit, has in rows if has), reverse=True)
    left = [fit for fit, has in rows if not has]
    assert 0 < len(drafted) <= 15
    assert min(drafted) >= 50
    above = [fit for fit in left if fit >= 50]
    assert all(fit <= min(drafted) for fit in above)
    below = len(left) - len(above)
    assert (
        f"chose the best {len(drafted)} by fit; not drafted: {below} below the fit bar, "
        f"{len(above)} held back by the cap"
    ) in result.stdout
    assert len(sheet_rows(data_dir / "tracker.xlsx")) == len(rows)  # every listing kept and shown
