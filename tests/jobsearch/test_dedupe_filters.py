"""The profile's search filters on merged listings: what each keeps, what it drops, and why."""

from __future__ import annotations

import msgspec
import pytest

from jobsearch.dedupe.filters import drop_reason
from jobsearch.listing import MergedListing, Salary
from jobsearch.profile import Search


def listing(title: str = "Backend Engineer", **fields: object) -> MergedListing:
    """A merged listing of a Berlin backend job, unless `fields` say otherwise."""
    base: dict[str, object] = {
        "id": "m1",
        "company": "Northwind Robotics",
        "url": "https://n.example/1",
        "locations": ["Berlin, Germany"],
        "description": "Python services on Kubernetes, some C++ in the robots.",
    }
    base.update(fields)
    return MergedListing(title=title, **base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("item", "search", "reason"),
    [
        (listing(), Search(terms=["C++"]), None),
        (listing(), Search(terms=["rust", "go"]), "terms"),
        (listing(), Search(terms=["machine learning"]), "terms"),
        (listing(), Search(exclude=["robotics"]), "exclude"),
        (listing(), Search(locations=["berlin"]), None),
        (listing(locations=["München"]), Search(locations=["Munich"]), None),
        (listing(), Search(locations=["Hamburg"]), "locations"),
        (listing(locations=["Remote (EU)"]), Search(locations=["Hamburg"]), None),
        (listing(locations=["Remote (EU)"]), Search(locations=["Hamburg"], remote="onsite"), "remote"),
        (listing(locations=["Hamburg", "Remote (EU)"], remote=True), Search(remote="onsite"), None),
        (listing(remote=True), Search(remote="hybrid"), None),
        (listing(locations=["Remote"], remote=True), Search(remote="hybrid"), "remote"),
        (listing(locations=[]), Search(locations=["Hamburg"]), None),
        (listing(), Search(remote="remote"), "remote"),
        (listing(remote=True), Search(remote="remote"), None),
        (listing("Backend Engineer (Hybrid)"), Search(remote="remote_or_hybrid"), None),
        (listing(), Search(remote="remote_or_hybrid"), "remote"),
        # The board's own field: a hybrid Berlin posting on Lever says so only there.
        (listing(workplace="hybrid"), Search(remote="remote_or_hybrid"), None),
        (listing(workplace="hybrid"), Search(remote="hybrid"), None),
        (listing(workplace="onsite"), Search(remote="remote_or_hybrid"), "remote"),
        (listing(locations=["Remote"], workplace="remote"), Search(remote="remote"), None),
        (listing(workplace="onsite"), Search(remote="remote"), "remote"),
        (listing("Senior Backend Engineer"), Search(seniority=["mid", "senior"]), None),
        (listing("Staff Backend Engineer"), Search(seniority=["mid", "senior"]), "seniority"),
        (listing(), Search(seniority=["staff"]), None),
        (
            listing(salary=Salary(max=5000, currency="EUR", interval="month")),
            Search(salary_floor=55000),
            None,
        ),
        (
            listing(salary=Salary(max=5000, currency="EUR", interval="month")),
            Search(salary_floor=70000),
            "salary",
        ),
        (listing(salary=Salary(min=30, interval="hour")), Search(salary_floor=70000), "salary"),
        (
            listing(salary=Salary(max=40000, currency="GBP")),
            Search(salary_floor=60000, salary_currency="EUR"),
            None,
        ),
        (listing(salary=None), Search(salary_floor=60000), None),
    ],
)
def test_filter(item: MergedListing, search: Search, reason: str | None) -> None:
    """A listing is kept (None) or dropped with a reason that starts with the filter's name; what a
    listing does not state (no salary, no level, no place) is kept. Every filter is hard here."""
    hard = ["terms", "locations", "remote", "seniority", "salary_floor"]
    got = drop_reason(item, msgspec.structs.replace(search, hard=hard))
    if reason is None:
        assert got is None
    else:
        assert got is not None
        assert got.startswith(reason), got
