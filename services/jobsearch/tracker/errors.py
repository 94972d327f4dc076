"""What can go wrong with the tracker file, each said as one line the person can act on.

```
TrackerError
 ├── TrackerLocked      a spreadsheet program holds it (lock file present, or the rename refused)
 ├── TrackerBusy        another render kept the render lock past the wait
 ├── TrackerChanged     the person saved it while we rendered (read again and render again)
 ├── TrackerReadOnly    the file is read-only (its mode bits say so): left as it is
 └── TrackerUnwritable  the file or its folder cannot be written (permission, a file in the way)
```

The first three pass (a run retries them); the last two stay until the person acts, so a run
fails its render at once with the message (`jobsearch.export.render_tracker`).
"""

from __future__ import annotations

import errno
import stat
from datetime import datetime
from pathlib import Path


class TrackerError(Exception):
    """The root of every tracker error."""


class TrackerLocked(TrackerError):
    """A spreadsheet program has the tracker open; nothing was written."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"{path} is open in a spreadsheet program ({reason}); nothing was written: save and close "
            "it (if no program has it open, delete the lock file)"
        )
        self.path = path
        self.reason = reason


class TrackerBusy(TrackerError):
    """Another render (an export service, or `jobsearch export`) held the render lock too long."""

    def __init__(self, path: Path, lock: Path, until: datetime) -> None:
        super().__init__(
            f"another render of {path} still held {lock.name} at {until:%H:%M:%S} UTC; nothing was "
            "written (if no jobsearch is running, try again)"
        )
        self.path = path


class TrackerChanged(TrackerError):
    """The tracker was saved while it was being rendered."""


class TrackerReadOnly(TrackerError):
    """The tracker file is read-only: the person froze it, so it is neither read nor written."""

    def __init__(self, path: Path, mode: int) -> None:
        super().__init__(
            f"{path} is read-only ({stat.filemode(mode)[1:]}); left it as it is. To update it, make "
            f"it writable (chmod u+w) or set JOBSEARCH_TRACKER to another file"
        )
        self.path = path


class TrackerUnwritable(TrackerError):
    """The tracker (or its lock, temporary file or folder) cannot be written there."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(
            f"cannot write {path}: {_reason(path, error)}; set JOBSEARCH_TRACKER or fix the folder"
        )
        self.path = path
        self.errno = error.errno


def _reason(path: Path, error: OSError) -> str:
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a folder"
    return (error.strerror or str(error)).lower()
