"""The fit score on the graded sets: the floors the issue sets, and the reasons it gives."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import msgspec
import pytest

from jobsearch.fit import score
from jobsearch.listing import MergedListing
from jobsearch.profile import Person, Profile, Search
from tests.fit_set import FIXTURES, evaluate, load_persona, ndcg_at, pairwise

SETS = sorted(FIXTURES.glob("*.toml"))


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_the_score_ranks_every_persona_well_and_above_the_keyword_baseline(path: Path) -> None:
    """NDCG@10 at least 0.9 for every persona, and above a naive keyword count."""
    report = evaluate(load_persona(path))
    assert report.postings >= 100
    assert report.fit.ndcg10 >= 0.9, report.render()
    assert report.fit.ndcg10 > report.baseline.ndcg10, report.render()
    assert report.fit.pairwise > report.baseline.pairwise, report.render()


def test_the_measures_are_the_textbook_ones() -> None:
    """NDCG of an ideal order is 1, of a reversed one less; pairwise counts ties as half."""
    assert ndcg_at([3, 2, 1, 0]) == 1.0
    assert ndcg_at([0, 1, 2, 3]) < 0.6
    assert pairwise([(10, 3), (5, 1)]) == 1.0
    assert pairwise([(5, 3), (10, 1)]) == 0.0
    assert pairwise([(5, 3), (5, 1)]) == 0.5


def _listing(**fields: object) -> MergedListing:
    base: dict[str, object] = {
        "id": "l1",
        "title": "Backend Engineer",
        "company": "Acme",
        "url": "https://boards.greenhouse.io/acme/jobs/1",
        "locations": ["Berlin, Germany"],
        "description": "Requirements:\n- Python and PostgreSQL\n- Kubernetes\n",
        "posted_at": date(2026, 11, 30),
    }
    base.update(fields)
    return msgspec.convert(base, MergedListing)


PROFILE = Profile(
    person=Person(name="Ada", location="Berlin, Germany", skills=["Python", "PostgreSQL", "Go"]),
    search=Search(terms=["Backend Engineer"], locations=["Berlin"], seniority=["senior"], salary_floor=70000),
)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({}, "+25 the title is your role (Backend Engineer)"),
        ({}, "+10 Python, PostgreSQL"),
        ({}, "-3 requires kubernetes, which you do not list"),
        ({"title": "Principal Backend Engineer"}, "-22 Principal level; you are senior"),
        (
            {"locations": ["London, UK"], "workplace": "onsite"},
            "-35 onsite in London; you want remote or Berlin",
        ),
        (
            {"locations": ["Remote - US"], "workplace": "remote"},
            "-35 remote, but only in US; you are in Berlin, Germany",
        ),
        (
            {"salary": {"min": 50000, "max": 60000, "currency": "EUR", "interval": "year"}},
            "-25 €50k\u201360k / year: at most 60,000 a year, under your floor of 70,000",
        ),
        ({"posted_at": date(2026, 8, 1)}, "-30 posted 122 days ago"),
        (
            {"title": "Lead Generation Specialist"},
            "-20 neither title nor text names one of your roles or skills",
        ),
    ],
)
def test_each_rule_gives_its_points_and_says_why(fields: dict[str, object], reason: str) -> None:
    """Each rule's reason reads as a person checks it, with its signed points."""
    fit = score(PROFILE, _listing(**fields), date(2026, 12, 1))
    shown = [f"{r.points:+d} {r.text}" for r in fit.reasons]
    assert reason in shown, shown
    assert 0 <= fit.score <= 100


def test_a_lead_generation_title_states_no_level() -> None:
    """'Lead' in 'Lead Generation Specialist' is no level: no level reason at all."""
    fit = score(PROFILE, _listing(title="Lead Generation Specialist"), date(2026, 12, 1))
    assert not any("level" in r.text for r in fit.reasons)


def test_weights_are_the_profile_s_to_change() -> None:
    """`[fit]` overrides a weight: an onsite job elsewhere costs what the person says."""
    strict = msgspec.structs.replace(PROFILE, fit=msgspec.structs.replace(PROFILE.fit, place_mismatch=-60))
    away = _listing(locations=["London, UK"], workplace="onsite")
    assert score(strict, away, date(2026, 12, 1)).score < score(PROFILE, away, date(2026, 12, 1)).score
