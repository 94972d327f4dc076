"""The tracker file on disk: lock files of spreadsheet programs, one renderer at a time, and an
atomic replace so that a crash never leaves a half-written tracker."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from jobsearch.tracker.errors import TrackerChanged, TrackerLocked


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


@contextlib.contextmanager
def render_lock(path: Path) -> Iterator[None]:
    """Hold the tracker's render lock: one renderer (export service or command) at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_name(f".{path.name}.render-lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def file_state(path: Path) -> tuple[int, int] | None:
    """(mtime_ns, size) of the file, or None if it does not exist."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


def replace_atomically(
    path: Path, write: Callable[[Path], None], *, expected: tuple[int, int] | None
) -> None:
    """Write a new file with `write(temp_path)` and rename it over `path` in one step.

    `expected` is the file's state when its edits were read: if the person saved it since, the
    rename would lose that save, so TrackerChanged is raised instead.

    Raises:
        TrackerLocked: a lock file appeared, or the system refused the rename.
        TrackerChanged: the tracker changed since its edits were read.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temp)
        with temp.open("rb") as written:
            os.fsync(written.fileno())
        check_not_open(path)
        if file_state(path) != expected:
            raise TrackerChanged(f"{path} was saved while the export ran")
        try:
            os.replace(temp, path)
        except PermissionError as exc:
            raise TrackerLocked(path, f"the rename was refused: {exc.strerror}") from None
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    finally:
        temp.unlink(missing_ok=True)
