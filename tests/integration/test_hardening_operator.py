"""Issue 16 ("Hardening"), items 9, 10, 12, 13, 14 and 15: what an operator sees at the command line.

Each test runs the real `jetjobs` command as a subprocess against a real nats-server.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import anyio
import nats
import nats.errors
import pytest
from nats.aio.client import Client as NATS

from jetjobs import EmbeddedServer, NatsSettings, Publisher, Settings
from jetjobs._transport.connection import connect
from jetjobs._transport.connection_events import ConnectionEvents, server_address
from jetjobs._transport.topology import Topology
from jetjobs.testing import WorkerPool, worker_env
from tests.otlp_receiver import OtlpReceiver, ReceivedSpan
from tests.support import clean_env, run_cli

pytestmark = [pytest.mark.integration]


@pytest.fixture
def cli_env(settings: Settings) -> dict[str, str]:
    """A CLI process's environment: the session server, every setting of the test's (no OTel)."""
    env = worker_env(settings, settings.nats.url or "")
    return {k: v for k, v in env.items() if not k.startswith("OTEL_")}


def lines(output: bytes) -> list[str]:
    return output.decode().strip().splitlines()


# Item 9 -----------------------------------------------------------------------------------------


async def test_replay_typed_twice_adds_nothing(settings: Settings, nc: NATS, cli_env: dict[str, str]) -> None:
    """Item 9: `replay --since 1h --type T` typed twice publishes once. The second run makes a new
    replay id (the relative window moved), leaves the first run's output alone (replays are not
    replayed by default), leaves the originals alone (another replay replayed them) and says why;
    `--again` and `--include-replays` are the ways to ask for more."""
    publisher = Publisher(nc, settings)
    for n in range(20):
        await publisher.enqueue("report.build", {"n": n})
    jobs_stream = Topology(settings).jobs_stream
    js = nc.jetstream()

    first = await run_cli(cli_env, "replay", "--since", "1h", "--type", "report.build", "--json")
    assert first.returncode == 0, first.stderr.decode()
    first_run = json.loads(first.stdout)
    assert first_run["report"]["published"] == 20

    second = await run_cli(cli_env, "replay", "--since", "1h", "--type", "report.build")
    assert second.returncode == 0, second.stderr.decode()
    out = second.stdout.decode()
    assert first_run["plan"]["replay_id"] not in out, "a relative window must make a new replay id"
    assert re.search(r"published\s+0\b", out), out
    assert re.search(r"replayed before\s+20\b", out), out
    assert re.search(r"skipped, replays\s+20\b", out), out
    assert "replayed before by another replay" in second.stderr.decode()
    assert "--again" in second.stderr.decode()
    assert (await js.stream_info(jobs_stream)).state.messages == 40

    again = await run_cli(cli_env, "replay", "--since", "1h", "--type", "report.build", "--again", "--json")
    assert json.loads(again.stdout)["report"]["published"] == 20  # the originals, not the replays
    assert (await js.stream_info(jobs_stream)).state.messages == 60

    everything = await run_cli(
        cli_env, "replay", "--since", "1h", "--type", "report.build", "--include-replays", "--again",
        "--dry-run", "--json",
    )  # fmt: skip
    assert json.loads(everything.stdout)["report"]["matched"] == 60


# Item 10 ----------------------------------------------------------------------------------------


@pytest.fixture
def password_server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A nats-server that takes user `alice` with password `s3cret` only."""
    server = EmbeddedServer(tmp_path / "auth", extra_args=["--user", "alice", "--pass", "s3cret"])
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("case", ["wrong password", "refused port", "no answer"])
async def test_connect_failure_is_one_line_at_once(
    case: str, password_server: EmbeddedServer, namespace: str
) -> None:
    """Item 10: wrong credentials and a refused port fail at once (NATS_CONNECT_TIMEOUT is 30 s
    here, so any retrying would outlast the command's 30 s limit), a host that does not answer
    fails after the connect timeout; each with one line that says which, no traceback, and the
    password in NATS_URL masked."""
    with socket.socket() as unused, socket.socket() as silent:
        unused.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # listening, never accepting nor answering
        url, timeout, expected = {
            "wrong password": (
                f"nats://alice:wrong-pw@127.0.0.1:{password_server.port}",
                "30",
                "authorization refused",
            ),
            "refused port": (f"nats://alice:wrong-pw@127.0.0.1:{unused.getsockname()[1]}", "30", "refused"),
            "no answer": (f"nats://alice:wrong-pw@127.0.0.1:{silent.getsockname()[1]}", "0.5", "no answer"),
        }[case]
        ran = await run_cli(
            clean_env(NATS_URL=url, NATS_CONNECT_TIMEOUT=timeout, JETJOBS_NAMESPACE=namespace), "info"
        )
    stderr = lines(ran.stderr)
    assert ran.returncode == 2
    assert len(stderr) == 1, stderr
    assert stderr[0].startswith("jetjobs: error: NATS_URL=nats://alice:***@127.0.0.1:"), stderr
    assert expected in stderr[0]
    assert "wrong-pw" not in stderr[0]


# Item 12 ----------------------------------------------------------------------------------------


