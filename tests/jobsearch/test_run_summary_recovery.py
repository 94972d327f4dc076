"""After a `jobsearch run` is killed mid-run, the next run's summary tells its own numbers apart
from what it finished for the killed run, and the killed run is recorded `interrupted`.

The end-to-end test: real `jobsearch run` and `jobsearch serve STAGE` processes on a real
nats-server; the sample board (300 postings, no filters) and three Greenhouse-shaped boards on
127.0.0.1 (`acme` asks to be called again in 8 s when the first run reads it, `beta` does the
same and then answers 404, `gone` always answers 404); an OpenAI-shaped provider slow enough
that the kill lands mid-draft. It waits on ledger entries and process exits, never on time.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from benchmarks.jobsearch_run import profile as profile_with
from nats.aio.client import Client as NATS

from jetjobs import Publisher, Settings, StatusRecord
from jetjobs.testing import worker_env
from jobsearch.jobs import DRAFT, EXPORT, EXPORT_BATCH, LISTING_BATCH, SOURCE
from jobsearch.run.progress import Progress, follow_ledger
from jobsearch.run.summary import FAILED, summarise
from jobsearch.run.summary_lines import format_summary
from jobsearch.store import RunNumbers, Store
from tests.http_target import Answer, HttpTarget, serving
from tests.jobsearch.boards import ok_file
from tests.jobsearch.provider_servers import ProviderServer
from tests.support import processes_ended

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

BOARD = "/v1/boards/{token}/jobs?content=true&pay_transparency=true"
SAMPLE = 300
_LISTINGS = re.compile(
    r"listings   seen (\d+) = new (\d+) \+ updated (\d+) \+ merged (\d+) \+ unchanged (\d+)"
    r" \+ filtered (\d+)$"
)


@pytest.fixture
def board() -> Iterator[HttpTarget]:
    """Greenhouse-shaped boards on 127.0.0.1, answering as each test scripts them."""
    with serving() as target:
        yield target


@pytest.fixture
def run_settings(settings: Settings) -> Settings:
    """The test server's settings, with a short duplicate window (as test_run_e2e)."""
    return msgspec.structs.replace(settings, duplicate_window=1.0)


@pytest.fixture
def data_dir(
    tmp_path: Path, run_settings: Settings, providers: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The runs' environment: the test's server, a temp data dir, OpenAI (the local server) as
    the provider, the boards' address allowed, and no retry inside a board read (a 503 makes
    the source job itself wait for its next attempt, as a rate-limited board does)."""
    for name in list(os.environ):
        if name.startswith(
            ("JOBSEARCH_", "JETJOBS_", "LLM_", "COVER_LETTER_", "CONNECTION_NOTE_", "OPENAI_")
        ):
            monkeypatch.delenv(name)
    env = worker_env(run_settings, run_settings.nats.url or "") | providers.env("openai")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_PROVIDER", "openai")
    monkeypatch.setenv("JOBSEARCH_ALLOW_HOSTS", "127.0.0.1")
    monkeypatch.setenv("JOBSEARCH_HTTP_RETRIES", "0")
    return tmp_path / "data"


def child_pids(pid: int) -> list[int]:
    """The processes `pid` started (its stage services)."""
    return [
        int(c)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for c in (task / "children").read_text().split()
    ]


async def ended(pids: list[int]) -> None:
    """Wait until each of `pids` has exited."""
    await processes_ended(pids)


def drafts_of(data_dir: Path, run_id: str) -> tuple[int, int]:
    """(drafts, drafted listings) recorded for `run_id`."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        row = store.conn.execute(
            "SELECT count(*), count(DISTINCT listing_id) FROM drafts WHERE run_id = ?", (run_id,)
        ).fetchone()
    return int(row[0]), int(row[1])


