"""The reference pages in docs/ keep up with the code: every setting and every command is documented."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import msgspec

from jetjobs import Settings
from jetjobs._cli import main as jetjobs_cli
from jetjobs._settings import _NATS_ENV, _NOT_SETTINGS, _SECTION_ENV
from jobsearch import cli as jobsearch_cli

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _variables() -> set[str]:
    sections = {"nats", "smtp", "webhook"}
    names = {f"JETJOBS_{f.upper()}" for f in Settings.__struct_fields__ if f not in sections}
    names |= {f"JETJOBS_{name}" for name in _SECTION_ENV}
    return names | set(_NATS_ENV) | set(_NOT_SETTINGS)


def _verbs(parser: argparse.ArgumentParser, prefix: str) -> set[str]:
    verbs: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                verbs.add(f"{prefix} {name}")
                verbs |= _verbs(sub, f"{prefix} {name}")
    return verbs


def test_every_setting_is_in_the_configuration_page() -> None:
    """Each JETJOBS_* / NATS_* variable the settings read has a row of its own in docs/configuration.md."""
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`((?:JETJOBS|NATS)_[A-Z0-9_]+)`", text))
    missing = sorted(_variables() - documented)
    assert not missing, f"docs/configuration.md does not document: {', '.join(missing)}"
    assert msgspec.structs.fields(Settings)  # the reflection above saw the real Struct


def test_every_jetjobs_command_is_in_the_cli_page() -> None:
    """Each `jetjobs` command and sub-command has a line in docs/cli.md."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    verbs = _verbs(jetjobs_cli.build_parser(), "jetjobs")
    assert "jetjobs worker" in verbs
    missing = sorted(v for v in verbs if v not in text)
    assert not missing, f"docs/cli.md does not document: {', '.join(missing)}"


def test_every_jobsearch_command_is_in_the_cli_page() -> None:
    """Each `jobsearch` command has a line in docs/cli.md."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    verbs = _verbs(jobsearch_cli.build_parser(), "jobsearch")
    assert "jobsearch run" in verbs
    missing = sorted(v for v in verbs if v not in text)
    assert not missing, f"docs/cli.md does not document: {', '.join(missing)}"
