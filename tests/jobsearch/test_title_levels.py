"""One reading of a title's level for the filters and the fit score: a level word that begins
another name states no level for either, and the fit score keeps the levels above a manager."""

from __future__ import annotations

import pytest

from jobsearch.dedupe.filters import levels
from jobsearch.fit.role import listing_level
from jobsearch.listing import MergedListing


def _listing(title: str, company: str = "Northwind") -> MergedListing:
    return MergedListing(id="x", title=title, company=company, url="https://example.test/x")


@pytest.mark.parametrize(
    ("title", "filters", "fit"),
    [
        ("Principal Trainer", set(), None),
        ("Lead Generation Specialist", set(), None),
        ("Senior Living Coordinator", set(), None),
        ("Staff Nurse", set(), None),
        ("Head Chef", set(), None),
        ("Principal Investigator, Oncology", set(), None),
        ("Senior Backend Engineer", {"senior"}, "senior"),
        ("Principal Engineer, Payments", {"principal"}, "principal"),
        ("Software Engineer II", {"mid"}, "mid"),
        ("Head of Data", {"manager"}, "head"),
        ("Director of Engineering", {"manager"}, "director"),
        ("Vice President, Sales", set(), "vp"),
    ],
)
def test_filters_and_fit_read_a_title_s_level_alike(title: str, filters: set[str], fit: str | None) -> None:
    assert levels(_listing(title)) == filters
    assert listing_level(title) == fit


def test_the_company_s_own_name_states_no_level() -> None:
    assert levels(_listing("Backend Engineer", company="Lead Bank")) == set()
    assert listing_level("Lead Bank Backend Engineer", "Lead Bank") is None
