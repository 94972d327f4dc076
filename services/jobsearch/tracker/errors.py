"""What can go wrong with the tracker file.

```
TrackerError
 ├── TrackerLocked    a spreadsheet program holds it (lock file present, or the rename refused)
 └── TrackerChanged   the person saved it while we rendered (read again and render again)
```
"""

from __future__ import annotations

from pathlib import Path


class TrackerError(Exception):
    """The root of every tracker error."""


class TrackerLocked(TrackerError):
    """A spreadsheet program has the tracker open; nothing was written."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"{path} is open in a spreadsheet program ({reason}); nothing was written. Save and close "
            "it and the export is retried (if no program has it open, delete the lock file)."
        )
        self.path = path
        self.reason = reason


class TrackerChanged(TrackerError):
    """The tracker was saved while it was being rendered."""
