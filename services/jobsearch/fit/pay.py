"""Pay and freshness: the stated pay against the person's floor, and how long ago the listing was
posted. Unknown pay is neither rewarded nor punished; pay in another currency is not compared
(no exchange rate is guessed) and says so.
"""

from __future__ import annotations

from datetime import date

from jobsearch.listing import MergedListing
from jobsearch.profile import Search
from jobsearch.salary import annualised, format_salary


def pay_verdict(listing: MergedListing, search: Search) -> tuple[str, str]:
    """("meets" | "below" | "", the pay in words) for a listing's stated pay against the floor."""
    salary = listing.salary
    if search.salary_floor is None or salary is None:
        return "", ""
    if (
        salary.currency
        and search.salary_currency
        and salary.currency.upper() != search.salary_currency.upper()
    ):
        return "", f"{format_salary(salary)}, in {salary.currency.upper()}: not compared with your floor"
    low, high = annualised(salary)
    top = high if high is not None else low
    if top is None:
        return "", ""
    shown = format_salary(salary)
    if top < search.salary_floor:
        return "below", f"{shown}: at most {top:,.0f} a year, under your floor of {search.salary_floor:,.0f}"
    return "meets", f"{shown} meets your floor"


def age_days(listing: MergedListing, today: date) -> int | None:
    """Days since the listing was posted, or None when no board said."""
    if listing.posted_at is None:
        return None
    return max(0, (today - listing.posted_at).days)
