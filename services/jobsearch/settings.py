"""Where the pipeline keeps its state: `JOBSEARCH_*` variables, with defaults under the data dir.

And the fingerprint of a stage service's settings, which its heartbeat carries
(`service_fingerprint`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

import msgspec
import platformdirs

from jetjobs import __version__


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


# What a stage service's work depends on, by variable name: the provider layer's routing
# (`LLM_*`, `<STEP>_PROVIDER`, `_MODEL`, `_FALLBACK`, `<PROVIDER>_BASE_URL`) and the pipeline's
# own (`JOBSEARCH_*`). API keys are not among them (a rotated key is not other settings).
_FINGERPRINT_PREFIXES = ("LLM_", "JOBSEARCH_")
_FINGERPRINT_SUFFIXES = ("_PROVIDER", "_MODEL", "_FALLBACK", "_BASE_URL")
# `JOBSEARCH_*` variables no stage service reads: per-process plumbing (a run's lifeline
# descriptor), and the review page's token (a secret) and default profile.
_FINGERPRINT_IGNORED = frozenset({"JOBSEARCH_LIFELINE_FD", "JOBSEARCH_UI_TOKEN", "JOBSEARCH_PROFILE"})


def service_fingerprint(env: Mapping[str, str] | None = None) -> str:
    """`<version>:<hash>`: the jobsearch version and a hash of the settings a stage service uses.

    Every stage service puts it in its heartbeat (`jobsearch.app.build_app`), and a run compares
    it with its own (`jobsearch.run.fingerprint`). The hash (SHA-256, 16 hex digits) covers the
    non-empty values of the variables named above, stripped, so an empty variable counts as
    unset, as the settings readers take it; no value is ever in it in clear.
    """
    env = os.environ if env is None else env
    chosen = sorted(
        (name, value.strip())
        for name, value in env.items()
        if (name.startswith(_FINGERPRINT_PREFIXES) or name.endswith(_FINGERPRINT_SUFFIXES))
        and name not in _FINGERPRINT_IGNORED
        and value.strip()
    )
    digest = hashlib.sha256(msgspec.json.encode(chosen)).hexdigest()[:16]
    return f"{__version__}:{digest}"
