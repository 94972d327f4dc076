"""Role and level: whether a listing is the person's kind of job, and at the person's level.

- Role: the person's roles are their search `terms` and the titles they held. A listing's title
  holding every word of one (abbreviations spelled out, developer = engineer: `reading.normalise`)
  is a match; half of them, a partial match; a role named only in the text, a weak one.
- Level: the title's level word counts only where it is a level ("Senior Engineer", "Engineer,
  Senior", "Head of Data"), not part of another name ("Lead Generation Specialist", "Senior
  Living Coordinator", "Principal Trainer" is a trainer at principal level). The person's levels
  are their `seniority` list, else those their years give (under 2 junior, 2-5 mid, 5-9 senior,
  9 and more senior or staff or lead). Years asked ("5+ years of experience") beyond the
  person's years count too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from jobsearch.profile import Profile
from jobsearch.reading import normalise, vocabulary

LEVEL_ORDER = {
    "intern": 0,
    "junior": 1,
    "mid": 2,
    "senior": 3,
    "staff": 4,
    "lead": 4,
    "principal": 5,
    "manager": 5,
}
# Level words that begin another name rather than a level.
_NOT_LEVELS = re.compile(
    r"\b(?:lead generation|lead gen|senior living|senior care|senior services|senior citizens?|"
    r"staff(?:ing)? (?:agency|nurse|pharmacist)|junior school|head office|principal investigator)\b",
    re.IGNORECASE,
)
_YEARS_ASKED = re.compile(
    r"\b(\d{1,2})\s*\+?\s*(?:(?:-|\u2013|to)\s*\d{1,2}\s*)?(?:years?|yrs?)\b", re.IGNORECASE
)
_TITLE_STOP = frozenset({"", "and", "of", "the", "for", "in", "with", "a", "at"})


@dataclass(frozen=True)
class RoleMatch:
    """How a listing's title and text meet the person's roles."""

    kind: str  # "title", "partial", "text" or "none"
    role: str  # the person's role it met best ("" for none)


def _core(title: str) -> list[str]:
    words = normalise.title_words(title)
    core = normalise.title_core(words).split()
    return [w for w in core if w not in _TITLE_STOP]


def person_roles(profile: Profile) -> list[str]:
    """The person's roles: their search terms, then their titles, most recent first."""
    titles = [
        r.title for r in sorted(profile.person.experience, key=lambda r: r.start or date.min, reverse=True)
    ]
    return list(dict.fromkeys([*profile.search.terms, *titles]))


def role_match(title: str, description: str, roles: list[str]) -> RoleMatch:
    """The best meeting of a listing with the person's roles."""
    have = set(_core(title))
    text = normalise.text(description)
    best = RoleMatch("none", "")
    best_share = 0.0
    for role in roles:
        wanted = _core(role)
        if not wanted:
            continue
        share = len(set(wanted) & have) / len(set(wanted))
        if share > best_share:
            best_share, best = (
                share,
                RoleMatch("title" if share == 1 else "partial" if share >= 0.5 else "none", role),
            )
    if best.kind in ("title", "partial"):
        return best
    for role in roles:
        if normalise.text(role) and f" {normalise.text(role)} " in f" {text} ":
            return RoleMatch("text", role)
    return RoleMatch("none", "")


def listing_level(title: str) -> str | None:
    """The level a title states, where its level word is a level; None when it states none."""
    cleaned = _NOT_LEVELS.sub(" ", title)
    level = normalise.title_level(normalise.title_words(cleaned))
    found = [vocabulary.LEVEL_WORDS.get(part, part) for part in level.split("+") if part]
    numerals = {"1": "junior", "i": "junior", "2": "mid", "3": "senior", "4": "staff"}
    levels = [numerals.get(f, f) for f in found]
    levels = [lv for lv in levels if lv in LEVEL_ORDER]
    if not levels:
        return None
    return max(levels, key=lambda lv: LEVEL_ORDER[lv])


def person_years(profile: Profile, today: date) -> float:
    """The person's years of work, from their roles' dates (overlaps counted once)."""
    spans = sorted((r.start, r.end or today) for r in profile.person.experience if r.start is not None)
    total, reach = 0.0, date.min
    for began, end in spans:
        start = max(began, reach)
        if end > start:
            total += (end - start).days / 365.25
            reach = end
    return total


def person_levels(profile: Profile, years: float) -> set[str]:
    """The levels the person wants, or those their years give."""
    if profile.search.seniority:
        return set(profile.search.seniority)
    if years < 2:
        return {"junior", "intern"} if years < 0.5 else {"junior"}
    if years < 5:
        return {"mid"}
    if years < 9:
        return {"senior"}
    return {"senior", "staff", "lead"}


def level_distance(level: str, wanted: set[str]) -> int:
    """Steps from a listing's level to the nearest level the person wants."""
    return min(abs(LEVEL_ORDER[level] - LEVEL_ORDER[w]) for w in wanted if w in LEVEL_ORDER)


def years_asked(required: str) -> int | None:
    """The fewest years a posting's requirements ask for ("5+ years", "3-5 years"), or None."""
    asked = [int(m.group(1)) for m in _YEARS_ASKED.finditer(required) if 0 < int(m.group(1)) <= 25]
    return min(asked) if asked else None
