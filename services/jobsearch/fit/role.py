"""Role and level: whether a listing is the person's kind of job, and at the person's level.

- Role: the person's roles are the titles they held (the part before a comma, bracket or dash:
  "Clinical Nurse Manager 1 (Charge Nurse), Cardiology Ward" is a Clinical Nurse Manager 1) and
  the search `terms` that name a role (end in a role noun: "FP&A Manager", "Nurse Educator"); the
  other terms ("Cardiac", "Anaplan") are topics, scored where a title names them. A listing's
  title holding every word of a role (abbreviations spelled out, developer = engineer:
  `reading.normalise`) is a match; half of them, a partial match; a role named only in the text,
  a weak one.
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

from jobsearch.fit.skills import stem
from jobsearch.profile import Profile
from jobsearch.reading import normalise, vocabulary
from jobsearch.reading.levels import HIGH_LEVELS, NUMERAL_LEVELS, level_words

LEVEL_ORDER = {
    **{"intern": 0, "junior": 1, "mid": 2, "senior": 3, "staff": 4, "lead": 4, "manager": 4},
    **{"principal": 5, "head": 5, "director": 6, "vp": 7, "chief": 8},
}
# Nouns that head a job title: a search term ending in one names a role, not a topic.
ROLE_NOUNS = frozenset(
    {
        *("engineer", "developer", "programmer", "scientist", "designer", "analyst", "manager", "director"),
        *("architect", "consultant", "lead", "head", "officer", "researcher", "specialist", "administrator"),
        *("coordinator", "intern", "associate", "nurse", "technician", "strategist", "owner", "partner"),
        *("accountant", "controller", "planner", "educator", "facilitator", "practitioner", "therapist"),
        *("teacher", "lecturer", "writer", "editor", "advisor", "adviser", "supervisor", "representative"),
        *("assistant", "executive", "midwife", "pharmacist", "physician", "clinician", "agent", "operator"),
        *("buyer", "recruiter", "trainer", "instructor", "tester", "sre", "devops", "cfo", "cto", "vp"),
    }
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


# Level words that are also what a job is: "Finance Manager" is a manager's job, not a finance one.
_HEAD_LEVELS = frozenset({"manager", "lead", "head", "director"})


def _core(title: str) -> set[str]:
    """A title's words that say which job it is, as stems: its level words left out, unless one
    heads it ("FP&A Manager", "Manager, FP&A", "Design Lead"), one word per role (developer =
    engineer), endings off (financial = finance)."""
    words = normalise.title_words(title)
    core = [w for w in normalise.title_core(words).split() if w not in _TITLE_STOP]
    heads = [w for w in words if w in _HEAD_LEVELS]
    return {stem(w) for w in [*core, *heads[:1]]}


_TITLE_HEAD = re.compile(r"\s*(?:,|\(|\s[-\u2013\u2014|]\s)")


def qualifier_of(title: str) -> str:
    """What a title says after its role: its field, team or place ("..., Cardiology Ward")."""
    parts = _TITLE_HEAD.split(title, maxsplit=1)
    return parts[1].strip(" )") if len(parts) > 1 else ""


def person_words(profile: Profile) -> frozenset[str]:
    """Every word of the person's profile and search, as stems: what their fields are."""
    person = profile.person
    pieces = [person.summary, *person.skills, *profile.search.terms, *profile.search.must]
    for role in person.experience:
        pieces += [role.title, role.employer, *role.highlights]
    for school in person.education:
        pieces += [school.degree or "", school.field or ""]
    return frozenset(stem(w) for w in re.findall(r"[^\W_]+", " ".join(pieces)) if len(w) > 2)


def foreign_field(title: str, known: frozenset[str]) -> str:
    """A title's field when none of its words is one of the person's ("Neonatal Intensive Care
    Unit" for a cardiology nurse); "" when it names none or one of theirs."""
    qualifier = qualifier_of(title)
    words = [w for w in re.findall(r"[^\W_]+", qualifier) if len(w) > 2 and w.lower() not in _QUALIFIER_NOISE]
    if not words or any(stem(w) in known for w in words):
        return ""
    return qualifier


# Words of a title's qualifier that name no field: places, terms, schedules.
_QUALIFIER_NOISE = frozenset(
    {*("remote", "hybrid", "onsite", "permanent", "temporary", "contract", "full", "part", "time", "whole"),
     *("fixed", "term", "months", "month", "wte", "days", "nights", "weekends", "maternity", "cover", "and"),
     *("the", "for", "with", "all", "genders", "only", "based", "europe", "emea", "usa", "canada", "team"),
     *("care", "unit", "ward", "services", "service", "department", "centre", "center", "group", "hub"),
     *("division", "office", "programme", "program", "network", "operations", "hospital", "clinic")}
)  # fmt: skip


def role_of(title: str) -> str:
    """A title's role, without what follows a comma, bracket or dash ("..., Cardiology Ward")."""
    return _TITLE_HEAD.split(title, maxsplit=1)[0].strip()


def is_role(term: str) -> bool:
    """Whether a search term names a role ("Nurse Educator") rather than a topic ("Cardiac")."""
    words = normalise.words(term)
    return bool(words) and words[-1] in ROLE_NOUNS


def wanted_roles(profile: Profile) -> list[str]:
    """The roles the person looks for: the search terms that name one."""
    return [t for t in profile.search.terms if is_role(t)]


def person_roles(profile: Profile) -> list[str]:
    """The person's roles: those they look for, then the titles they held, most recent first."""
    titles = [
        role_of(r.title)
        for r in sorted(profile.person.experience, key=lambda r: r.start or date.min, reverse=True)
    ]
    return list(dict.fromkeys([*wanted_roles(profile), *titles]))


def person_topics(profile: Profile) -> list[str]:
    """The search terms that name no role: the fields, specialties and tools a person looks for."""
    return [t for t in profile.search.terms if not is_role(t)]


def role_match(title: str, description: str, roles: list[str], wanted: list[str] | None = None) -> RoleMatch:
    """The best meeting of a listing with the person's roles. When the person names the roles they
    look for (`wanted`), a title that is only a role they held meets them partly: someone moving
    from Senior Financial Analyst to FP&A Manager wants the second first."""
    found = _best_match(title, description, roles)
    if wanted and found.kind == "title" and found.role not in wanted:
        return RoleMatch("partial", found.role)
    return found


def _best_match(title: str, description: str, roles: list[str]) -> RoleMatch:
    have = _core(title)
    text = normalise.text(description)
    best = RoleMatch("none", "")
    best_share = 0.0
    for role in roles:
        wanted = _core(role)
        if not wanted:
            continue
        share = len(wanted & have) / len(wanted)
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


def listing_level(title: str, company: str = "") -> str | None:
    """The highest level the title's role states, where its level word is a level
    (`jobsearch.reading.levels`, as the filters read it); None when it states none."""
    words = level_words(role_of(title) or title, company)
    high = [HIGH_LEVELS[w] for w in words if w in HIGH_LEVELS]
    if high:
        return max(high, key=lambda lv: LEVEL_ORDER[lv])
    found = [vocabulary.LEVEL_WORDS.get(w) or NUMERAL_LEVELS.get(w) for w in words]
    levels = [lv for lv in found if lv in LEVEL_ORDER]
    return max(levels, key=lambda lv: LEVEL_ORDER[lv]) if levels else None


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
