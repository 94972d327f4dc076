"""The `jetjobs` command line, run as real processes against a real nats-server."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Publisher, Reject, Settings
from tests.support import clean_env, cli_env_of, run_cli, running_worker

pytestmark = [pytest.mark.integration]


@pytest.fixture
def cli_env(settings: Settings) -> dict[str, str]:
    """The environment of a CLI process on the session server, in the test's namespace."""
    return cli_env_of(settings)


class Ran:
    """A finished CLI process: its exit code and its decoded output."""

    def __init__(self, done: subprocess.CompletedProcess[bytes]) -> None:
        self.returncode = done.returncode
        self.stdout = done.stdout.decode()
        self.stderr = done.stderr.decode()

    def json(self) -> Any:
        """stdout as JSON, after checking that the command succeeded."""
        assert self.returncode == 0, self.stderr
        return json.loads(self.stdout)


async def jetjobs(env: dict[str, str], *args: str, cwd: Path | None = None) -> Ran:
    """Run `python -m jetjobs ARGS...` to its end (killed if it takes over 30 s)."""
    return Ran(await run_cli(env, *args, cwd=cwd))


async def test_enqueue_reports_duplicates_and_status_shows_queued(cli_env: dict[str, str]) -> None:
    """`enqueue` prints the job id; the same key again is a duplicate of it; `status` says queued."""
    args = ["enqueue", "mail.welcome", '{"to": "ada@example.com"}', "--priority", "high", "--key", "ada"]
    first = (await jetjobs(cli_env, *args)).json()
    assert first["duplicate"] is False
    assert first["id"]
    again = (await jetjobs(cli_env, *args)).json()
    assert again["duplicate"] is True
    assert again["id"] == first["id"]

    status = (await jetjobs(cli_env, "status", first["id"])).json()
    assert (status["id"], status["type"], status["state"]) == (first["id"], "mail.welcome", "queued")
    unknown = await jetjobs(cli_env, "status", "no-such-job")
    assert unknown.returncode == 1
    assert "no status for job no-such-job" in unknown.stderr


async def test_info_lists_streams_and_consumers(cli_env: dict[str, str], namespace: str) -> None:
    """`info` names both streams and the three priority consumers, with the job pending on high."""
    (await jetjobs(cli_env, "enqueue", "report.build", "--priority", "high")).json()
    consumers = [f"{namespace}_default_{p}" for p in ("high", "normal", "low")]
    streams = [f"{namespace.upper()}_JOBS", f"{namespace.upper()}_DLQ"]

    text = await jetjobs(cli_env, "info")
    assert text.returncode == 0, text.stderr
    assert f"namespace {namespace} on " in text.stdout
    for name in streams + consumers:
        assert name in text.stdout

    report = (await jetjobs(cli_env, "info", "--json")).json()
    assert set(report["streams"]) == set(streams)
    assert report["streams"][streams[0]]["messages"] == 1
    assert sorted(report["consumers"]) == sorted(consumers)
    assert [report["consumers"][name]["pending"] for name in consumers] == [1, 0, 0]


