"""`jobsearch export --csv -`, `jobsearch mark`'s exit statuses, and the heading of `replay`'s summary."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Settings
from jobsearch.cli import build_parser, main
from jobsearch.run.orchestra import Orchestra, conclude
from jobsearch.run.summary import RunSummary
from jobsearch.run.summary_lines import format_summary
from jobsearch.store import Store
from tests.jobsearch.export_support import drafts, exported_data_dir, listing

HOSTILE_TITLE = '=HYPERLINK("http://evil.example/","x"), "quoted"\nsecond line'


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir holding two exported listings, the second with a hostile, multi-line title."""
    return exported_data_dir(tmp_path, monkeypatch, [listing(1), listing(2, title=HOSTILE_TITLE)], {})


def test_export_csv_dash_writes_standard_output(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`export --csv -` writes the CSV (no BOM) to standard output, the same rows as the CSV file,
    the count to standard error, and creates no file named `-`."""
    monkeypatch.chdir(data_dir)
    assert main(["export", "--csv", "-"]) == 0
    captured = capsysbinary.readouterr()
    assert not (data_dir / "-").exists()
    assert not captured.out.startswith(b"\xef\xbb\xbf")
    assert captured.err.decode().strip().endswith("csv: standard output (2 listings)")
    streamed = list(csv.reader(io.StringIO(captured.out.decode("utf-8"), newline="")))

    assert main(["export", "--csv", str(data_dir / "file.csv")]) == 0
    with (data_dir / "file.csv").open(encoding="utf-8-sig", newline="") as f:
        written = list(csv.reader(f))
    assert streamed == written
    assert streamed[0][:3] == ["ID", "Company", "Role"]
    assert len(streamed) == 3
    [hostile] = [row for row in streamed if row[0] == "L00002"]
    assert hostile[2] == "'" + HOSTILE_TITLE  # formula-escaped, quotes and the newline intact


def test_export_csv_dash_into_a_pipe_closed_early_is_quiet(data_dir: Path) -> None:
    """`jobsearch export --csv - | head -1`: the header arrives and the command stops without a
    traceback when the reader goes away (exit 141, as Unix tools)."""
    env = dict(os.environ) | {"JOBSEARCH_DATA_DIR": str(data_dir)}
    # 2.4 MB of CSV: more than any pipe holds (Linux allows at most 1 MiB), so the write must fail.
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        for n in range(3, 303):
            store.record_export(run_id="r1", job_id=f"j{n}", listing=listing(n), drafts=drafts())
            store.set_notes(f"L{n:05d}", "n" * 8000, source="test")
    process = subprocess.Popen(
        [sys.executable, "-m", "jobsearch.cli", "export", "--csv", "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=data_dir,
    )
    assert process.stdout is not None
    header = process.stdout.readline()
    process.stdout.close()  # the reader goes away
    _, err = process.communicate(timeout=60)
    assert header.startswith(b"ID,Company,Role")
    assert process.returncode == 141, err
    assert b"Traceback" not in err
    assert b"BrokenPipe" not in err
    assert not (data_dir / "-").exists()


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["mark", "nope", "applied"], 1, "no listing has the id 'nope'"),  # not found
        (["mark", "L0000", "applied"], 2, "names several listings"),  # ambiguous: bad input
        (["mark", "L00001", "hired"], 2, "use one of: Saved, Drafted"),  # not a status: bad input
        (["mark", "L00001"], 2, "the following arguments are required: STATUS"),  # argparse's own
    ],
)
def test_mark_exit_statuses(
    data_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str
) -> None:
    """As for `jetjobs`: 1 when the named thing is not found, 2 for input that cannot be right;
    nothing changes either way."""
    if code == 2 and "required" in message:
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == code
    else:
        assert main(argv) == code
    assert message in capsys.readouterr().err
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        assert store.counts_by_status()["Drafted"] == 2


def test_summary_is_headed_by_the_command() -> None:
    """The summary's first line names the command that ran: `jobsearch run ...` or `jobsearch replay ...`."""
    assert format_summary(RunSummary(run_id="r1", seconds=1.0))[0] == "jobsearch run r1: done in 1.0 s"
    replayed = RunSummary(run_id="r2", seconds=2.5, command="replay")
    assert format_summary(replayed)[0] == "jobsearch replay r2: done in 2.5 s"


@pytest.mark.integration
@pytest.mark.parametrize(
    ("argv", "heading"),
    [
        (["run", "--profile", "p.toml"], "jobsearch run r9: done"),
        (["replay", "--since", "1h", "--stage", "draft"], "jobsearch replay r9: done"),
    ],
)
async def test_replay_prints_and_records_a_replay_summary(
    *,
    data_dir: Path,
    settings: Settings,
    nc: NATS,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    heading: str,
) -> None:
    """The command line `jobsearch replay ...` ends with a summary headed `jobsearch replay`, and the
    run's record in the database says which command it was."""
    args = build_parser().parse_args(argv)
    orchestra = Orchestra(args, settings, nc, "r9")
    with Store.open(orchestra.pipeline.db_path) as store:
        store.start_run("r9", profile="p.toml")

    async def finished(submit: Any, *, sources: int = 0) -> RunSummary:
        return RunSummary(run_id="r9", seconds=1.0)  # the run itself is the end-to-end tests' part

    async def submit() -> None:
        pass

    orchestra.run = finished  # type: ignore[method-assign]
    assert await conclude(orchestra, submit) == 0
    assert capsys.readouterr().out.startswith(heading)
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        run = store.last_run()
    assert run is not None
    assert run.run_id == "r9"
    assert msgspec.convert(run.summary, RunSummary).command == argv[0]
