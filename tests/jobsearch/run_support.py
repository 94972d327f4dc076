"""What the tests of whole runs share: the environment a person's shell gives every process, and
finding one service among a parent's child processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jetjobs import Settings
from jetjobs.testing import worker_env


def pipeline_env(settings: Settings, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's server and settings, `data_dir` and the offline provider, through the
    environment (as a person's shell would give them) and nothing else of the pipeline's."""
    env = worker_env(settings, settings.nats.url or "")
    for name in list(os.environ):
        if name.startswith(("JOBSEARCH_", "JETJOBS_", "LLM_", "COVER_LETTER_", "CONNECTION_NOTE_")):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(data_dir))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    return data_dir


def service_pid(parent: int, service: str) -> int | None:
    """The pid of the `... serve SERVICE` child of `parent`, if it has one."""
    for task in Path(f"/proc/{parent}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            except FileNotFoundError:
                continue
            if b"serve" in cmdline and service.encode() in cmdline:
                return int(child)
    return None
