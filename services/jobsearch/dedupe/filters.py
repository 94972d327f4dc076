"""The profile's search filters, applied to a merged listing: keep it, or say why not.

`exclude` always drops. The other filters (`terms`, `locations`, `remote`, `seniority`,
`salary_floor`) drop only when `[search] hard` names them; otherwise they only score the
listing's fit (`jobsearch.fit`), because a keyword filter drops good fits. Each filter is
optional; a listing that does not state something (no salary, no level, no place) is kept by the
filter that would need it: the person decides on what the listing does not say.

A title's level word drops only where it is a level. "Senior Living Coordinator", "Lead
Generation Specialist", "Staff Nurse", "Head Chef", "Principal Trainer" state no level: the word
begins another name (`_NAME_AFTER`), or it is a level only in some places (`staff` and
`principal` before the roles of a career ladder, `head` as "Head of ..." or after its field,
`entry` as "entry level"). A title the rules cannot read is kept and left to the score.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable
from typing import get_args

from jobsearch.fit.place import is_hybrid, is_remote
from jobsearch.listing import MergedListing
from jobsearch.profile import Search, Seniority
from jobsearch.reading import normalise, vocabulary
from jobsearch.salary import annualised

_SENIORITY = frozenset(get_args(Seniority))
_NUMERALS = {"1": "junior", "i": "junior", "2": "mid", "3": "senior", "4": "staff"}
# A title's parts: its role, then its team, field or place ("Principal Engineer, Payments").
_SEGMENTS = re.compile(r"[,()|\[\]]|\s[-\u2013\u2014]\s")
# Words after a level word that make it part of another name: a sector, a kind of work, a place.
_NAME_AFTER = {
    "senior": frozenset(
        {"living", "care", "services", "citizen", "citizens", "centre", "center", "housing", "community"}
    ),
    "junior": frozenset({"school", "high", "college", "league"}),
    "lead": frozenset({"generation", "gen", "qualification", "nurturing", "abatement"}),
    "mid": frozenset({"market", "atlantic", "size", "sized"}),
    "graduate": frozenset({"admissions", "school", "studies", "recruitment", "recruiting"}),
}
# Levels of the career ladders of engineering, science, design, product, analysis and consulting
# only: "Staff Engineer", "Principal Consultant"; a "Staff Accountant", "Staff Nurse" or a
# vendor's "Principal Trainer" holds a role of that name, at no stated level.
_LADDER_LEVELS = frozenset({"staff", "principal", "distinguished"})
_LADDER_ROLES = frozenset(
    {
        *("engineer", "developer", "programmer", "scientist", "architect", "designer", "researcher"),
        *("analyst", "consultant", "manager", "strategist", "technologist", "economist", "statistician"),
    }
)


def _fold(value: str) -> str:
    return unicodedata.normalize("NFKC", value).casefold()


def _has(term: str, haystack: str) -> bool:
    """`term` as a whole word or phrase of `haystack` (C++, .NET and Node.js included)."""
    pattern = r"(?<!\w)" + re.escape(_fold(term).strip()) + r"(?!\w)"
    return re.search(pattern, haystack) is not None


def _is_level(word: str, after: list[str], segment: str) -> bool:
    """Whether a title's level word `word`, followed by the words `after` in its part of the
    title (`segment`, as written), states a level rather than beginning another name."""
    if after and after[0] in _NAME_AFTER.get(word, ()):
        return False
    if word in _LADDER_LEVELS:
        return any(w in _LADDER_ROLES for w in after)
    if word == "head":  # "Head of Data", "Engineering Head"; not "Head Chef", "Head Office"
        raw = normalise.words(segment)
        return not after or any(a == "head" and b == "of" for a, b in itertools.pairwise(raw))
    if word == "entry":  # "Entry-Level Analyst"; not "Data Entry Clerk"
        return after[:1] == ["level"]
    return True


def levels(listing: MergedListing) -> set[str]:
    """The seniority levels a listing's title states (empty: it states none). A level word that is
    part of another name ("Lead Generation", "Staff Nurse", the company's own name) states none."""
    found: set[str] = set()
    for segment in _SEGMENTS.split(listing.title):
        words = normalise.title_words(segment, listing.company)
        for at, word in enumerate(words):
            level = vocabulary.LEVEL_WORDS.get(word)
            if level is not None and level in _SENIORITY and _is_level(word, words[at + 1 :], segment):
                found.add(level)
    title_words = normalise.title_words(listing.title, listing.company)
    if not found and title_words and title_words[-1] in _NUMERALS:
        found.add(_NUMERALS[title_words[-1]])
    return found


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
