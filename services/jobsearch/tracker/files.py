"""The tracker file on disk: lock files of spreadsheet programs, one renderer at a time (waiting a
bounded time, saying for what and until when), a read-only file left alone, and an atomic
replace so that a crash never leaves a half-written tracker."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

import structlog

from jobsearch.tracker.errors import (
    TrackerBusy,
    TrackerChanged,
    TrackerLocked,
    TrackerReadOnly,
    TrackerUnwritable,
)

log = structlog.get_logger("jobsearch.tracker")
# How long a render waits for another one to finish: a 5,000-row render takes a few seconds.
RENDER_LOCK_WAIT = 60.0


def office_lock_files(path: Path) -> list[Path]:
    """The lock files Excel (`~$name`, first two letters dropped for long names) and LibreOffice
    (`.~lock.name#`) create beside a document they have open."""
    name = path.name
    return [
        path.with_name(f"~${name}"),
        path.with_name(f"~${name[2:]}"),
        path.with_name(f".~lock.{name}#"),
    ]


def check_not_open(path: Path) -> None:
    """Raise TrackerLocked if a spreadsheet program's lock file sits beside the tracker."""
    for lock in office_lock_files(path):
        if lock.exists():
            raise TrackerLocked(path, f"lock file {lock.name} present")


def check_not_read_only(path: Path) -> None:
    """Raise TrackerReadOnly if the file exists without its owner's write bit.

    The mode bits, not a failed write, decide: root (and a rename over the file, which needs only
    the folder's permission) would replace a read-only file the person meant to freeze.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise TrackerUnwritable(path, exc) from None
    if not mode & stat.S_IWUSR:
        raise TrackerReadOnly(path, mode)


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn an OSError of writing the tracker (or its lock, temporary file, copy) into
    TrackerUnwritable, which names the tracker and what to do."""
    try:
        yield
    except OSError as exc:
        raise TrackerUnwritable(path, exc) from None


@contextlib.contextmanager
def render_lock(
    path: Path, *, wait: float = RENDER_LOCK_WAIT, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the tracker's render lock: one renderer (export service or command) at a time.

    If another renderer holds it, `on_wait` (else the log) hears what is awaited and until when,
    once; after `wait` seconds TrackerBusy is raised.

    Raises:
        TrackerBusy: another renderer kept the lock for `wait` seconds.
        TrackerUnwritable: the folder or the lock file cannot be created.
    """
    lock_path = path.with_name(f".{path.name}.render-lock")
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = lock_path.open("a")
    with lock:
        if not _try_lock(lock):
            until = datetime.now(UTC) + timedelta(seconds=wait)
            message = (
                f"waiting for another render of {path} to finish (it holds {lock_path.name}), "
                f"until {until:%H:%M:%S} UTC"
            )
            if on_wait is not None:
                on_wait(message)
            else:
                log.info("tracker.waiting_for_render_lock", path=str(path), until=until.isoformat())
            _wait_for_lock(lock, path, lock_path, wait, until)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _try_lock(lock: IO[str]) -> bool:
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _wait_for_lock(lock: IO[str], path: Path, lock_path: Path, wait: float, until: datetime) -> None:
    # flock has neither a timed form nor a notification, and a signal cannot interrupt it in the
    # export service's worker threads: polling with a growing pause is the one bounded wait.
    deadline = time.monotonic() + wait
    pause = 0.05
    while not _try_lock(lock):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TrackerBusy(path, lock_path, until)
        time.sleep(min(pause, left))
        pause = min(pause * 2, 1.0)


def file_state(path: Path) -> tuple[int, int] | None:
    """(mtime_ns, size) of the file, or None if it does not exist."""
    try:
        stat_result = path.stat()
    except FileNotFoundError:
        return None
    return stat_result.st_mtime_ns, stat_result.st_size


def keep_copy(path: Path, label: str) -> Path:
    """Copy `path` beside it as `<stem>.<label>-<UTC time><suffix>` (never over another copy).

    Raises:
        TrackerUnwritable: the copy cannot be written.
    """
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S}"
    copy = path.with_name(f"{path.stem}.{label}-{stamp}{path.suffix}")
    n = 1
    while copy.exists():
        n += 1
        copy = path.with_name(f"{path.stem}.{label}-{stamp}-{n}{path.suffix}")
    with writing(path):
        shutil.copy2(path, copy)
        with copy.open("rb") as written:
            os.fsync(written.fileno())
    return copy


def replace_atomically(
    path: Path, write: Callable[[Path], None], *, expected: tuple[int, int] | None
) -> None:
    """Write a new file with `write(temp_path)` and rename it over `path` in one step.

    `expected` is the file's state when its edits were read: if the person saved it since, the
    rename would lose that save, so TrackerChanged is raised instead.

    Raises:
        TrackerLocked: a lock file appeared, or the system refused the rename.
        TrackerChanged: the tracker changed since its edits were read.
        TrackerReadOnly: the tracker was made read-only meanwhile.
        TrackerUnwritable: the temporary file cannot be written beside the tracker.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with writing(path):
            write(temp)
            with temp.open("rb") as written:
                os.fsync(written.fileno())
        check_not_open(path)
        check_not_read_only(path)
        if file_state(path) != expected:
            raise TrackerChanged(f"{path} was saved while the export ran")
        try:
            os.replace(temp, path)
        except PermissionError as exc:
            raise TrackerLocked(path, f"the rename was refused: {exc.strerror}") from None
        with writing(path):
            directory = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
    finally:
        with contextlib.suppress(NotADirectoryError):  # no folder, so no temporary file either
            temp.unlink(missing_ok=True)