async def test_embedded_server_requires_its_token(tmp_path: Path, namespace: str, repo_root: Path) -> None:
    """Item 12: with NATS_URL unset, the embedded server takes only clients that show the token
    generated at its start; the token is kept in the 0700 store directory (file mode 0600), never
    on a command line; worker processes and later commands of the same user join automatically."""
    store = tmp_path / "store"
    settings = Settings(namespace=namespace, nats=NatsSettings(store_dir=str(store)), storage="memory")
    async with WorkerPool("tests.apps:app", settings, "", cwd=repo_root) as pool:
        await pool.start(1)  # the first jetjobs process: it starts the embedded server

        url = (store / "server.url").read_text().strip()
        token = (store / "server.token").read_text().strip()
        assert stat.S_IMODE(store.stat().st_mode) == 0o700
        assert stat.S_IMODE((store / "server.token").stat().st_mode) == 0o600
        assert len(token) >= 32

        assert await refusal(url, token=None) == "nats: 'Authorization Violation'"
        assert await refusal(url, token="guessed") == "nats: 'Authorization Violation'"
        assert await refusal(url, token=token) is None

        assert not processes_showing(token), "the token is on a command line"

        joiner = {k: v for k, v in worker_env(settings, "").items() if not k.startswith("OTEL_")}
        ran = await run_cli(joiner | {"NATS_STORE_DIR": str(store)}, "info")
        assert ran.returncode == 0, ran.stderr.decode()
        assert url.removeprefix("nats://") in ran.stdout.decode(), "a later command joins the same server"


async def refusal(url: str, *, token: str | None) -> str | None:
    """Why the server refuses a connection with this token (None: it takes it)."""

    async def quiet(exc: Exception) -> None:
        """No traceback for the refusal we expect."""

    client = NATS()
    try:
        await client.connect(url, token=token, allow_reconnect=False, error_cb=quiet)
    except nats.errors.Error as exc:
        return str(exc)
    finally:
        await client.close()
    return None


def processes_showing(secret: str) -> list[str]:
    """The command lines (as every local user can read them in /proc) that contain `secret`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes()
        except OSError:
            continue  # the process ended meanwhile
        if secret.encode() in text:
            found.append(text.replace(b"\0", b" ").decode(errors="replace"))
    return found


# Item 13 ----------------------------------------------------------------------------------------


async def test_bad_webhook_allow_hosts_entry_fails_at_start(cli_env: dict[str, str], repo_root: Path) -> None:
    """Item 13: a worker with `JETJOBS_WEBHOOK_ALLOW_HOSTS` holding something that is no host,
    `*.domain`, address or network does not start: exit 2, one line naming the variable and the entry."""
    env = cli_env | {"JETJOBS_WEBHOOK_ALLOW_HOSTS": "hooks.example.com, not a host!!"}
    ran = await run_cli(env, "worker", "tests.apps:app", cwd=repo_root)
    stderr = lines(ran.stderr)
    assert ran.returncode == 2
    assert len(stderr) == 1, stderr
    assert "JETJOBS_WEBHOOK_ALLOW_HOSTS" in stderr[0]
    assert "'not a host!!'" in stderr[0]


# Item 14 ----------------------------------------------------------------------------------------


async def test_otlp_defaults_to_http_and_the_exit_flush_is_bounded(
    cli_env: dict[str, str], otlp: OtlpReceiver
) -> None:
    """Item 14: with only OTEL_EXPORTER_OTLP_ENDPOINT set, a one-shot command exports over
    OTLP/HTTP (the specification's default), with no export error; pointed at an endpoint that
    never answers, it gives up its final flush, says so in one line, and exits 0."""
    ran = await run_cli(
        cli_env | {"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint}, "enqueue", "otlp.check", "{}"
    )
    assert ran.returncode == 0, ran.stderr.decode()
    assert ran.stderr == b"", ran.stderr.decode()

    def published(spans: list[ReceivedSpan]) -> bool:
        return any(s.name == "publish otlp.check" for s in spans)

    await anyio.to_thread.run_sync(otlp.wait, published)

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # takes connections, never answers
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        ran = await run_cli(
            cli_env | {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
            "--log-format",
            "json",
            "enqueue",
            "otlp.check",
            "{}",
        )
    assert ran.returncode == 0, ran.stderr.decode()
    stderr = lines(ran.stderr)
    assert [json.loads(line)["event"] for line in stderr] == ["tracing.flush_abandoned"], stderr


# Item 15 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["info"], ["replay", "--since", "1h"]])
async def test_closed_pipe_exits_quietly(
    command: list[str], settings: Settings, nc: NATS, cli_env: dict[str, str]
) -> None:
    """Item 15: `jetjobs info | head` and `jetjobs replay ... | head`: when the reader of stdout
    is gone, the command stops with the shell's SIGPIPE status (141) and prints nothing, no
    BrokenPipeError traceback."""
    await Publisher(nc, settings).enqueue("pipe.check", {})
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes a byte
    try:
        ran = await run_cli(cli_env, *command, stdout=write_end)
    finally:
        os.close(write_end)
    assert ran.stderr == b"", ran.stderr.decode()
    assert ran.returncode == 141


async def test_the_server_is_shown_without_its_password(password_server: EmbeddedServer) -> None:
    """What `jetjobs info`, the operations page and the connection log lines name as the server:
    host and port, never the password of NATS_URL."""
    url = f"nats://alice:s3cret@127.0.0.1:{password_server.port}"
    nc = await connect(url, NatsSettings(url=url))
    try:
        assert server_address(nc) == f"127.0.0.1:{password_server.port}"
        events = ConnectionEvents()
        events.bind(nc)
        assert events.server == f"127.0.0.1:{password_server.port}"
    finally:
        await nc.close()
