"""A run's processes end with it, and one run does not pull the embedded server from under another.

Real `jobsearch run` processes on the embedded server (no `NATS_URL`: a store directory of the
test's own), real `jobsearch serve STAGE` children, a real Greenhouse-shaped board on 127.0.0.1
that holds its answer until the test lets it go (so a run is certainly mid-run when the test
acts), the offline provider. Each run waits on events: the board's request arriving, a process's
exit (through a pidfd for the processes that are not the test's children).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
from benchmarks.jobsearch_run import profile as example_profile

from jobsearch.store import Store
from tests.support import processes_ended

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

FIXTURES = Path(__file__).parent / "fixtures"


class HeldBoard:
    """Greenhouse boards (`/v1/boards/TOKEN/jobs`) that answer only once `release(TOKEN)`."""

    def __init__(self) -> None:
        self.arrived: dict[str, threading.Event] = {}
        self.released: dict[str, threading.Event] = {}
        body = (FIXTURES / "greenhouse_jobs.json").read_bytes()
        board = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                token = self.path.split("/")[3]
                board.events(token)[0].set()
                board.events(token)[1].wait(120)  # released by the test, at the latest at its end
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a run that was killed closed the socket under us

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._lock = threading.Lock()

    def events(self, token: str) -> tuple[threading.Event, threading.Event]:
        with self._lock:
            arrived = self.arrived.setdefault(token, threading.Event())
            released = self.released.setdefault(token, threading.Event())
        return arrived, released

    async def wait_request(self, token: str) -> None:
        """Until the board `token` has been asked (the run is fetching it)."""
        arrived = self.events(token)[0]
        assert await anyio.to_thread.run_sync(arrived.wait, 120), f"no request for board {token}"

    def release(self, token: str) -> None:
        """Let the board `token` answer."""
        self.events(token)[1].set()


@pytest.fixture
def board() -> Iterator[HeldBoard]:
    """A held board serving in a thread; every hold is let go at the end."""
    held = HeldBoard()
    thread = threading.Thread(
        target=held.server.serve_forever, kwargs={"poll_interval": 0.05}, name="held-board", daemon=True
    )
    thread.start()
    try:
        yield held
    finally:
        for released in list(held.released.values()):
            released.set()
        held.server.shutdown()
        held.server.server_close()
        thread.join()


def profile(directory: Path, board: HeldBoard, token: str) -> Path:
    """The example profile, its filters off, reading only the held board `token`."""
    path = example_profile(directory, open_search=True)
    text = path.read_text().replace(
        'board = "sample"', f'board = "greenhouse"\ntoken = "{token}"\nbase_url = "{board.url}"', 1
    )
    path = directory / f"profile-{token}.toml"
    path.write_text(text)
    return path


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A person's shell with no NATS_URL: the embedded server, its store in the test's dir."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("NATS_", "JETJOBS_", "JOBSEARCH_", "LLM_"))
    }
    return env | {
        "NATS_STORE_DIR": str(tmp_path / "nats"),
        "JOBSEARCH_DATA_DIR": str(tmp_path / "data"),
        "LLM_PROVIDER": "offline",
        "JOBSEARCH_ALLOW_HOSTS": "127.0.0.1",
        "JOBSEARCH_HTTP_TIMEOUT": "120",  # the board holds its answer for as long as the test says
        "JOBSEARCH_HTTP_DEADLINE": "120",
        "JETJOBS_GRACE_PERIOD": "2",  # a stopped service waits this long for its running jobs
        **extra,
    }


class Run:
    """One `jobsearch run` process, its stdout and stderr kept in files."""

    def __init__(self, process: anyio.abc.Process, out: Path, err: Path) -> None:
        self.process = process
        self.out, self.err = out, err

    @classmethod
    async def start(cls, tmp_path: Path, name: str, profile: Path, env: dict[str, str]) -> Run:
        out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = await anyio.open_process(
                [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
            )
        return cls(process, out, err)

    async def exit_code(self, within: float = 180.0) -> int:
        with anyio.fail_after(within):
            return await self.process.wait()

    def output(self) -> str:
        return f"stdout:\n{self.out.read_text()}\nstderr:\n{self.err.read_text()}"


def children(pid: int) -> list[int]:
    """The direct children of `pid` (any of its threads may have forked them)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    """Running: /proc has it and it is not a zombie (PID 1 here need not reap orphans)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def server_processes(store: Path) -> list[int]:
    """The live processes whose command line names the store: its nats-server (and keeper)."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and str(store) in cmdline(int(entry.name)) and alive(int(entry.name))
    ]


async def gone(pids: list[int], within: float) -> list[int]:
    """Wait for each of `pids` to end (a pidfd is readable once its process has exited, zombie or
    not); the ones still running when `within` seconds have passed."""
    with anyio.move_on_after(within):
        await processes_ended(pids)
    return [pid for pid in pids if alive(pid)]