def runs(data_dir: Path) -> dict[str, str | None]:
    """Each run's outcome, in the order they started."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        rows = store.conn.execute("SELECT run_id, outcome FROM runs ORDER BY started_at, rowid")
        return {row["run_id"]: row["outcome"] for row in rows}


async def dead_letters(nc: NATS, settings: Settings) -> int:
    """How many dead letters the namespace holds."""
    publisher = Publisher(nc, settings)
    return int((await publisher.js.stream_info(publisher.topology.dlq_stream)).state.messages)


async def test_the_run_after_a_kill_tells_its_own_work_from_what_it_finished_for_the_killed_run(
    *,
    tmp_path: Path,
    data_dir: Path,
    nc: NATS,
    run_settings: Settings,
    providers: ProviderServer,
    board: HttpTarget,
) -> None:
    """Run A is killed (-9, by PID) mid-draft (drafting starts once its boards are read: acme
    after two retries, beta and gone dead). Run B, the same profile, finishes A's draft jobs
    under A's id and exits 1 (boards failed). B's summary counts each of its sources once and
    each posting once (`seen` = the sample's 300 + acme's 3, and the parts add up), its own
    drafts (none: A's shortlist took every listing), its own dead jobs (none besides the two
    sources) and the dead letters left before it began; one line says what it finished for A,
    marked `interrupted` as the runs table now records it: A's drafts and listings recorded
    since the kill. Every dead letter in the stream is accounted for in the summary."""
    profile = profile_with(tmp_path, size=SAMPLE, open_search=True)
    boards = "".join(
        f'\n[[sources]]\nboard = "greenhouse"\ntoken = "{token}"\nbase_url = "{board.url("")}"\n'
        for token in ("acme", "beta", "gone")
    )
    profile.write_text(profile.read_text() + boards)
    later = Answer(503, b"busy", {"Retry-After": "8"})  # A is killed long before it asks again
    soon = Answer(503, b"busy", {"Retry-After": "1"})  # one source job of B's time retries
    board.script(BOARD.format(token="acme"), later, soon, ok_file("greenhouse_jobs.json"))
    board.script(BOARD.format(token="beta"), later, soon, Answer(404, b"no such board"))
    board.script(BOARD.format(token="gone"), Answer(404, b"no such board"))
    providers.hang["openai"] = 0.05  # 0.1 s a listing: 270 listings take seconds at -c 4

    progress = Progress([SOURCE, LISTING_BATCH, EXPORT_BATCH, DRAFT, EXPORT])
    subscription = await follow_ledger(Publisher(nc, run_settings), progress)
    command = [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile), "-c", "4"]
    with (tmp_path / "a.log").open("wb") as log:
        first = await anyio.open_process(command, env=dict(os.environ), stdout=log, stderr=log)

        def mid_draft() -> bool:
            c = progress.counts
            fetched = c[SOURCE].succeeded == 2 and c[SOURCE].dead == 2  # sample, acme; beta, gone
            deduped = c[LISTING_BATCH].submitted == c[LISTING_BATCH].succeeded >= SAMPLE // 100
            kept = c[EXPORT_BATCH].submitted == c[EXPORT_BATCH].succeeded > 0
            return fetched and deduped and kept and c[DRAFT].succeeded >= 20

        with anyio.fail_after(120):
            while not mid_draft():
                assert first.returncode is None, (tmp_path / "a.log").read_text()
                await progress.next_change().wait()
        services = child_pids(first.pid)
        os.kill(first.pid, signal.SIGKILL)
        await first.wait()
        with anyio.fail_after(60):
            await ended(services)  # tethered: they hand their jobs back and exit
    await subscription.unsubscribe()
    assert progress.counts[DRAFT].succeeded < progress.counts[DRAFT].submitted  # killed mid-draft
    [killed] = runs(data_dir)
    drafts_before, drafted_before = drafts_of(data_dir, killed)
    letters_before = await dead_letters(nc, run_settings)
    assert letters_before == 2  # A's `beta` and `gone` sources

    second = await anyio.run_process(command, check=False, env=dict(os.environ))
    out = second.stdout.decode()
    assert second.returncode == FAILED, out + second.stderr.decode()[-3000:]
    (_, ours) = runs(data_dir)
    assert runs(data_dir) == {killed: "interrupted", ours: "failed"}
    lines = out.splitlines()
    head = lines.index(next(line for line in lines if line.startswith(f"jobsearch run {ours}:")))
    summary = lines[head:]
    text = "\n".join(summary)

    assert summary[1] == "  sources    2 ok, 2 failed", text  # sample, acme; beta, gone
    failed_boards = {re.search(r"/boards/(\w+)/", line) for line in summary[2:4]}
    assert {found[1] for found in failed_boards if found} == {"beta", "gone"}, text
    # the listings line follows the sources' (and their skipped postings': "acme: 3 postings; 1 no url")
    found = next((m for line in summary[4:7] if (m := _LISTINGS.match(line.strip()))), None)
    assert found, text
    seen, *parts = (int(n) for n in found.groups())
    assert seen == SAMPLE + 3 == sum(parts), text
    drafts, drafted = drafts_of(data_dir, ours)
    own_drafts = f"  drafts     {drafts} for {drafted} listings (openai/" if drafts else "  drafts     0"
    assert own_drafts in text, text  # acme's 3 listings, if B's read of it was recorded first
    assert "  failed     0 jobs; 2 dead letters from before this run (jetjobs dlq list)" in summary

    drafts_after, drafted_after = drafts_of(data_dir, killed)
    assert drafts_after > drafts_before
    earlier = [line for line in summary if line.startswith("  earlier")]
    assert earlier == [
        f"  earlier    finished for run {killed} (interrupted): {drafted_after - drafted_before:,} listings, "
        f"{drafts_after - drafts_before:,} drafts"
    ], text

    # Every dead letter is in the summary: the two from before, B's two sources.
    assert await dead_letters(nc, run_settings) == letters_before + 2


def _entry(job_id: str, job_type: str, state: str, result: Any = None, **fields: Any) -> StatusRecord:
    """A ledger entry as a worker writes it."""
    now = datetime.now(UTC)
    return StatusRecord(id=job_id, type=job_type, state=state, updated_at=now, result=result, **fields)  # type: ignore[arg-type]


def test_the_summary_counts_each_run_apart() -> None:
    """Without a server: entries of two runs (the runs looked up as the ledger follower does)
    make this run's lines from its own jobs only (a source read by two jobs counts once), and
    one line for the earlier run with what settled for it; a job of the earlier run that died
    fails this run too (exit 1) and is named under that line. A replay has no such line."""
    progress = Progress([SOURCE, LISTING_BATCH, DRAFT, EXPORT])
    progress.runs |= {"s1": "now", "s1b": "now", "s2": "old", "b2": "old", "d2": "old"}
    progress.on_record(_entry("s1", SOURCE, "succeeded", {"source": "sample", "listings": 7}))
    progress.on_record(_entry("s1b", SOURCE, "succeeded", {"source": "sample", "listings": 7}))
    progress.on_record(_entry("s2", SOURCE, "succeeded", {"source": "sample", "listings": 5}))
    progress.on_record(_entry("b2", LISTING_BATCH, "succeeded", {"source": "sample", "postings": 5}))
    for n in range(3):
        result = {"run_id": "old", "listing_id": f"L{n}", "new": False, "drafts": 2}
        progress.on_record(_entry(f"e{n}", EXPORT, "succeeded", result))
    progress.on_record(_entry("d2", DRAFT, "dead", error="provider down", dead_reason="exhausted"))
    progress.dead_letters_before = 2
    numbers = RunNumbers(
        listings_new=0, listings_updated=0, drafts=[], needs_review=0, earlier_outcomes={"old": "interrupted"}
    )
    summary = summarise("now", 1.0, progress, numbers, None)
    lines = format_summary(summary)
    assert lines[1] == "  sources    1 ok, 0 failed"
    assert summary.listings_seen == 7
    assert "  failed     0 jobs; 2 dead letters from before this run (jetjobs dlq list)" in lines
    assert (
        "  earlier    finished for run old (interrupted): 3 listings, 6 drafts; 5 postings from 1 source;"
        " 5 postings deduplicated; 1 failed"
    ) in lines
    assert "               jobsearch.draft d2: exhausted: provider down" in lines
    assert summary.exit_code == FAILED
    # A replay's jobs carry the ids of the runs they replay: what it settled is all its own.
    replayed = summarise("now", 1.0, progress, msgspec.structs.replace(numbers, drafts_since="2026"), None)
    assert (replayed.earlier, replayed.sources_ok, replayed.failed_jobs) == ([], 1, 1)


async def test_a_killed_run_is_recorded_interrupted_by_the_next_start(tmp_path: Path) -> None:
    """Two processes each start a run and wait; the later one is killed -9. `last_run` says
    `interrupted` for it at once (its lock is free); the next run to start records it so, and
    leaves the living one alone (its lock is held)."""
    db = tmp_path / "jobsearch.sqlite"
    script = (
        "import sys; from pathlib import Path; from jobsearch.store import Store\n"
        "Store.open(Path(sys.argv[1])).start_run(sys.argv[2], profile='p.toml')\n"
        "print('started', flush=True); sys.stdin.read()\n"
    )
    holders = []
    try:
        for run_id in ("r-alive", "r-killed"):
            process = await anyio.open_process([sys.executable, "-c", script, str(db), run_id])
            holders.append(process)
            assert process.stdout is not None
            with anyio.fail_after(30):
                assert (await process.stdout.receive()).startswith(b"started")
        killed = holders[1]
        killed.kill()
        await killed.wait()
        with Store.open(db) as store:
            last = store.last_run()
            assert last is not None
            assert (last.run_id, last.outcome) == ("r-killed", "interrupted")
            store.start_run("r-next", profile="p.toml")
            outcomes = dict(store.conn.execute("SELECT run_id, outcome FROM runs").fetchall())
            assert outcomes == {"r-alive": None, "r-killed": "interrupted", "r-next": None}
            store.finish_run("r-next", outcome="ok", summary={})
            assert store.run_numbers("r-next").earlier_outcomes == {
                "r-killed": "interrupted",
                "r-alive": "running",
            }
    finally:
        for process in holders:
            if process.returncode is None:
                process.kill()
                await process.wait()
