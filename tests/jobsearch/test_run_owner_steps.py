"""The run's own steps (the shortlist, the closings) are not followed as stage work: one that
fails must still be one of the run's failures, in its summary and its exit status."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from jetjobs import Publisher, StatusRecord
from jobsearch.jobs import CLOSE_LISTINGS, DRAFT_SHORTLIST
from jobsearch.run.owner import RunOwner
from jobsearch.run.progress import Progress
from jobsearch.run.summary import WATCHED
from jobsearch.run.summary_lines import format_summary
from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store


def _record(job_type: str, state: str, **fields: object) -> StatusRecord:
    return StatusRecord(
        id=f"{job_type.rsplit('.', 1)[-1]}-01JR1",
        type=job_type,
        state=state,
        updated_at=datetime.now(UTC),
        **fields,  # type: ignore[arg-type]
    )


def test_a_dead_shortlist_or_closing_step_is_a_failure_of_the_run(tmp_path: Path) -> None:
    pipeline = load_pipeline_settings({"JOBSEARCH_DATA_DIR": str(tmp_path)})
    with Store.open(pipeline.db_path) as store:
        store.start_run("r1", profile="me.toml")
    owner = RunOwner(cast(Publisher, None), Progress(WATCHED), pipeline, "r1")
    dead = _record(
        DRAFT_SHORTLIST, "dead", error="OperationalError: database is locked", dead_reason="exhausted"
    )
    assert owner._counts(DRAFT_SHORTLIST, dead.id, dead) == {}
    assert owner._counts(CLOSE_LISTINGS, "close_listings-01JR1", None) == {}
    fine = _record(CLOSE_LISTINGS, "succeeded", result={"closed": 2, "stale": 1, "reopened": 0})
    assert owner._counts(CLOSE_LISTINGS, fine.id, fine) == {"closed": 2, "stale": 1, "reopened": 0}

    summary = owner.summarise()

    assert summary.failed_jobs == 2
    assert summary.exit_code != 0
    lines = "\n".join(format_summary(summary))
    assert "jobsearch.draft_shortlist draft_shortlist-01JR1: exhausted: OperationalError" in lines
    assert "close_listings-01JR1: did not finish" in lines
