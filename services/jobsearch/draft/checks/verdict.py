"""A check's outcome from what it found: passed when nothing, else a detail quoting each find once."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from jobsearch.jobs import Check


def verdict(name: str, found: Iterable[str], detail: Callable[[str], str], *, quote: bool = True) -> Check:
    """The check `name`: failed with `detail(shown)` when anything was found (in order, once each,
    quoted unless `quote` is false), else passed."""
    items = list(dict.fromkeys(found))
    if not items:
        return Check(name=name, passed=True)
    return Check(name=name, passed=False, detail=detail(", ".join(f"'{i}'" if quote else i for i in items)))
