"""Where the pipeline keeps its state: `JOBSEARCH_*` variables, with defaults under the data dir."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec
import platformdirs


class PipelineSettings(msgspec.Struct, kw_only=True, frozen=True):
    """Paths every stage and command agrees on."""

    data_dir: Path
    db_path: Path  # SQLite, the state of record (WAL); shared by dedupe, export and the review page
    tracker_path: Path  # the xlsx tracker the person edits


def load_pipeline_settings(env: Mapping[str, str] | None = None) -> PipelineSettings:
    """Read `JOBSEARCH_DATA_DIR`, `JOBSEARCH_DB` and `JOBSEARCH_TRACKER` (all optional)."""
    env = os.environ if env is None else env
    data_dir = Path(env.get("JOBSEARCH_DATA_DIR") or platformdirs.user_data_dir("jobsearch"))
    return PipelineSettings(
        data_dir=data_dir,
        db_path=Path(env.get("JOBSEARCH_DB") or data_dir / "jobsearch.sqlite"),
        tracker_path=Path(env.get("JOBSEARCH_TRACKER") or data_dir / "tracker.xlsx"),
    )
