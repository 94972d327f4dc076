"""The profile's search filters, applied to a merged listing: keep it, or say why not.

Each filter is optional; a listing that does not state something (no salary, no level, no place)
is kept by the filter that would need it: the person decides on what the listing does not say.
"""

from __future__ import annotations

import re
import unicodedata

from jobsearch.fit.place import is_hybrid, is_remote
from jobsearch.listing import MergedListing
from jobsearch.profile import Search
from jobsearch.reading import normalise
from jobsearch.salary import annualised

_TITLE_LEVELS = {
    "intern": "intern",
    "junior": "junior",
    "mid": "mid",
    "senior": "senior",
    "staff": "staff",
    "principal": "principal",
    "lead": "lead",
    "manager": "manager",
}
_NUMERALS = {"1": "junior", "i": "junior", "2": "mid", "3": "senior", "4": "staff"}


def _fold(value: str) -> str:
    return unicodedata.normalize("NFKC", value).casefold()


def _has(term: str, haystack: str) -> bool:
    """`term` as a whole word or phrase of `haystack` (C++, .NET and Node.js included)."""
    pattern = r"(?<!\w)" + re.escape(_fold(term).strip()) + r"(?!\w)"
    return re.search(pattern, haystack) is not None


def levels(listing: MergedListing) -> set[str]:
    """The seniority levels a listing's title states (empty: it states none)."""
    title_words = normalise.title_words(listing.title)
    found = {
        _TITLE_LEVELS[level]
        for level in normalise.title_level(title_words).split("+")
        if level in _TITLE_LEVELS
    }
    if not found and title_words and title_words[-1] in _NUMERALS:
        found.add(_NUMERALS[title_words[-1]])
    return found


def drop_reason(listing: MergedListing, search: Search) -> str | None:
    """Why the profile's filters drop `listing`, or None to keep it."""
    title = _fold(listing.title)
    company = _fold(listing.company)
    for term in search.exclude:
        if _has(term, title):
            return f"exclude: {term!r} in the title"
        if _has(term, company):
            return f"exclude: {term!r} in the company"
    if search.terms:
        body = f"{title}\n{_fold(listing.description)}"
        if not any(_has(term, body) for term in search.terms):
            return "terms: none of " + ", ".join(repr(t) for t in search.terms) + " in the title or text"
    reason = _place_reason(listing, search)
    if reason:
        return reason
    stated = levels(listing)
    if search.seniority and stated and not stated & set(search.seniority):
        return f"seniority: {', '.join(sorted(stated))} is not one of {', '.join(search.seniority)}"
    return _salary_reason(listing, search)


def _place_reason(listing: MergedListing, search: Search) -> str | None:  # noqa: PLR0911 (one return per rule reads best)
    remote = is_remote(listing)
    hybrid = is_hybrid(listing)
    office = any(normalise.city(p) for p in listing.locations)  # "Remote (EU)" names no office
    mode = search.remote
    if mode == "remote" and not remote:
        return "remote: the listing does not say remote"
    if mode == "onsite" and remote and not office:
        return "remote: the listing is remote only, the profile wants on site"
    if mode == "remote_or_hybrid" and not (remote or hybrid):
        return "remote: the listing says neither remote nor hybrid"
    if mode == "hybrid" and not hybrid and not (remote and office):
        return "remote: the listing does not say hybrid"
    if not search.locations or not listing.locations:
        return None
    if remote and mode in ("any", "remote", "remote_or_hybrid"):
        return None
    places = [normalise.place(p) for p in listing.locations]
    wanted = [normalise.place(p) for p in search.locations]
    if any(_has(w, p) for w in wanted for p in places):
        return None
    return f"locations: {'; '.join(listing.locations)} is not in {', '.join(search.locations)}"


def _salary_reason(listing: MergedListing, search: Search) -> str | None:
    salary = listing.salary
    if search.salary_floor is None or salary is None or pay_note(listing, search):
        return None  # unknown pay is neither rewarded nor punished; another currency is marked
    low, high = annualised(salary)
    top = high if high is not None else low
    if top is None:
        return None
    if top < search.salary_floor:
        currency = f" {salary.currency}" if salary.currency else ""
        return f"salary: at most {top:,.0f}{currency} a year, below the floor {search.salary_floor:,.0f}"
    return None


def pay_note(listing: MergedListing, search: Search) -> str | None:
    """Why the listing's pay was not compared with the profile's floor, when it was not: it is in
    another currency (no exchange rate is guessed; the listing is kept, and says so)."""
    salary = listing.salary
    if search.salary_floor is None or salary is None or not salary.currency or not search.salary_currency:
        return None
    if salary.currency.upper() == search.salary_currency.upper():
        return None
    return f"in {salary.currency.upper()}, not compared with your {search.salary_currency.upper()} floor"
