"""A model's fit judgement in a whole `jobsearch run`: real `jobsearch serve STAGE` processes on a
real nats-server, the bundled sample board, drafts by the offline template, and the fit judged
by a local server speaking OpenAI's chat-completions wire format (`FIT_PROVIDER=openai`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from benchmarks.jobsearch_run import profile as profile_with

from jetjobs import Settings
from jobsearch.store import Store
from tests.jobsearch.export_support import sheet_rows
from tests.jobsearch.provider_servers import Fault, ProviderServer, serving
from tests.jobsearch.run_support import pipeline_env

pytestmark = pytest.mark.integration

TOP = 5
BAD = {"score": 99, "rationale": "A rare match.", "quotes": ["ten years of COBOL at NASA"]}


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with serving() as running:
        yield running


@pytest.fixture
def data_dir(
    tmp_path: Path, settings: Settings, server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The test's server, a temp data dir, offline drafts; the fit judged by the local server's
    OpenAI, the best `TOP` listings, with no retries (a 500 fails at once)."""
    data = pipeline_env(
        msgspec.structs.replace(settings, duplicate_window=1.0), tmp_path / "data", monkeypatch
    )
    for name in list(os.environ):
        if name.startswith(("FIT_", "OPENAI_")):
            monkeypatch.delenv(name)
    for name, value in {"FIT_PROVIDER": "openai", "FIT_TOP": str(TOP), "LLM_RETRIES": "0"}.items():
        monkeypatch.setenv(name, value)
    for name, value in server.env("openai").items():
        monkeypatch.setenv(name, value)
    return data


def run(profile: Path) -> subprocess.CompletedProcess[str]:
    """`jobsearch run --profile PROFILE`, as a person types it."""
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env=dict(os.environ),
    )


def title_in(prompt: str) -> str:
    found = re.search(r"^title: (.+)$", prompt, re.MULTILINE)
    assert found is not None, prompt
    return found.group(1)


def test_judged_fits_reach_the_tracker_and_a_judgement_citing_what_the_listing_lacks_is_dropped(
    tmp_path: Path, data_dir: Path, server: ProviderServer
) -> None:
    """The model judges the best five by local fit; its first answer quotes what no listing
    says and is dropped (that listing keeps its local fit, no "model:" reason); the other four
    move their fits, and the tracker's Why column shows "model: judged ..."; the summary names
    the judge, the counts, the tokens and the cost; every listing still reaches the tracker."""
    lock = threading.Lock()
    answered: list[str] = []

    def reply(system: str, prompt: str) -> str:
        title = title_in(prompt)
        with lock:
            answered.append(title)
            first = len(answered) == 1
        if first:
            return json.dumps(BAD)
        return json.dumps({"score": 95, "rationale": f"The posting is for {title}.", "quotes": [title]})

    server.replies["openai"] = reply
    result = run(profile_with(tmp_path, draft_all=False))
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(answered) == TOP
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        judged = {
            row["listing_id"]: row["outcome"]
            for row in store.conn.execute("SELECT listing_id, outcome FROM fit_judgements")
        }
        listings = store.conn.execute("SELECT count(*) FROM listings").fetchone()[0]
    assert sorted(judged.values()) == ["dropped"] + ["judged"] * (TOP - 1)
    rows = {str(row["ID"]): row for row in sheet_rows(data_dir / "tracker.xlsx")}
    assert len(rows) == listings
    for listing_id, outcome in judged.items():
        why = str(rows[listing_id]["Why"])
        assert ("model: judged 95 of 100: The posting is for" in why) == (outcome == "judged"), why
    line = next(line for line in result.stdout.splitlines() if line.startswith("  fit "))
    assert f"openai/gpt-4o-mini judged the best {TOP} by local fit: {TOP - 1} moved, 1 dropped" in line
    assert f"{TOP * (1100 + 280):,} tokens, $0.00" in line
    assert "quotes 'ten years of COBOL at NASA'" in result.stdout


def test_a_fit_provider_answering_500_leaves_the_local_fits_and_the_run_goes_on(
    tmp_path: Path, data_dir: Path, server: ProviderServer
) -> None:
    """Every judgement answered with HTTP 500: the run ends well (exit 0), each listing keeps its
    local fit in the tracker with no "model:" reason, drafts are made as without a judge, and the
    summary says the five failed and why."""
    server.fail(
        "openai", *[Fault(500, {"error": {"message": "internal error", "type": "server_error"}})] * 50
    )
    result = run(profile_with(tmp_path, draft_all=False))
    assert result.returncode == 0, result.stdout + result.stderr
    rows = sheet_rows(data_dir / "tracker.xlsx")
    assert rows
    assert not any("model:" in str(row["Why"]) for row in rows)
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        failed = store.conn.execute(
            "SELECT count(*) FROM fit_judgements WHERE outcome = 'failed'"
        ).fetchone()[0]
        drafted = store.conn.execute("SELECT count(DISTINCT listing_id) FROM drafts").fetchone()[0]
    assert failed == TOP
    assert drafted > 0
    assert f"judged the best {TOP} by local fit: 0 moved, 0 dropped, {TOP} failed; 0 tokens" in result.stdout
    assert f"kept their local fit: {TOP} failed (no provider answered)" in result.stdout
    assert "HTTP 500" in result.stdout
