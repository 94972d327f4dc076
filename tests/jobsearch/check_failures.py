"""The failed draft checks of a short note, by check name: what the rule tests of the checks assert on."""

from __future__ import annotations

from jobsearch.draft.checks import Facts, run_checks


def failures(text: str, facts: Facts) -> dict[str, str]:
    """Each failed check of `text` read as a connection note, with its detail."""
    return {c.name: c.detail for c in run_checks("connection_note", text, facts, 220) if not c.passed}
