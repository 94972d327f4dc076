"""A real `jobsearch run` reading a "Who is hiring?" thread: real stage processes on a real
nats-server, the thread served in the Algolia HN API's shape from 127.0.0.1. The summary says,
per source, how many postings came from how many comments and why the rest gave none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jetjobs import Settings
from jetjobs.testing import worker_env
from tests.hn_set import HERE
from tests.http_target import HttpTarget, serving
from tests.jobsearch.boards import ok_json

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.fixture
def board() -> Iterator[HttpTarget]:
    with serving() as target:
        yield target


@pytest.fixture
def data_dir(tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The run's environment: the test's server, a temp data dir, the offline provider, the
    board's address allowed."""
    for name in list(os.environ):
        if name.startswith(
            ("JOBSEARCH_", "JETJOBS_", "LLM_", "EXTRACT_", "COVER_LETTER_", "CONNECTION_NOTE_")
        ):
            monkeypatch.delenv(name)
    for name, value in worker_env(settings, settings.nats.url or "").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    monkeypatch.setenv("JOBSEARCH_ALLOW_HOSTS", "127.0.0.1")
    return tmp_path / "data"


def test_a_run_reports_the_threads_postings_and_skips_per_source(
    tmp_path: Path, data_dir: Path, board: HttpTarget
) -> None:
    """The labelled thread (125 comments): 128 postings (multi-role comments split), and the
    comments that are no posting counted on the source's own line of the summary."""
    thread = json.loads((HERE / "set1_thread.json").read_text())
    board.script("/api/v1/items/46500001", ok_json(thread))
    profile = tmp_path / "profile.toml"
    profile.write_text(
        '[person]\nname = "Sam Sample"\n\n[drafting]\nenabled = false\n\n'
        f'[[sources]]\nboard = "hackernews"\nthread_id = 46500001\nbase_url = "{board.url("")}"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        capture_output=True, text=True, timeout=240, check=False, env=dict(os.environ),
    )  # fmt: skip
    (tmp_path / "summary.txt").write_text(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sources    1 ok, 0 failed" in done.stdout
    line = "hackernews:46500001: 128 postings from 125 comments; 17 not postings, 1 deleted comment"
    assert f"\n               {line}\n" in done.stdout, done.stdout
    # One listing per role: the roles of one comment are not merged into one listing.
    assert "listings   seen 128 = new 128 + updated 0 + merged 0" in done.stdout
