"""Who uses the shared embedded server: one locked file per process, in `users/` of the store dir.

```
<store>/users/<pid>-<random>.use      one per process connected to the server, flock'd LOCK_EX
```

A process that joins (or starts) the server takes a `ServerUse` and holds it for as long as it is
connected; leaving, it removes the file. The kernel drops a flock when the process that holds it
ends, however it ends (`kill -9` included), so a use file whose lock can be taken belongs to no
live process and no longer counts: no pid files to check against recycled pids, no heartbeat.

The keeper (`jetjobs._transport.keeper`) waits on these locks and stops the server once none is
held. A use is taken, and the keeper decides that none is left, only under the store's
`server.lock`, so no process can join between the keeper's last look and the server's stop.

A file is locked before it gets its `.use` name (created under a dot name, locked, renamed): a
`.use` file that is not locked is always a stale one, never one about to be locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from pathlib import Path
from types import TracebackType

SUFFIX = ".use"


class ServerUse:
    """This process's use of the shared embedded server, held until `release()`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, users: Path) -> ServerUse:
        """Create and lock this process's use file in `users` (created, mode 0700, if missing)."""
        users.mkdir(mode=0o700, exist_ok=True)
        name = f"{os.getpid()}-{secrets.token_hex(4)}"
        pending = users / f".{name}"
        fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)  # close-on-exec
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            path = users / f"{name}{SUFFIX}"
            os.rename(pending, path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(pending)
            raise
        return cls(path, fd)

    def release(self) -> None:
        """Stop counting as a user (idempotent): remove the file, then drop the lock."""
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):  # a new server's starter cleared users/
            os.unlink(self.path)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> ServerUse:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _held(path: Path) -> bool | None:
    """Whether a live process holds `path`'s lock; None when the file is gone."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def live_uses(users: Path) -> list[Path]:
    """The use files held by a live process; the stale ones (their process ended) are removed.

    Call under `server.lock`.
    """
    live = []
    for path in sorted(users.glob(f"*{SUFFIX}")):
        held = _held(path)
        if held:
            live.append(path)
        elif held is False:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    return live


def wait_ended(path: Path) -> None:
    """Block until the process holding `path`'s lock releases it or ends (at once if it has)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a blocking wait in the kernel: no polling
    finally:
        os.close(fd)


def clear(users: Path) -> None:
    """Forget every use file: a new server starts with no user but its starter.

    The processes still holding one used a server that is gone; their locks stay on files that no
    longer have a name, so the new server's keeper never waits for them.
    """
    for path in [*users.glob(f"*{SUFFIX}"), *users.glob(".*")]:  # and any a process left half-made
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
