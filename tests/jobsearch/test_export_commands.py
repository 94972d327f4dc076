"""`jobsearch export`, `mark` and `status`: the state of record from the command line, no server."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobsearch.cli import main
from tests.jobsearch.export_support import exported_data_dir, listing, sheet_rows


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir holding two exported listings."""
    summary = {"listings_new": 2, "listings_seen": 40}
    return exported_data_dir(tmp_path, monkeypatch, [listing(1), listing(2)], summary)


def test_mark_then_export_shows_the_status(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`mark ID applied` (a unique prefix, any case) sets the status; `export` renders it."""
    assert main(["mark", "L00001", "applied", "--note", "sent via the site"]) == 0
    assert "L00001: Drafted -> Applied" in capsys.readouterr().out
    assert main(["export"]) == 0
    assert "(2 listings)" in capsys.readouterr().out
    rows = {row["ID"]: row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert rows["L00001"]["Status"] == "Applied"
    assert rows["L00001"]["Notes"] == "sent via the site"


def test_mark_refuses_unknown_ids_and_statuses(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong ID (exit 1: not found), an ambiguous prefix or a wrong status (exit 2: bad input),
    each with a message saying what to fix."""
    assert main(["mark", "nope", "applied"]) == 1
    assert "no listing has the id 'nope'" in capsys.readouterr().err
    assert main(["mark", "L0000", "applied"]) == 2
    assert "names several listings" in capsys.readouterr().err
    assert main(["mark", "L00001", "hired"]) == 2
    assert "use one of: Saved, Drafted" in capsys.readouterr().err


def test_status_counts_and_last_run(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`status` prints counts by status and the last run."""
    main(["mark", "L00002", "interview"])
    capsys.readouterr()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "listings: 2" in out
    assert "Drafted    1" in out
    assert "Interview  1" in out
    assert "last run: r1" in out
    assert "seen 40, new 2" in out


def test_export_csv(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`export --csv` writes the tracker's columns beside the xlsx path, or where asked."""
    assert main(["export", "--csv"]) == 0
    assert (data_dir / "tracker.csv").read_text(encoding="utf-8-sig").startswith("ID,Company,Role")
    target = data_dir / "elsewhere.csv"
    assert main(["export", "--csv", str(target)]) == 0
    assert target.exists()
    assert "csv:" in capsys.readouterr().out


def test_export_reports_a_locked_tracker(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`export` with the tracker open in a spreadsheet program: exit 1, the reason, no change."""
    assert main(["export"]) == 0
    (data_dir / "~$tracker.xlsx").write_text("x")
    assert main(["export"]) == 1
    assert "open in a spreadsheet program" in capsys.readouterr().err