async def test_dlq_list_show_requeue_purge(nc: NATS, settings: Settings, cli_env: dict[str, str]) -> None:
    """The `dlq` commands list, show, requeue (one, or all of a type) and purge real dead letters.

    Requeued jobs run again; a purged one is gone from the list.
    """
    app = App()

    @app.job("cli.doomed")
    async def doomed(ctx: JobContext, payload: dict[str, Any]) -> None:
        raise Reject(f"refused {payload['n']}")

    @app.job("cli.other")
    async def other(ctx: JobContext, payload: dict[str, Any]) -> None:
        raise Reject("refused other")

    publisher = Publisher(nc, settings)
    first = (await publisher.enqueue("cli.doomed", {"n": 1})).id
    second = (await publisher.enqueue("cli.doomed", {"n": 2})).id
    third = (await publisher.enqueue("cli.other", {"n": 3})).id
    async with running_worker(app, nc, settings) as (_, outcomes):
        await outcomes.wait(lambda: outcomes.count("dead") == 3)

    listed = await jetjobs(cli_env, "dlq", "list")
    assert listed.returncode == 0, listed.stderr
    assert all(job_id in listed.stdout for job_id in (first, second, third))
    assert "3 dead letter(s)" in listed.stdout
    of_type = await jetjobs(cli_env, "dlq", "list", "--type", "cli.other")
    assert third in of_type.stdout
    assert first not in of_type.stdout
    assert "1 dead letter(s)" in of_type.stdout

    shown = (await jetjobs(cli_env, "dlq", "show", first)).json()
    assert (shown["job_id"], shown["type"], shown["reason"]) == (first, "cli.doomed", "rejected")
    assert (shown["error"], shown["attempts"]) == ("refused 1", 1)
    assert json.loads(shown["original"])["payload"] == {"n": 1}
    missing = await jetjobs(cli_env, "dlq", "show", "no-such-job")
    assert missing.returncode == 1
    assert "no dead letter for job no-such-job" in missing.stderr

    neither = await jetjobs(cli_env, "dlq", "requeue")
    assert neither.returncode == 2
    assert "either a job ID or --all" in neither.stderr
    one = await jetjobs(cli_env, "dlq", "requeue", first)
    assert "requeued 1 job(s)" in one.stdout, one.stderr
    assert (await jetjobs(cli_env, "status", first)).json()["state"] == "queued"
    of_other = await jetjobs(cli_env, "dlq", "requeue", "--all", "--type", "cli.other")
    assert "requeued 1 job(s)" in of_other.stdout, of_other.stderr
    left = await jetjobs(cli_env, "dlq", "list")
    assert second in left.stdout
    assert "1 dead letter(s)" in left.stdout

    purged = await jetjobs(cli_env, "dlq", "purge")
    assert "purged 1 dead letter(s)" in purged.stdout, purged.stderr
    assert "0 dead letter(s)" in (await jetjobs(cli_env, "dlq", "list")).stdout

    fixed = App()
    runs: list[str] = []

    @fixed.job("cli.doomed")
    @fixed.job("cli.other")
    async def accept(ctx: JobContext, payload: dict[str, Any]) -> None:
        runs.append(ctx.id)

    async with running_worker(fixed, nc, settings) as (_, outcomes):
        await outcomes.wait(lambda: outcomes.count("succeeded") == 2)
    assert sorted(runs) == sorted([first, third])


@pytest.mark.parametrize(
    ("args", "variables", "message"),
    [
        (["enqueue", "t", "not json"], {}, "PAYLOAD is not valid JSON"),
        (["enqueue", "t", "[1, 2]"], {}, "PAYLOAD must be a JSON object"),
        (["status", "x"], {"JETJOBS_ACK_WAIT": "banana"}, "JETJOBS_ACK_WAIT"),
        (["status", "x"], {"JETJOBS_ACKWAIT": "30"}, "JETJOBS_ACKWAIT is not a jetjobs setting"),
        (["worker", "nosuchmodule:app"], {}, "cannot import 'nosuchmodule'"),
        (["worker", "tests.apps:nothing"], {}, "tests.apps:nothing is not a jetjobs.App"),
    ],
    ids=["payload-not-json", "payload-not-object", "bad-value", "unknown-setting", "no-module", "no-app"],
)
async def test_bad_input_exits_2_with_a_clear_message(
    cli_env: dict[str, str], repo_root: Path, args: list[str], variables: dict[str, str], message: str
) -> None:
    """A mistake in arguments or settings exits 2 with one line naming it, not a traceback."""
    ran = await jetjobs(cli_env | variables, *args, cwd=repo_root)
    assert ran.returncode == 2, ran.stderr
    assert message in ran.stderr
    assert "Traceback" not in ran.stderr


async def test_unreachable_server_exits_2_naming_nats_url(cli_env: dict[str, str]) -> None:
    """A NATS_URL where nothing answers fails within the connect deadline, exit 2, naming NATS_URL."""
    with socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))  # bound but never listening: every connect is refused
        url = f"nats://127.0.0.1:{refusing.getsockname()[1]}"
        ran = await jetjobs(cli_env | {"NATS_URL": url, "NATS_CONNECT_TIMEOUT": "0.5"}, "status", "x")
    assert ran.returncode == 2, ran.stderr
    assert f"jetjobs: error: NATS_URL={url}: cannot connect" in ran.stderr


async def test_embedded_server_keeps_jobs_between_commands(tmp_path: Path, namespace: str) -> None:
    """With NATS_URL unset, each command starts a private nats-server on NATS_STORE_DIR and stops
    it on exit; a job enqueued by one command is found queued by the next: the store persisted."""
    env = clean_env(NATS_STORE_DIR=str(tmp_path), JETJOBS_NAMESPACE=namespace)
    submitted = (await jetjobs(env, "enqueue", "backup.run", '{"disk": "sda"}')).json()
    assert (tmp_path / "jetstream").is_dir()
    assert not (tmp_path / "server.url").exists(), "the embedded server was left running"

    status = (await jetjobs(env, "status", submitted["id"])).json()
    assert (status["id"], status["state"]) == (submitted["id"], "queued")
    assert not (tmp_path / "server.url").exists(), "the embedded server was left running"
