"""How the work is done scores as the person asked: `[search] remote` costs a listing done
another way (a filter that scores, unless `hard` names it)."""

from __future__ import annotations

from datetime import date

import pytest

from jobsearch.fit import score
from jobsearch.listing import MergedListing, Workplace
from jobsearch.profile import Person, Profile, Remote, Search

TODAY = date(2026, 12, 3)


def _profile(remote: Remote) -> Profile:
    return Profile(
        person=Person(name="Lena Hoffmann", location="Berlin, Germany", skills=["Python"]),
        search=Search(terms=["Data Engineer"], remote=remote, locations=["Berlin"]),
    )


def _listing(how: Workplace) -> MergedListing:
    return MergedListing(
        id="x", title="Data Engineer", company="Acme", url="https://acme.example/1",
        locations=["Remote"] if how == "remote" else ["Berlin, Germany"], remote=how == "remote",
        workplace=how, posted_at=TODAY, description="Python and SQL.",
    )  # fmt: skip


def _place(remote: Remote, how: Workplace) -> tuple[float, str]:
    fit = score(_profile(remote), _listing(how), TODAY)
    (reason,) = [r for r in fit.reasons if "Berlin" in r.text or "remote" in r.text]
    return reason.points, reason.text


@pytest.mark.parametrize(
    ("wanted", "how", "points", "words"),
    [
        ("hybrid", "hybrid", 8, "hybrid in Berlin"),
        ("hybrid", "onsite", -10, "onsite in Berlin; you want hybrid"),
        ("hybrid", "remote", -10, "remote; you want hybrid"),
        ("remote_or_hybrid", "onsite", -10, "onsite in Berlin; you want remote or hybrid"),
        ("remote_or_hybrid", "remote", 8, "remote"),
        ("onsite", "remote", -10, "remote; you want to be on site"),
        ("onsite", "onsite", 8, "onsite in Berlin"),
        ("any", "onsite", 8, "onsite in Berlin"),
    ],
)
def test_the_way_of_working_scores_as_asked(wanted: Remote, how: Workplace, points: int, words: str) -> None:
    assert _place(wanted, how) == (points, words)
