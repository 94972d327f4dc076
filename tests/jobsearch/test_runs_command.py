"""`jobsearch runs` and `jobsearch runs show`: the history of runs from a real SQLite state of
record, written through the real `Store` (`start_run`, `finish_run`) as the runs themselves write it.

The data dir's clock is pinned to a zone two hours east of UTC (a POSIX TZ, no tz database
needed), so a scheduled run recorded at 05:30 UTC shows as the 07:30 the person set it for.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from jobsearch.run.runs_command import add_runs_parser
from jobsearch.run.summary import RunSummary
from jobsearch.store import ProviderUsage, Store
from jobsearch.store.run_history import past_run, past_runs

MORNING = "20261130T053000-1a2b3c"  # the 07:30 (local) scheduled run: ok
REFUSED = "20261130T063000-4d5e6f"  # a scheduled run an hour later, refused
TYPED = "20261129T160000-0a0b0c"  # the day before, typed
# A summary stored before closings, digests and triggers were counted.
OLD_SUMMARY = json.dumps({"run_id": TYPED, "seconds": 29.6, "listings_seen": 4, "listings_new": 2})
REFUSAL = "the profile /home/jane/profile.toml cannot run: [search] titles must not be empty"
# As `jobsearch.run.scheduled` records a refused run: the reason, and the failure digest it sent.
REFUSED_SUMMARY = {"refused": REFUSAL, "digest": "sent: email (0 listings)", "digest_error": None}


@pytest.fixture
def local_zone() -> Iterator[None]:
    """Local time is UTC+2 for the test (the process's TZ, restored after)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "XYZ-2"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_zone: None) -> Path:
    """`tmp_path` as JOBSEARCH_DATA_DIR, no other path variable set, no database yet."""
    for name in ("JOBSEARCH_DB", "JOBSEARCH_TRACKER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path))
    return tmp_path


def morning_summary() -> dict[str, Any]:
    """What the 07:30 run stored: 3 new, 1 updated, 3 listings drafted (1 needs review), 2 closed,
    the digest sent."""
    summary = RunSummary(
        run_id=MORNING,
        seconds=252.4,
        trigger="schedule:morning",
        sources_ok=4,
        listings_seen=10,
        listings_new=3,
        listings_updated=1,
        listings_unchanged=6,
        listings_closed=2,
        drafts=[
            ProviderUsage(
                provider="openai",
                model="gpt-4o-mini",
                drafts=6,
                tokens_in=9000,
                tokens_out=3000,
                cost_usd=0.42,
                needs_review=1,
            )
        ],
        needs_review=1,
        drafted_listings=3,
        tracker="/home/jane/jobsearch/tracker.xlsx",
        tracker_rows=12,
        digest="sent: email (4 listings)",
    )
    stored: dict[str, Any] = msgspec.to_builtins(summary)  # as `jobsearch.run.owner.recorded` does
    return stored


def record(
    store: Store,
    run_id: str,
    *,
    started: str,
    finished: str | None,
    trigger: str,
    outcome: str | None,
    summary: dict[str, Any],
) -> None:
    """A run recorded as runs record themselves, then given fixed times (the store stamps now)."""
    store.start_run(run_id, profile="/home/jane/profile.toml", trigger=trigger)
    if outcome is not None:
        store.finish_run(run_id, outcome=outcome, summary=summary)
    store.conn.execute(
        "UPDATE runs SET started_at = ?, finished_at = ? WHERE run_id = ?", (started, finished, run_id)
    )


@pytest.fixture
def history(data_dir: Path) -> Path:
    """Three finished runs: typed (yesterday), the 07:30 scheduled one, a refused scheduled one."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        typed = {"run_id": TYPED, "seconds": 61.0, "listings_new": 5, "drafted_listings": 5}
        record(
            store,
            TYPED,
            started="2026-11-29T16:00:00+00:00",
            finished="2026-11-29T16:01:01+00:00",
            trigger="typed",
            outcome="ok",
            summary=typed,
        )
        record(
            store,
            MORNING,
            started="2026-11-30T05:30:00+00:00",
            finished="2026-11-30T05:34:12+00:00",
            trigger="schedule:morning",
            outcome="ok",
            summary=morning_summary(),
        )
        record(
            store,
            REFUSED,
            started="2026-11-30T06:30:00+00:00",
            finished="2026-11-30T06:30:03+00:00",
            trigger="schedule:morning",
            outcome="failed",
            summary=REFUSED_SUMMARY,
        )
    return data_dir


def runs(*argv: str) -> int:
    """`jobsearch runs ARGV...` through the parser `add_runs_parser` builds, as `jobsearch.cli` runs
    a local command."""
    parser = argparse.ArgumentParser(prog="jobsearch")
    add_runs_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["runs", *argv])
    code: int = args.local(args)
    return code


def test_runs_lists_newest_first_with_trigger_outcome_and_numbers(
    history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line per run, newest first: the refused 08:30 run as failed with its reason, then the
    07:30 scheduled run in local time with its duration, counts and digest, then yesterday's."""
    assert runs() == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines[:3]] == [REFUSED, MORNING, TYPED]
    refused, morning, typed = lines[:3]
    assert refused.startswith(f"2026-11-30 08:30  {REFUSED}  schedule:morning")
    assert " failed " in refused
    assert refused.endswith(f"3s  refused: {REFUSAL}; digest sent: email (0 listings)")
    assert morning.startswith(f"2026-11-30 07:30  {MORNING}  schedule:morning ok ")
    assert morning.endswith(
        "4m 12s  sources 4 ok, new 3, updated 1, drafted 3, 1 need review, closed 2, 12,000 tokens $0.42; "
        "digest sent: email (4 listings)"
    )
    assert typed.startswith(f"2026-11-29 18:00  {TYPED}  typed ")
    assert typed.endswith("1m 01s  sources 0 ok, new 5, updated 0, drafted 5")
    assert "3 run(s) in" in lines[-1]
    assert "runs show RUN_ID" in lines[-1]


def test_runs_limit_keeps_the_newest(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--limit 1 prints only the newest run and says more can be asked for."""
    assert runs("--limit", "1") == 0
    out = capsys.readouterr().out
    assert REFUSED in out
    assert MORNING not in out
    assert TYPED not in out
    assert "the newest 1; --limit N for more" in out


def test_runs_without_runs_says_how_to_start_one(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No database yet: a friendly line naming `jobsearch run`, exit 0, and no database created;
    with --json an empty list."""
    assert runs() == 0
    out = capsys.readouterr().out
    assert out.startswith("no runs yet in ")
    assert "`jobsearch run --profile PROFILE` starts one" in out
    assert not (data_dir / "jobsearch.sqlite").exists()
    assert runs("--json") == 0
    assert json.loads(capsys.readouterr().out) == []


def test_runs_json_has_every_field(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints a list newest first, each run with its id, times (ISO, UTC), trigger,
    outcome, profile and stored summary."""
    assert runs("--json", "--limit", "2") == 0
    printed = json.loads(capsys.readouterr().out)
    assert [run["run_id"] for run in printed] == [REFUSED, MORNING]
    refused, morning = printed
    assert set(refused) == {"run_id", "started_at", "finished_at", "trigger", "outcome", "profile", "summary"}
    assert refused["outcome"] == "failed"
    assert refused["trigger"] == "schedule:morning"
    assert refused["summary"] == REFUSED_SUMMARY
    assert datetime.fromisoformat(morning["started_at"]) == datetime.fromisoformat("2026-11-30T05:30:00Z")
    assert morning["profile"] == "/home/jane/profile.toml"
    assert morning["summary"]["listings_new"] == 3


def test_runs_show_by_prefix_prints_the_whole_summary(
    history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A unique prefix finds the 07:30 run; its record and the summary `jobsearch run` printed,
    with the digest, follow."""
    assert runs("show", "20261130T0530") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"run {MORNING}"
    assert "  started    2026-11-30 07:30 (local time); finished 2026-11-30 07:34; 4m 12s" in lines
    assert "  trigger    schedule:morning" in lines
    assert "  profile    /home/jane/profile.toml" in lines
    assert "  outcome    ok" in lines
    assert f"jobsearch run {MORNING}: done in 252.4 s" in lines
    assert "seen 10 = new 3 + updated 1 + merged 0 + unchanged 6 + filtered 0" in out
    assert "closed     2 taken down by their boards" in out
    assert "1 need review (openai 1)" in out
    assert "  tracker    /home/jane/jobsearch/tracker.xlsx (12 listings)" in lines
    assert lines[-1] == "  digest     sent: email (4 listings)"


def test_runs_show_a_refused_run_prints_its_reason(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refused run's stored summary is a reason, not a RunSummary: printed as key: value lines
    (none for a key without a value)."""
    assert runs("show", REFUSED) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  outcome    failed" in lines
    assert lines[-2:] == [f"  refused: {REFUSAL}", "  digest: sent: email (0 listings)"]


def test_runs_show_json_before_or_after_show(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json works on either side of `show`: the one run as a JSON object."""
    for argv in (("--json", "show", TYPED), ("show", TYPED, "--json")):
        assert runs(*argv) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed["run_id"] == TYPED
        assert printed["trigger"] == "typed"
    assert runs("show", TYPED) == 0
    assert capsys.readouterr().out.startswith(f"run {TYPED}\n")


def test_runs_show_ambiguous_prefix_names_the_candidates(
    history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A prefix of two runs is refused (exit 2, as `jobsearch mark`), naming both; past_run raises
    ValueError."""
    assert runs("show", "20261130") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert MORNING in captured.err
    assert REFUSED in captured.err
    assert "give more of the id" in captured.err
    with Store.open(history / "jobsearch.sqlite") as store, pytest.raises(ValueError, match=MORNING):
        past_run(store.conn, "2026113")


def test_runs_show_unknown_id_is_not_found(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An id no run has: exit 1 with the id named; `%` is no wildcard."""
    assert runs("show", "20251") == 1
    captured = capsys.readouterr()
    assert "no run has the id '20251'" in captured.err
    assert captured.out == ""
    assert runs("show", "%") == 1


def test_runs_show_without_database_is_not_found(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No database at all: the id is not found (exit 1), and no database is created."""
    assert runs("show", MORNING) == 1
    assert MORNING in capsys.readouterr().err
    assert not (data_dir / "jobsearch.sqlite").exists()


def test_runs_running_and_interrupted(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run this process still runs shows `running` with its time so far; one whose process
    is gone without recording an outcome shows `interrupted`."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        store.start_run("20261130T050000-live00", profile="p.toml", trigger="schedule:morning")
        # Killed before it recorded anything, and no run started since to record it interrupted:
        # a row without its run lock and without an outcome.
        store.conn.execute(
            "INSERT INTO runs (run_id, started_at, profile, trigger) VALUES (?, ?, ?, ?)",
            ("20261130T040000-dead00", "2026-11-30T04:00:00+00:00", "p.toml", "schedule:morning"),
        )
        try:
            assert runs() == 0
            lines = capsys.readouterr().out.splitlines()
            assert "20261130T050000-live00" in lines[0]
            assert " running " in lines[0]
            assert "so far" in lines[0]
            assert "20261130T040000-dead00" in lines[1]
            assert " interrupted " in lines[1]
            assert runs("show", "20261130T05") == 0
            assert "  summary    none stored yet" in capsys.readouterr().out
        finally:
            store.finish_run("20261130T050000-live00", outcome="ok", summary={})


def test_runs_of_a_store_from_before_triggers(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A runs table from before version 6 (no trigger column): read raw, its runs are typed; the
    command opens it through the Store, whose migration adds the column, and shows them typed."""
    db = data_dir / "jobsearch.sqlite"
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    conn.execute(
        "CREATE TABLE runs (run_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT,"
        " profile TEXT NOT NULL DEFAULT '', outcome TEXT, summary TEXT)"
    )
    conn.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)",
        (TYPED, "2026-11-29T16:00:00+00:00", "2026-11-29T16:00:30+00:00", "p.toml", "ok", OLD_SUMMARY),
    )
    conn.commit()
    [old] = past_runs(conn)
    assert old.trigger == "typed"
    assert old.summary["listings_new"] == 2
    conn.close()
    assert runs() == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith(f"2026-11-29 18:00  {TYPED}  typed ")
    assert line.endswith("30s  sources 0 ok, new 2, updated 0, drafted 0")
    assert runs("show", TYPED) == 0  # an old summary, without the newer keys, still converts
    assert f"jobsearch run {TYPED}: done in 29.6 s" in capsys.readouterr().out
