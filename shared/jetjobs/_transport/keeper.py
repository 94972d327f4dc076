"""`python -m jetjobs._transport.keeper STORE`: the process that owns the shared embedded server.

Started by the first jetjobs process that needs the server (`jetjobs._transport.shared_server`),
in a session of its own and tied to nobody: it forks once more and the first process exits, so the
keeper is no child of the process that started it (which need not wait for it). It

1. starts `nats-server -js` with the token in `STORE/server.token` (the server dies with the
   keeper, however the keeper dies: `EmbeddedServer` ties it);
2. prints one line, `ready PID URL` (or `failed REASON` and exits 1), and closes its stdout;
3. waits, in the kernel, on the locks of the use files in `STORE/users/` (one per process using
   the server; the kernel unlocks a dead process's file). When the last is gone it looks again
   under `server.lock`; if no live use is left it stops the server while still holding the lock
   (no one joins a stopping server, no second server starts on the store meanwhile);
4. also ends when the server ends on its own (killed, crashed), or on SIGTERM (stopping the
   server first: the last user out sends it, holding `server.lock`); it then removes
   `server.url` and `server.token` if they still name its server and the lock is free (whoever
   holds it checks the server anyway), so the next process need not try a dead address.

Nothing here polls: the waits are blocking flocks and the server's own exit.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from jetjobs._errors import ServerError
from jetjobs._transport import server_users
from jetjobs._transport.embedded import EmbeddedServer
from jetjobs._transport.shared_server import FAILED, READY, paths


class Keeper:
    """One store's server and the wait for its users to be gone."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.url_file, self.token_file, self.users = paths(store)
        self.token = self.token_file.read_text().strip()
        self.server = EmbeddedServer(store / "jetstream", token=self.token)
        self.wake = threading.Event()  # the server ended, or no user is left
        self.stopped = threading.Event()  # the server is down: the users' thread may unlock

    def run(self) -> int:
        """Start the server, say so, keep it while it is used; the exit code."""
        try:
            url = self.server.start()
        except ServerError as exc:
            _tell(FAILED + " ".join(str(exc).split()))
            return 1
        _tell(f"{READY}{os.getpid()} {url}")
        threading.Thread(target=self._wait_unused, name="users", daemon=True).start()
        threading.Thread(target=self._wait_server, name="server", daemon=True).start()
        try:
            self.wake.wait()
        finally:  # also on SIGTERM
            self.server.stop()
            self.stopped.set()
            self._forget()
        return 0

    def _wait_server(self) -> None:
        self.server.wait()
        self.wake.set()

    def _wait_unused(self) -> None:
        """Return, holding `server.lock`, once no live process uses the server (see the docstring)."""
        while True:
            for path in sorted(self.users.glob(f"*{server_users.SUFFIX}")):
                server_users.wait_ended(path)
            lock = os.open(self.store / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(lock, fcntl.LOCK_EX)
            if server_users.live_uses(self.users):
                os.close(lock)  # someone joined meanwhile: wait for them too
                continue
            self._remove_files()
            self.wake.set()
            self.stopped.wait()  # keep the lock until the server is down
            os.close(lock)
            return

    def _forget(self) -> None:
        """Remove `server.url` and `server.token` if they still name this server and the lock is
        free: its holder may be the last user, waiting for this process to end (it removed them
        already), or a joiner, who checks the server anyway."""
        lock = os.open(self.store / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._remove_files()
        except BlockingIOError:
            pass
        finally:
            os.close(lock)

    def _remove_files(self) -> None:
        with contextlib.suppress(OSError):
            if self.token_file.read_text().strip() == self.token:
                os.unlink(self.url_file)
                os.unlink(self.token_file)


def _tell(line: str) -> None:
    """The one line for the process that started the keeper; then stdout goes nowhere."""
    with contextlib.suppress(OSError):  # the starter may be gone already
        os.write(1, (line + "\n").encode())
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    """The keeper's entry point: `argv` is `[STORE]`."""
    if os.fork():  # no thread runs yet: a plain fork is safe
        os._exit(0)  # the starter reaps this one at once; the keeper goes on in the child
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is for its commands
    return Keeper(Path(argv[0])).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
