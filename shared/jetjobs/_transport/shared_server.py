"""The embedded server that a user's jetjobs processes share: join it, or start it, and count as its user.

```
<store>/server.lock    flock'd while a process joins or starts the server, and while the keeper
                       decides to stop it and stops it
<store>/server.url     its address          <store>/server.token   its token (0600)
<store>/server.keeper  the keeper's process id
<store>/users/         one locked file per process using it (jetjobs._transport.server_users)
<store>/keeper.log     what the keeper and the server said, should a start fail
<store>/jetstream/     the JetStream store
```

The server is not the child of the process that happened to start it: a *keeper* process
(`python -m jetjobs._transport.keeper`, in a session of its own) starts it and stops it when its
last user is gone, so that the first run finishing, or being killed, does not pull the server from
under a second one. The server dies with the keeper (`jetjobs._transport.parent_death`); the
keeper lives while a use file is locked, and the kernel unlocks a dead process's file, so when
the last user ends, however it ends, the keeper and the server end too.

Joining: under `server.lock`, read `server.url` and `server.token`; if a server there answers
and is ours (`ours(url, token)`), take a use; otherwise start a new keeper (a fresh token, the
old uses cleared), write its address, and take a use. The lock is held until the use is taken, and
the keeper decides that nobody is left only under the same lock: nobody joins a server that is
about to stop, and no second server starts on the store while the first is still stopping.

Leaving: release the use; then, under `server.lock`, if no live use is left, this process is the
last user out and stops the server itself: it removes `server.url` and `server.token`, sends the
keeper SIGTERM and waits for it to end, all before unlocking. So a command that ends as the last
user leaves nothing running, and the next one never finds a server still stopping. (Linux: the
keeper is signalled and awaited through a pidfd, which cannot name a recycled pid. Elsewhere the
keeper notices the last use's end itself, a moment later.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio

from jetjobs._errors import ServerError
from jetjobs._transport import server_users
from jetjobs._transport.server_users import ServerUse

KEEPER_MODULE = "jetjobs._transport.keeper"
# The keeper's first (and only) line on stdout.
READY, FAILED = "ready ", "failed "


def paths(store: Path) -> tuple[Path, Path, Path]:
    """`server.url`, `server.token` and `users/` of the store directory."""
    return store / "server.url", store / "server.token", store / "users"


@contextlib.asynccontextmanager
async def shared_embedded(
    store: Path, ours: Callable[[str, str], Awaitable[bool]]
) -> AsyncIterator[tuple[str, str]]:
    """Join the store's embedded server, starting it if needed; count as its user while inside.

    Yields its URL and token. `ours(url, token)`: whether the server at `url` takes this token
    and demands one (a server that lets anyone in took the port of a dead one).

    Raises:
        ServerError: no server could be started (its keeper's last words in the message).
    """
    url_file, token_file, users = paths(store)
    lock = os.open(store / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        # Another process may hold it for a while (starting a server): wait off the event loop.
        await anyio.to_thread.run_sync(fcntl.flock, lock, fcntl.LOCK_EX)
        url, token = _read(url_file), _read(token_file)
        if not url or not token or not await ours(url, token):
            url, token = await anyio.to_thread.run_sync(_start, store)
        use = ServerUse.take(users)
        keeper = _keeper(store)  # held from now on: it names this server's keeper for good
    finally:
        os.close(lock)  # and with it the lock
    try:
        yield url, token
    finally:
        use.release()
        try:
            with anyio.CancelScope(shield=True):
                await _stop_if_last(store, token, keeper)
        finally:
            if keeper is not None:
                os.close(keeper)


async def _stop_if_last(store: Path, token: str, keeper: int | None) -> None:
    """Stop the server if no live process uses it any more (see the module's docstring).

    `keeper`: a pidfd of the server's keeper, taken when this process joined.
    """
    url_file, token_file, users = paths(store)
    lock = os.open(store / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        await anyio.to_thread.run_sync(fcntl.flock, lock, fcntl.LOCK_EX)
        if server_users.live_uses(users):
            return  # others use it
        if _read(token_file) == token:  # still up, and the keeper has not yet noticed: stop it
            for path in (url_file, token_file):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            if keeper is not None:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(keeper, signal.SIGTERM)
        # Else the keeper stopped the server itself (or it died): either way it is ending now.
        if keeper is not None:
            # It stops its server (SIGKILL after 10 s) and ends; the bound is a safety net only.
            with anyio.move_on_after(30):
                await anyio.wait_readable(keeper)  # a pidfd is readable once its process ended
    finally:
        os.close(lock)


def _keeper(store: Path) -> int | None:
    """A pidfd of the store's keeper while it runs (None when gone, or not on Linux)."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        pid = int(_read(store / "server.keeper"))
        pidfd = os.pidfd_open(pid)
        # The pidfd now holds that process; check that it is this store's keeper, not a stranger
        # that got a dead keeper's pid.
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (ValueError, OSError):
        return None
    if KEEPER_MODULE.encode() not in argv or str(store).encode() not in argv:
        os.close(pidfd)
        return None
    return pidfd


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return ""


def _start(store: Path) -> tuple[str, str]:
    """Start a new server through a new keeper (under `server.lock`); its URL and token."""
    url_file, token_file, users = paths(store)
    users.mkdir(mode=0o700, exist_ok=True)
    server_users.clear(users)
    token = secrets.token_urlsafe(32)
    _write_private(token_file, token)
    url, keeper = start_keeper(store)
    (store / "server.keeper").write_text(str(keeper))
    url_file.write_text(url)
    return url, token


def start_keeper(store: Path) -> tuple[str, int]:
    """Start the keeper of `store`'s server; the server's URL once it is ready, and the keeper's pid.

    The keeper runs in a session of its own (a Ctrl-C meant for the starting command does not
    reach it), as no child of this process, and no descriptor of this process but its stdout pipe
    is passed on: it holds nothing that would keep a pipe of this process open after it ended.

    Raises:
        ServerError: the keeper could not start the server.
    """
    log = store / "keeper.log"
    with log.open("wb") as stderr:
        keeper = subprocess.Popen(
            [sys.executable, "-m", KEEPER_MODULE, str(store)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
        )
    assert keeper.stdout is not None
    with keeper.stdout:
        # The keeper answers within its server's startup timeout, or ends (EOF): no timeout here.
        line = keeper.stdout.readline().decode(errors="replace").strip()
    keeper.wait()  # the first process, which forked the keeper proper and exited
    if line.startswith(READY):
        pid, url = line.removeprefix(READY).split(" ", 1)
        return url, int(pid)
    reason = line.removeprefix(FAILED) or log.read_text(errors="replace").strip()[-2000:]
    raise ServerError(f"the embedded nats-server did not start: {reason}")


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)  # the file may have existed with a wider mode
        file.write(text)
