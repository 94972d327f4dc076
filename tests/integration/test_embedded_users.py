"""The shared embedded server: up while anyone uses it, gone with its last user, however users end.

Every user is a real process (`python -c USER STORE`) that joins through
`jetjobs._transport.shared_server`, connects, answers `ping` with a round trip to the server, and
leaves when its stdin closes. The keeper and the nats-server are found by their command lines,
which name the test's own store directory. Processes that are not this test's children are
awaited through a pidfd (readable once the process has exited, zombie or not: PID 1 here need not
reap orphans), never a fixed sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
import anyio.abc
import pytest

from tests.support import processes_ended

pytestmark = pytest.mark.integration

USER = """
import sys, anyio
from pathlib import Path
from jetjobs import NatsSettings
from jetjobs._transport.connection import _connectable, _embedded_settings, _private_dir, connect
from jetjobs._transport.shared_server import shared_embedded

async def main() -> None:
    store = Path(sys.argv[1])
    _private_dir(store)
    settings = NatsSettings(store_dir=str(store))

    async def ours(url: str, token: str) -> bool:
        return await _connectable(url, _embedded_settings(settings, token))

    async with shared_embedded(store, ours) as (url, token):
        nc = await connect(url, _embedded_settings(settings, token))
        print("joined", url, flush=True)
        async for _ in anyio.wrap_file(sys.stdin):
            await nc.flush(timeout=5)
            print("pong", flush=True)
        await nc.close()

anyio.run(main)
"""

OWNER = """
import sys, anyio
from jetjobs import EmbeddedServer

async def main() -> None:
    server = EmbeddedServer(sys.argv[1])
    await anyio.to_thread.run_sync(server.start)  # from a worker thread, as open_connection did
    print(server.pid, flush=True)
    await anyio.wrap_file(sys.stdin).readline()

anyio.run(main)
"""


class User:
    """One user process of the store's server."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.url = ""
        self._pending = b""

    @classmethod
    async def join(cls, store: Path) -> User:
        process = await anyio.open_process([sys.executable, "-c", USER, str(store)], stderr=subprocess.STDOUT)
        user = cls(process)
        line = await user.line()
        assert line.startswith("joined "), line
        user.url = line.removeprefix("joined ")
        return user

    async def line(self) -> str:
        """Its next line of output ('' at its end)."""
        assert self.process.stdout is not None
        while b"\n" not in self._pending:
            try:
                self._pending += await self.process.stdout.receive()
            except anyio.EndOfStream:
                return self._pending.decode()
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode()

    async def ping(self) -> str:
        """A round trip to the server through this user's connection: 'pong' when it answers."""
        assert self.process.stdin is not None
        await self.process.stdin.send(b"ping\n")
        return await self.line()

    async def leave(self) -> int:
        """Close its stdin; its exit code once it has left."""
        assert self.process.stdin is not None
        await self.process.stdin.aclose()
        return await self.process.wait()


def alive(pid: int) -> bool:
    """Running: /proc has it and it is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def store_processes(store: Path) -> dict[int, str]:
    """The live processes whose command line names `store`: its keeper and nats-server."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if any(arg == str(store) or arg.startswith(f"{store}/") for arg in argv) and alive(int(entry.name)):
            found[int(entry.name)] = " ".join(argv)
    return found


def server_and_keeper(store: Path) -> tuple[int, int]:
    """The pids of the store's nats-server and of its keeper."""
    found = store_processes(store)
    servers = [pid for pid, cmd in found.items() if "nats-server" in cmd]
    keepers = [pid for pid, cmd in found.items() if "jetjobs._transport.keeper" in cmd]
    assert len(servers) == 1, found
    assert len(keepers) == 1, found
    return servers[0], keepers[0]


async def gone(*pids: int, within: float = 30.0) -> None:
    """Wait until every one of `pids` has ended: a pidfd is readable once its process exited, even
    for a process that is not our child and that nobody reaps."""
    with anyio.fail_after(within):
        await processes_ended(pids)


Join = Callable[[], Awaitable[User]]


@pytest.fixture
async def join(store: Path) -> AsyncIterator[Join]:
    """Start a user of `store`'s server; any still running at the end is killed (by its pid)."""
    users: list[User] = []

    async def start() -> User:
        user = await User.join(store)
        users.append(user)
        return user

    yield start
    for user in users:
        if user.process.returncode is None:
            user.process.kill()
            await user.process.wait()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store directory of this test's own, mode 0700 as the platform makes it."""
    path = tmp_path / "nats"
    path.mkdir(mode=0o700)
    return path


async def test_the_first_user_out_leaves_the_server_up_the_last_stops_it(store: Path, join: Join) -> None:
    """A starts the server, B joins it; A leaves: B's connection still works and the server and
    its keeper still run. B leaves: by the time B has exited the server and the keeper are gone,
    and `server.url` with them (the last user out stops it)."""
    a = await join()
    b = await join()
    assert b.url == a.url
    server, keeper = server_and_keeper(store)
    assert len(list((store / "users").glob("*.use"))) == 2

    assert await a.leave() == 0
    assert await b.ping() == "pong"
    assert alive(server)
    assert alive(keeper)
    assert (store / "server.url").read_text().strip() == a.url

    assert await b.leave() == 0
    assert not alive(server)
    assert not alive(keeper)
    assert not (store / "server.url").exists()
    assert not (store / "server.token").exists()


async def test_a_killed_user_no_longer_counts(store: Path, join: Join) -> None:
    """kill -9 of the user that started the server while another uses it: the server keeps
    serving the other; kill -9 of that one too: no live user is left, and the keeper stops the
    server and ends."""
    a = await join()
    b = await join()
    server, keeper = server_and_keeper(store)

    a.process.send_signal(signal.SIGKILL)
    await a.process.wait()
    assert await b.ping() == "pong"
    assert alive(server)

    b.process.send_signal(signal.SIGKILL)
    await b.process.wait()
    await gone(server, keeper)
    assert store_processes(store) == {}
    assert not (store / "server.url").exists()


async def test_the_next_user_after_the_last_starts_a_new_server(store: Path, join: Join) -> None:
    """After the last user left, the next one starts a fresh server (a new keeper, a new token)
    on the same store, and counts alone."""
    first = await join()
    old_token = (store / "server.token").read_text()
    old_server, _ = server_and_keeper(store)
    assert await first.leave() == 0

    second = await join()
    try:
        new_server, _ = server_and_keeper(store)
        assert new_server != old_server
        assert (store / "server.token").read_text() != old_token
        assert len(list((store / "users").glob("*.use"))) == 1
        assert await second.ping() == "pong"
    finally:
        assert await second.leave() == 0
    assert store_processes(store) == {}


async def test_an_embedded_server_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    """`EmbeddedServer` started from a worker thread of a process killed with SIGKILL: the kernel
    stops the nats-server too (PR_SET_PDEATHSIG, tied to the server's own thread, not to the
    worker thread that called `start()`)."""
    owner = await anyio.open_process([sys.executable, "-c", OWNER, str(tmp_path / "store")])
    assert owner.stdout is not None
    server = int((await owner.stdout.receive()).decode().strip())
    assert alive(server)
    os.kill(owner.pid, signal.SIGKILL)
    await owner.wait()
    await gone(server)
