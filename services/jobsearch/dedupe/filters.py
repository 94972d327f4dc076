"""The profile's search filters, applied to a merged listing: keep it, or say why not.

`exclude` always drops. The other filters (`terms`, `locations`, `remote`, `seniority`,
`salary_floor`) drop only when `[search] hard` names them; otherwise they only score the
listing's fit (`jobsearch.fit`), because a keyword filter drops good fits. Each filter is
optional; a listing that does not state something (no salary, no level, no place) is kept by the
filter that would need it: the person decides on what the listing does not say.

A title's level word drops only where it is a level ("Lead Generation Specialist", "Staff Nurse",
"Principal Trainer" state none: `jobsearch.reading.levels`, which the fit score reads too). A
title the rules cannot read is kept and left to the score.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import get_args

from jobsearch.fit.place import is_hybrid, is_remote
from jobsearch.listing import MergedListing
from jobsearch.profile import Search, Seniority
from jobsearch.reading import normalise, vocabulary
from jobsearch.reading.levels import NUMERAL_LEVELS, level_words
from jobsearch.salary import annualised

_SENIORITY = frozenset(get_args(Seniority))


def _fold(value: str) -> str:
    return unicodedata.normalize("NFKC", value).casefold()


def _has(term: str, haystack: str) -> bool:
    """`term` as a whole word or phrase of `haystack` (C++, .NET and Node.js included)."""
    pattern = r"(?<!\w)" + re.escape(_fold(term).strip()) + r"(?!\w)"
    return re.search(pattern, haystack) is not None


def levels(listing: MergedListing) -> set[str]:
    """The seniority levels a listing's title states (empty: it states none). A level word that is
    part of another name ("Lead Generation", "Staff Nurse", the company's own name) states none."""
    found = (
        vocabulary.LEVEL_WORDS.get(word) or NUMERAL_LEVELS.get(word, "")
        for word in level_words(listing.title, listing.company)
    )
    return {level for level in found if level in _SENIORITY}


def drop_reason(listing: MergedListing, search: Search) -> str | None:
    """Why the profile drops `listing`, or None to keep it: `exclude`, then each filter that
    `search.hard` names (the others only score its fit)."""
    title = _fold(listing.title)
    company = _fold(listing.company)
    for term in search.exclude:
        if _has(term, title):
            return f"exclude: {term!r} in the title"
        if _has(term, company):
            return f"exclude: {term!r} in the company"
    for name, reason_of in _HARD.items():
        reason = reason_of(listing, search) if name in search.hard else None
        if reason:
            return reason
    return None


def _terms_reason(listing: MergedListing, search: Search) -> str | None:
    if not search.terms:
        return None
    body = f"{_fold(listing.title)}\n{_fold(listing.description)}"
    if any(_has(term, body) for term in search.terms):
        return None
    return "terms: none of " + ", ".join(repr(t) for t in search.terms) + " in the title or text"


def _seniority_reason(listing: MergedListing, search: Search) -> str | None:
    stated = levels(listing)
    if search.seniority and stated and not stated & set(search.seniority):
        return f"seniority: {', '.join(sorted(stated))} is not one of {', '.join(search.seniority)}"
    return None


def _remote_reason(listing: MergedListing, search: Search) -> str | None:
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
    return None


def _locations_reason(listing: MergedListing, search: Search) -> str | None:
    if not search.locations or not listing.locations:
        return None
    # A remote listing is in every place, unless the person wants to be on site or hybrid.
    if is_remote(listing) and search.remote in ("any", "remote", "remote_or_hybrid"):
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


# The filters `[search] hard` may name, in the order they are tried (the first reason is kept).
_HARD: dict[str, Callable[[MergedListing, Search], str | None]] = {
    "terms": _terms_reason,
    "remote": _remote_reason,
    "locations": _locations_reason,
    "seniority": _seniority_reason,
    "salary_floor": _salary_reason,
}


def pay_note(listing: MergedListing, search: Search) -> str | None:
    """Why the listing's pay was not compared with the profile's floor, when it was not: it is in
    another currency (no exchange rate is guessed; the listing is kept, and says so)."""
    salary = listing.salary
    if search.salary_floor is None or salary is None or not salary.currency or not search.salary_currency:
        return None
    if salary.currency.upper() == search.salary_currency.upper():
        return None
    return f"in {salary.currency.upper()}, not compared with your {search.salary_currency.upper()} floor"
