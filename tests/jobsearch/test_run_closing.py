"""`jobsearch run` marks the listings a board took down: real `jobsearch run` and stage processes
on a real nats-server, a Greenhouse-shaped board on 127.0.0.1 whose postings change between runs.

Closed is the board's fact beside the person's Status, never instead of it; a read that failed
closes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from jetjobs import Settings
from jetjobs.testing import worker_env
from jobsearch.store import Store
from tests.http_target import Answer, HttpTarget, serving
from tests.jobsearch.boards import ok_json
from tests.jobsearch.export_support import sheet_rows

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

BOARD = "/v1/boards/acme/jobs?content=true&pay_transparency=true"
ROLES = ["Backend Engineer", "Data Analyst", "Product Designer", "Sales Manager", "Support Lead"]


def jobs(*numbers: int) -> dict[str, object]:
    """The board's answer listing the jobs `numbers` (each a role of its own)."""
    return {
        "jobs": [
            {
                "id": 4000 + n,
                "title": ROLES[n],
                "absolute_url": f"https://boards.greenhouse.io/acme/jobs/{4000 + n}",
                "company_name": "Acme Health",
                "location": {"name": "Berlin, Germany"},
                "content": f"&lt;p&gt;{ROLES[n]} at Acme: "
                + " ".join(f"task{n}x{i}" for i in range(30))
                + "&lt;/p&gt;",
                "updated_at": "2026-11-30T10:00:00Z",
            }
            for n in numbers
        ],
        "meta": {"total": len(numbers)},
    }


@pytest.fixture
def board() -> Iterator[HttpTarget]:
    with serving() as target:
        yield target


@pytest.fixture
def data_dir(tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The runs' environment: the test's server, a temp data dir, the offline provider, the
    board's address allowed, no retry inside a read (a 500 fails the source job's attempt)."""
    run_settings = msgspec.structs.replace(settings, duplicate_window=1.0)
    for name in list(os.environ):
        if name.startswith(("JOBSEARCH_", "JETJOBS_", "LLM_", "COVER_LETTER_", "CONNECTION_NOTE_")):
            monkeypatch.delenv(name)
    for name, value in worker_env(run_settings, run_settings.nats.url or "").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    monkeypatch.setenv("JOBSEARCH_ALLOW_HOSTS", "127.0.0.1")
    monkeypatch.setenv("JOBSEARCH_HTTP_RETRIES", "0")
    return tmp_path / "data"


def run(profile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env=dict(os.environ),
    )


def listings_json() -> dict[str, dict[str, object]]:
    """`jobsearch listings --json`, by title."""
    out = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "listings", "--json"],
        capture_output=True, text=True, timeout=60, check=True, env=dict(os.environ),
    )  # fmt: skip
    return {item["listing"]["title"]: item for item in json.loads(out.stdout)}


def test_a_board_that_drops_two_postings_closes_exactly_those_and_a_failed_read_none(
    tmp_path: Path, data_dir: Path, board: HttpTarget
) -> None:
    """Run 1 lists five jobs; run 2 lists three: exactly the two dropped close (today, in SQLite,
    `listings --json`, the tracker's Closed column, the summary), and the person's Applied stays
    Applied. Run 3 answers 500: nothing more closes, nothing reopens. Run 4 lists one of the
    closed again: it reopens."""
    profile = tmp_path / "profile.toml"
    profile.write_text(
        '[person]\nname = "Sam Sample"\n\n[drafting]\nenabled = false\n\n'
        f'[[sources]]\nboard = "greenhouse"\ntoken = "acme"\nbase_url = "{board.url("")}"\n'
    )
    board.script(BOARD, ok_json(jobs(0, 1, 2, 3, 4)))
    first = run(profile)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "closed " not in first.stdout
    before = listings_json()
    assert set(before) == set(ROLES)
    assert all(item["closed_at"] is None for item in before.values())
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        store.set_status(str(before["Data Analyst"]["listing"]["id"]), "Applied", source="ui")  # type: ignore[index]

    board.script(BOARD, ok_json(jobs(0, 2, 4)))
    second = run(profile)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "  closed     2 taken down by their boards" in second.stdout
    today = datetime.now(UTC).date().isoformat()
    after = listings_json()
    assert {title for title, item in after.items() if item["closed_at"] == today} == {
        "Data Analyst",
        "Sales Manager",
    }
    assert all(
        after[t]["closed_at"] is None for t in ("Backend Engineer", "Product Designer", "Support Lead")
    )
    rows = {row["Role"]: row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert len(rows) == 5  # nothing the person had is lost
    assert rows["Data Analyst"]["Status"] == "Applied"
    closed = rows["Data Analyst"]["Closed"]
    assert isinstance(closed, datetime)  # a real date cell
    assert closed.date().isoformat() == today
    assert rows["Sales Manager"]["Closed"] is not None
    assert rows["Backend Engineer"]["Closed"] is None

    board.script(BOARD, Answer(500, b"internal error"))
    third = run(profile)
    assert third.returncode == 1, third.stdout + third.stderr
    assert "closed " not in third.stdout
    assert {t for t, item in listings_json().items() if item["closed_at"]} == {
        "Data Analyst",
        "Sales Manager",
    }

    board.script(BOARD, ok_json(jobs(0, 1, 2, 4)))
    fourth = run(profile)
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert "  closed     0 taken down by their boards; 1 listed again" in fourth.stdout
    assert {t for t, item in listings_json().items() if item["closed_at"]} == {"Sales Manager"}
    rows = {row["Role"]: row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert rows["Data Analyst"]["Closed"] is None
    assert rows["Data Analyst"]["Status"] == "Applied"