def kill_leftovers(pids: list[int]) -> None:
    """SIGKILL what the test started and failed to see end (by pid, after the assertion)."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def recorded_runs(tmp_path: Path) -> list[tuple[str, str | None, dict[str, Any]]]:
    """(run id, outcome, summary) of every recorded run."""
    with Store.open(tmp_path / "data" / "jobsearch.sqlite") as store:
        rows = store.conn.execute("SELECT run_id, outcome, summary FROM runs ORDER BY started_at").fetchall()
    return [(row[0], row[1], json.loads(row[2] or "{}")) for row in rows]


async def test_kill_9_of_a_run_ends_its_services_and_its_embedded_server(
    tmp_path: Path, board: HeldBoard
) -> None:
    """SIGKILL of `jobsearch run` mid-run (its fetch service waiting on the board): its four stage
    services and the nats-server it started end too, none left running with the old environment."""
    store = tmp_path / "nats"
    run = await Run.start(tmp_path, "run", profile(tmp_path, board, "acme"), environment(tmp_path))
    await board.wait_request("acme")
    services = [pid for pid in children(run.process.pid) if "jobsearch.run.tethered" in cmdline(pid)]
    servers = server_processes(store)
    assert len(services) == 4, [cmdline(pid) for pid in children(run.process.pid)]
    assert any("nats-server" in cmdline(pid) for pid in servers), servers

    run.process.send_signal(signal.SIGKILL)
    await run.process.wait()
    # Within a service's grace period (2 s here) and the margin of its lifeline (15 s).
    left = await gone(services + servers, within=60)
    kill_leftovers(left)
    assert left == [], [cmdline(pid) for pid in left]
    assert server_processes(store) == []


async def test_the_server_killed_mid_run_ends_the_run_in_one_line_with_exit_3(
    tmp_path: Path, board: HeldBoard
) -> None:
    """SIGKILL of the embedded nats-server mid-run: the run says so in one line (no traceback),
    stops its services, records the run `interrupted`, and exits 3."""
    store = tmp_path / "nats"
    run = await Run.start(tmp_path, "run", profile(tmp_path, board, "acme"), environment(tmp_path))
    await board.wait_request("acme")
    services = [pid for pid in children(run.process.pid) if "jobsearch.run.tethered" in cmdline(pid)]
    [server] = [pid for pid in server_processes(store) if "nats-server" in cmdline(pid)]

    os.kill(server, signal.SIGKILL)
    code = await run.exit_code()
    board.release("acme")
    assert code == 3, run.output()
    stderr = run.err.read_text()
    assert "Traceback" not in stderr, stderr
    said = [line for line in stderr.splitlines() if not line.startswith("{")]  # JSON: log lines
    [(run_id, outcome, summary)] = recorded_runs(tmp_path)
    assert len(said) == 1, stderr
    assert re.fullmatch(
        rf"jobsearch: run {run_id} interrupted: the embedded NATS server \(127\.0\.0\.1:\d+\) went "
        r"away \(no answer for 5 s\); what was recorded is kept, and the jobs still queued run with "
        r"the next `jobsearch run`",
        said[0],
    ), said[0]
    assert outcome == "interrupted"
    assert summary == {"interrupted": "server lost"}
    left = await gone(services, within=30)
    kill_leftovers(left)
    assert left == []


async def test_the_run_that_started_the_server_finishing_first_leaves_it_to_the_other(
    tmp_path: Path, board: HeldBoard
) -> None:
    """Two runs on one data dir and one embedded server: A starts the server, B joins it; A
    finishes while B is still fetching; B finishes normally (exit 0), and once B, the last user,
    has exited, no server process is left. (B runs in a namespace of its own, so that A's drain
    does not wait for B's jobs: each run waits for every job of its namespace.)"""
    store = tmp_path / "nats"
    a = await Run.start(tmp_path, "a", profile(tmp_path, board, "a"), environment(tmp_path))
    await board.wait_request("a")
    b_env = environment(tmp_path, JETJOBS_NAMESPACE=f"t{uuid.uuid4().hex[:12]}")
    b = await Run.start(tmp_path, "b", profile(tmp_path, board, "b"), b_env)
    await board.wait_request("b")

    board.release("a")
    assert await a.exit_code() == 0, a.output()
    board.release("b")
    assert await b.exit_code() == 0, b.output()
    assert "Traceback" not in b.err.read_text(), b.output()
    assert [outcome for _, outcome, _ in recorded_runs(tmp_path)] == ["ok", "ok"]
    left = server_processes(store)
    kill_leftovers(left)
    assert left == []
