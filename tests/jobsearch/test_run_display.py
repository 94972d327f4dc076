"""`jobsearch run`'s progress display: rich bars per stage on a terminal, plain lines otherwise."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from rich.console import Console

from jetjobs import StatusRecord
from jobsearch.jobs import DRAFT, EXPORT, LISTING, SOURCE
from jobsearch.run.display import Display
from jobsearch.run.progress import Progress

NOW = datetime(2026, 11, 30, tzinfo=UTC)
STAGES = ("fetch", "dedupe", "draft", "export")


def entry(job_id: str, job_type: str, state: str, result: Any = None, **fields: Any) -> StatusRecord:
    """A ledger entry as a worker writes it."""
    return StatusRecord(id=job_id, type=job_type, state=state, updated_at=NOW, result=result, **fields)  # type: ignore[arg-type]


def midway() -> Progress:
    """A run part-way: 3 sources (one dead), 9 listings (6 looked at: 4 new, 2 filtered),
    4 drafts (3 written, 1 retrying), 3 exports (2 recorded)."""
    progress = Progress([SOURCE, LISTING, DRAFT, EXPORT])
    progress.keep_results = frozenset({SOURCE})
    progress.on_record(entry("s1", SOURCE, "succeeded", {"source": "greenhouse:acme", "listings": 5}))
    progress.on_record(entry("s2", SOURCE, "succeeded", {"source": "lever:globex", "listings": 4}))
    progress.on_record(entry("s3", SOURCE, "dead", error="ashby:initech: 404 Not Found"))
    outcomes = [("new", "drafted")] * 4 + [("filtered", "dropped")] * 2
    for n, (outcome, state) in enumerate(outcomes):
        progress.on_record(entry(f"l{n}", LISTING, "succeeded", {"outcome": outcome, "state": state}))
    for n in range(len(outcomes), 9):
        progress.on_record(entry(f"l{n}", LISTING, "queued"))
    for n in range(4):
        progress.on_record(
            entry(
                f"d{n}",
                DRAFT,
                "succeeded" if n < 3 else "failed",
                error="HTTP 503",
                result={"outcome": "drafted"} if n < 3 else None,
            )
        )
    for n in range(3):
        progress.on_record(entry(f"e{n}", EXPORT, "succeeded" if n < 2 else "queued"))
    return progress


def final_frame(console: Console) -> dict[str, str]:
    """Each stage's row as the live display last drew it (the text after its last line erase)."""
    raw = console.file.getvalue()  # type: ignore[attr-defined]
    frame = raw.rsplit("\x1b[2K", 1)[-1].replace("\x1b[?25h", "")
    rows = {}
    for line in frame.splitlines():
        words = line.split()
        assert words, frame
        rows[words[0]] = " ".join(words)
    return rows


def terminal() -> Console:
    """A console that is a terminal 110 columns wide, without colours, keeping what it wrote."""
    return Console(file=io.StringIO(), force_terminal=True, width=110, color_system=None)


def test_terminal_shows_a_bar_per_stage_with_its_counts() -> None:
    """On a terminal: four rows (fetch, dedupe, draft, export), each with settled/total and the
    counts a person watches; a note prints above the bars; the last frame has the final counts."""
    console = terminal()
    progress = midway()
    with Display(progress, console=console, sources=3) as display:
        assert display.interactive
        display.refresh()
        display.note("a note: draft service restarted (1)")
        progress.on_record(entry("e2", EXPORT, "succeeded"))  # one more lands before the end
    rows = final_frame(console)
    assert list(rows) == list(STAGES)
    assert re.search(r"^fetch ━+ 3/3 fetched 9 failed 1 \d:\d\d:\d\d$", rows["fetch"]), rows["fetch"]
    assert re.search(r"^dedupe ━+╸? 6/9 new 4 filtered 2 ", rows["dedupe"]), rows["dedupe"]
    assert re.search(r"^draft ━+╸? 3/4 drafted 3 retrying 1 ", rows["draft"]), rows["draft"]
    assert re.search(r"^export ━+ 3/3 exported 3 ", rows["export"]), rows["export"]
    raw = console.file.getvalue()  # type: ignore[attr-defined]
    note = raw.index("a note: draft service restarted (1)\n")
    assert raw.index("fetch") < note < raw.rindex("fetch")  # printed above the bars, which go on


def test_terminal_bars_show_an_unknown_total_before_jobs_are_seen() -> None:
    """Before any job of a stage is seen, its row shows 0 of an unknown total, not 0/0 complete."""
    console = terminal()
    with Display(Progress([SOURCE, LISTING, DRAFT, EXPORT]), console=console):
        pass
    rows = final_frame(console)
    assert list(rows) == list(STAGES)
    for stage in STAGES:
        assert re.search(r" 0/\? ", rows[stage]), rows[stage]


def test_not_a_terminal_prints_plain_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Into a pipe or file: no bars and no escape codes, one `progress:` line per change, the
    final counts printed on close; an unchanged refresh prints nothing."""
    for variable in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(variable, raising=False)
    out = io.StringIO()
    progress = midway()
    with Display(progress, stream=out, sources=3) as display:
        assert not display.interactive
        display.refresh(force=True)
        display.refresh(force=True)  # nothing changed: no second line
        display.note("draft service restarted (1)")
        progress.on_record(entry("e2", EXPORT, "succeeded"))
    assert "\x1b" not in out.getvalue()
    assert out.getvalue().splitlines() == [
        "progress: fetched 9  new 4  filtered 2  drafted 3  exported 2  failed 1",
        "draft service restarted (1)",
        "progress: fetched 9  new 4  filtered 2  drafted 3  exported 3  failed 1",
    ]


def test_a_board_that_asks_to_be_read_later_is_said_once_with_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A source job retrying because its board said Retry-After names the board and when it is
    read again, once, on a plain output too."""
    for variable in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(variable, raising=False)
    out = io.StringIO()
    progress = Progress([SOURCE, LISTING, DRAFT, EXPORT])
    reason = "Retry: greenhouse:acme: HTTP 429, asked to wait 30 s; read again at 08:10:31 UTC"
    with Display(progress, stream=out, sources=1) as display:
        progress.on_record(entry("s1", SOURCE, "failed", error=reason))
        display.refresh(force=True)
        display.refresh(force=True)
    told = [line for line in out.getvalue().splitlines() if line.startswith("fetch: ")]
    assert told == ["fetch: greenhouse:acme: HTTP 429, asked to wait 30 s; read again at 08:10:31 UTC"]
