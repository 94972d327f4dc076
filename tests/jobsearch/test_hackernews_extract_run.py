"""The model pass over unreadable "Who is hiring?" comments in a whole `jobsearch run`: real stage
processes on a real nats-server, the thread served in the Algolia HN API's shape from 127.0.0.1,
and the comments the rules cannot read sent to a local server speaking OpenAI's chat-completions
wire format (`EXTRACT_PROVIDER=openai`). The summary says what the model read, and at what cost."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jetjobs import Settings
from jetjobs.testing import worker_env
from jobsearch.store import Store
from tests.http_target import HttpTarget
from tests.http_target import serving as serving_board
from tests.jobsearch.boards import ok_json
from tests.jobsearch.provider_servers import ProviderServer, serving
from tests.jobsearch.test_hackernews_extract import (
    FARMCO,
    FARMCO_POSTING,
    READABLE,
    SEEKER,
    TIDEWATER,
    answer,
    comment_in,
    thread,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

PLOVER = (
    "Plover Systems | Senior Distributed Systems Engineer | Remote (US) | $185,000\u2013$215,000 | "
    "Full-time<p>We build a replicated log for financial exchanges.<p>"
    '<a href="https:&#x2F;&#x2F;jobs.ashbyhq.com&#x2F;plover&#x2F;6a5b4c3d" rel="nofollow">'
    "https:&#x2F;&#x2F;jobs.ashbyhq.com&#x2F;plover&#x2F;6a5b4c3d</a>"
)


@pytest.fixture
def board() -> Iterator[HttpTarget]:
    with serving_board() as target:
        yield target


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with serving() as running:
        yield running


@pytest.fixture
def data_dir(
    tmp_path: Path, settings: Settings, server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The run's environment: the test's nats-server, a temp data dir, offline drafts (not asked
    for: drafting is off), the board's address allowed, and the comments read by the local
    server's OpenAI with no retries."""
    for name in list(os.environ):
        if name.startswith(("JOBSEARCH_", "JETJOBS_", "LLM_", "EXTRACT_", "FIT_", "OPENAI_")):
            monkeypatch.delenv(name)
    for name, value in worker_env(settings, settings.nats.url or "").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    monkeypatch.setenv("JOBSEARCH_ALLOW_HOSTS", "127.0.0.1")
    for name, value in {"EXTRACT_PROVIDER": "openai", "LLM_RETRIES": "0", **server.env("openai")}.items():
        monkeypatch.setenv(name, value)
    return tmp_path / "data"


def reply(system: str, prompt: str) -> str:
    """A careful model's readings, except that it invents Plover's title."""
    comment = comment_in(prompt)
    if "Farmco" in comment:
        return answer(FARMCO_POSTING)
    if "Tidewater" in comment:
        roles = [
            {"company": "Tidewater Labs", "title": title, "places": ["Oslo"], "workplace": "on-site",
             "pay": "NOK 900k-1.1M", "apply": "https://tidewater.example/jobs"}
            for title in ("Staff Data Engineer", "SRE")
        ]  # fmt: skip
        return answer(*roles)
    return answer({"company": "Plover Systems", "title": "Principal Engineer", "workplace": "Remote (US)"})


def test_a_run_reads_the_unreadable_comments_by_the_model_and_says_so(
    tmp_path: Path, data_dir: Path, board: HttpTarget, server: ProviderServer
) -> None:
    """Three comments the rules cannot read go to the model (the job seeker's does not): two give
    three listings, recorded like the rules' one; the third's invented title is dropped, and that
    comment stays unreadable. The summary's source line counts the postings and the skips; the
    next line says what the model read, dropped, and cost."""
    board.script("/api/v1/items/7", ok_json(thread(READABLE, FARMCO, SEEKER, TIDEWATER, PLOVER)))
    server.replies["openai"] = reply
    profile = tmp_path / "profile.toml"
    profile.write_text(
        '[person]\nname = "Sam Sample"\n\n[drafting]\nenabled = false\n\n'
        f'[[sources]]\nboard = "hackernews"\nthread_id = 7\nbase_url = "{board.url("")}"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        capture_output=True, text=True, timeout=240, check=False, env=dict(os.environ),
    )  # fmt: skip
    (tmp_path / "summary.txt").write_text(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(server.to("openai")) == 3
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert "hackernews:7: 4 postings from 5 comments; 1 unreadable, 1 not postings" in lines, done.stdout
    read = next(line for line in lines if "sent to openai/gpt-4o-mini" in line)
    assert read.startswith(
        "hackernews:7: 3 unreadable comments sent to openai/gpt-4o-mini: 3 postings from 2 of them; "
        "1 dropped by the check, 0 failed; 4,140 tokens, $0.0"
    ), done.stdout
    assert "title not in the comment (1)" in lines
    assert "listings   seen 4 = new 4 + updated 0 + merged 0" in done.stdout
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        titles = sorted(row[0] for row in store.conn.execute("SELECT title FROM listings"))
    assert titles == ["SRE", "Senior Backend Engineer", "Senior Build Engineer", "Staff Data Engineer"]
