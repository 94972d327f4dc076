"""`jobsearch run` end to end: the data dir's SQLite alone decides what is new to the person.

Real `jobsearch serve STAGE` processes on one real nats-server, the sample board (150 generated
postings), the offline provider, and the platform's default two-minute duplicate window (every
run here falls inside it, as a person's second run of the morning does). No JETJOBS_NAMESPACE:
each data dir's jobs live in its own namespace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.jobsearch_run import profile as profile_with

from jetjobs import EmbeddedServer
from jobsearch.store import Store
from tests.jobsearch.export_support import sheet_rows

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

# Every filter on drops 138 of these (deterministic) postings, and the wider search then finds 125
# new: each over the 100 the test asks for. Each run drafts all it finds: the size is its cost.
SIZE = 150
_LISTINGS = re.compile(
    r"listings   seen (\d+) = new (\d+) \+ updated (\d+) \+ merged (\d+) \+ unchanged (\d+) \+ filtered (\d+)"
)


def environment(nats_url: str, data_dir: Path) -> dict[str, str]:
    """A person's shell: the server, a data dir, the offline provider; no namespace set."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("NATS_", "JETJOBS_", "JOBSEARCH_", "LLM_"))
    }
    return env | {"NATS_URL": nats_url, "JOBSEARCH_DATA_DIR": str(data_dir), "LLM_PROVIDER": "offline"}


def jobsearch(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`jobsearch ARGS...` as typed."""
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def run(env: dict[str, str], profile: Path) -> dict[str, int]:
    """`jobsearch run`; its summary's listing counts, which must add up to what the boards gave."""
    done = jobsearch(env, "run", "--profile", str(profile))
    assert done.returncode == 0, done.stdout + done.stderr
    found = _LISTINGS.search(done.stdout)
    assert found, done.stdout
    seen, new, updated, merged, unchanged, filtered = (int(n) for n in found.groups())
    assert seen == SIZE
    assert seen == new + updated + merged + unchanged + filtered, done.stdout
    return {"new": new, "merged": merged, "unchanged": unchanged, "filtered": filtered}


def tracker_ids(data_dir: Path) -> set[str]:
    """The listing ids the tracker shows."""
    return {str(row["ID"]) for row in sheet_rows(data_dir / "tracker.xlsx")}


def drafted(data_dir: Path) -> set[str]:
    """The listings with drafts in the state of record."""
    with Store.open(data_dir / "jobsearch.sqlite") as store:
        return set(store.draft_states())


def test_wider_search_brings_back_what_was_filtered_and_data_dirs_are_their_own(
    tmp_path: Path, nats_server: EmbeddedServer
) -> None:
    """Filtered first; the same data dir with the filters removed gets the filtered listings as
    new (tracker and drafts), and narrowing again removes nothing. A second data dir on the same
    server, and the first one deleted and started afresh, each get every listing: nothing the
    platform remembers decides what is new."""
    for folder in ("strict", "open"):
        (tmp_path / folder).mkdir()
    strict = profile_with(tmp_path / "strict", size=SIZE)
    every_filter = 'hard = ["terms", "locations", "remote", "seniority", "salary_floor"]'  # all drop
    strict.write_text(strict.read_text().replace("[search]\n", f"[search]\n{every_filter}\n", 1))
    wide = profile_with(tmp_path / "open", size=SIZE, open_search=True)
    mine = environment(nats_server.url, tmp_path / "mine")

    first = run(mine, strict)
    assert first["filtered"] > 100
    kept = tracker_ids(tmp_path / "mine")
    assert len(kept) == first["new"]

    wider = run(mine, wide)
    assert wider["new"] > 100
    assert wider["filtered"] == 0
    everything = tracker_ids(tmp_path / "mine")
    assert kept < everything
    assert len(everything) == first["new"] + wider["new"]
    assert drafted(tmp_path / "mine") == everything

    narrower = run(mine, strict)
    assert narrower["new"] == 0
    assert tracker_ids(tmp_path / "mine") == everything  # a narrower search removes nothing

    theirs = environment(nats_server.url, tmp_path / "theirs")
    assert jobsearch(theirs, "namespace").stdout != jobsearch(mine, "namespace").stdout
    other = run(theirs, wide)
    assert other["new"] == len(everything)
    assert tracker_ids(tmp_path / "theirs") == everything

    shutil.rmtree(tmp_path / "mine")
    fresh = run(mine, wide)
    assert fresh["new"] == len(everything)
    assert tracker_ids(tmp_path / "mine") == everything
    assert drafted(tmp_path / "mine") == everything
