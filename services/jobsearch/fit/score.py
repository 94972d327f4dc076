"""The fit score: a listing's 0-100 and the signed contributions that made it, in words.

Every rule adds or takes the points its weight names (`profile.FitWeights`, overridable under
`[fit]`), with a reason a person checks in a second. The score is `base` plus the points, kept in
0..100. Each contribution belongs to a component (its group and sign: `skills+`, `place_office-`),
which the person's decisions may re-weight (`jobsearch.fit.learn`). A rule that is also a hard
filter the person asked for (`[search] hard`) drops the listing instead (`filters.drop_reason`).
"""

from __future__ import annotations

import math
import re
from datetime import date

import msgspec

from jobsearch.fit.learn import Learned
from jobsearch.fit.pay import age_days, pay_verdict
from jobsearch.fit.place import is_remote, place_match
from jobsearch.fit.role import (
    foreign_field,
    level_distance,
    listing_level,
    person_levels,
    person_roles,
    person_topics,
    person_words,
    person_years,
    role_match,
    wanted_roles,
    years_asked,
)
from jobsearch.fit.sections import sections
from jobsearch.fit.skills import match, names
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from jobsearch.reading import normalise


class Reason(msgspec.Struct, kw_only=True, frozen=True):
    """One signed contribution to a fit score, in words."""

    points: int
    text: str


class Fit(msgspec.Struct, kw_only=True, frozen=True):
    """A listing's fit for one person: 0-100, and the reasons, largest first."""

    score: int
    reasons: list[Reason] = []


class Part(msgspec.Struct, kw_only=True, frozen=True):
    """One rule's contribution: its component (`component_of`), its points and its reason."""

    component: str
    points: float
    text: str


def component_of(group: str, points: float) -> str:
    """The component a rule's points count towards: its group and sign (`place_office+`), so that
    what wins a listing points and what costs it points are learned apart."""
    return f"{group}{'+' if points > 0 else '-'}"


_BEND_HIGH, _BEND_LOW = 80.0, 20.0
# A listing that names this many of the person's skills is their kind of job, whatever its title.
_KIND_OF_JOB = 3
_TEMPORARY = re.compile(
    r"\b(?:contract(?:or)?|temporary|temp|fixed[- ]term|part[- ]time|freelance|locum|\d+[- ]months?)\b",
    re.IGNORECASE,
)


def _listed(items: list[str], most: int = 4) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _excluded(profile: Profile, listing: MergedListing) -> str | None:
    title, company = normalise.text(listing.title), normalise.text(listing.company)
    for term in profile.search.exclude:
        key = normalise.text(term)
        if key and (f" {key} " in f" {title} " or f" {key} " in f" {company} "):
            return term
    return None


def bounded(total: float) -> int:
    """The points' total as 0-100: as it is between 20 and 80, bent towards 100 above and towards 0
    below, so that two strong listings (or two poor ones) still rank by their points."""
    if total > _BEND_HIGH:
        total = _BEND_HIGH + (100 - _BEND_HIGH) * (1 - math.exp(-(total - _BEND_HIGH) / (100 - _BEND_HIGH)))
    elif total < _BEND_LOW:
        total = _BEND_LOW * math.exp((total - _BEND_LOW) / _BEND_LOW)
    return int(max(0, min(100, round(total))))


def score(profile: Profile, listing: MergedListing, today: date, learned: Learned | None = None) -> Fit:
    """The fit of one listing for one person, as of `today`; with `learned`, each contribution
    multiplied by its component's learned multiplier (`jobsearch.fit.learn`), and a reason saying so."""
    found = rule_parts(profile, listing, today)
    if learned is not None:
        found = [
            Part(component=p.component, points=p.points * learned.multiplier(p.component), text=p.text)
            for p in found
        ]
    total = profile.fit.base + sum(p.points for p in found)
    ordered = sorted(found, key=lambda p: -abs(p.points))
    reasons = [Reason(points=round(p.points), text=p.text) for p in ordered]
    if learned is not None:
        reasons.append(Reason(points=0, text=learned.reason()))
    return Fit(score=bounded(total), reasons=reasons)


def contributions(profile: Profile, listing: MergedListing, today: date) -> dict[str, float]:
    """The points each component gives the listing (by the profile's weights, nothing learned):
    what the learner re-weights."""
    out: dict[str, float] = {}
    for part in rule_parts(profile, listing, today):
        out[part.component] = out.get(part.component, 0.0) + part.points
    return out


def rule_parts(profile: Profile, listing: MergedListing, today: date) -> list[Part]:  # noqa: PLR0912, PLR0915 (one rule after another reads best)
    """Every rule's signed contribution to the listing's fit, with its component and reason."""
    w = profile.fit
    search = profile.search
    found: list[Part] = []

    def add(points: float, text: str, group: str) -> None:
        if points:
            found.append(Part(component=component_of(group, points), points=points, text=text))

    excluded = _excluded(profile, listing)
    if excluded:
        add(w.excluded, f"{excluded!r} is one of your exclusions", "excluded")

    parts = sections(listing.description)
    skills = match(listing.title, parts, profile.person.skills, search.must, search.avoid)
    topics = [t for t in person_topics(profile) if names(t, listing.title)]
    role = role_match(listing.title, listing.description, person_roles(profile), wanted_roles(profile))
    if role.kind == "title":
        add(w.title_match, f"the title is your role ({role.role})", "role")
    elif role.kind == "partial":
        add(w.title_partial, f"the title is close to your role ({role.role})", "role")
    elif topics:
        add(w.title_partial, f"the title names {_listed(topics)}, what you look for", "role")
    elif role.kind == "text":
        add(w.text_match, f"the text names your role ({role.role})", "role")
    elif person_roles(profile) and len(skills.required) + len(skills.other) < _KIND_OF_JOB:
        add(w.role_missing, "neither title nor text names one of your roles or skills", "role")
    field = foreign_field(listing.title, person_words(profile)) if role.kind in ("title", "partial") else ""
    if field:
        add(w.field_unknown, f"the title's field ({field}) is none of yours", "role")
    if topics and role.kind in ("title", "partial"):
        add(w.topic_title, f"the title names {_listed(topics)}", "role")
    if _TEMPORARY.search(f"{listing.employment_type or ''}\n{listing.title}"):
        add(w.temporary, f"{(listing.employment_type or 'a temporary post').lower()}", "temporary")

    skill_points = w.skill_required * len(skills.required) + w.skill_other * len(skills.other)
    if skill_points:
        held = skills.required + skills.other
        must = f" ({len(skills.must_found)} of {len(search.must)} must-haves)" if search.must else ""
        add(min(w.skills_most, skill_points), f"{_listed(held)}{must}", "skills")
    if skills.asks_missing:
        add(
            max(w.asks_most, w.ask_missing * len(skills.asks_missing)),
            f"requires {_listed(skills.asks_missing)}, which you do not list",
            "skills",
        )
    if skills.must_missing:
        add(
            w.must_missing * len(skills.must_missing),
            f"does not name {_listed(skills.must_missing)}, which you insist on",
            "skills",
        )
    for terms, points, where in (
        (skills.avoid_title, w.avoid_title, "in the title"),
        (skills.avoid_required, w.avoid_required, "required"),
        (skills.avoid_text, w.avoid_text, "in the text"),
    ):
        if terms:
            add(points, f"{_listed(terms)} {where}; you avoid it", "skills")

    years = person_years(profile, today)
    wanted = person_levels(profile, years)
    level = listing_level(listing.title)
    if level is not None and wanted:
        steps = level_distance(level, wanted)
        you = ", ".join(sorted(wanted))
        if steps == 0:
            add(w.level_match, f"{level.title()} level, as you want", "level")
        elif steps == 1:
            add(w.level_near, f"{level.title()} level; you are {you}", "level")
        else:
            add(w.level_far, f"{level.title()} level; you are {you}", "level")
    asked = years_asked(parts.required or listing.description)
    if asked is not None and asked > years + w.years_slack:
        add(w.years_over, f"asks for {asked}+ years; you have {years:.0f}", "level")

    place = place_match(profile, listing)
    where = "place_remote" if is_remote(listing) else "place_office"
    if place.unwanted:
        add(w.remote_unwanted if place.unwanted == "remote" else w.onsite_unwanted, place.text, where)
    elif place.ok is True:
        add(w.place_match, place.text, where)
    elif place.ok is False:
        add(w.place_mismatch, place.text, where)
    if search.needs_visa and place.visa == "refused":
        add(w.visa_refused, "no visa sponsorship; you need it", "visa")
    elif search.needs_visa and place.visa == "offered":
        add(w.visa_offered, "offers visa sponsorship or relocation", "visa")

    verdict, pay_text = pay_verdict(listing, search)
    if verdict == "meets":
        add(w.pay_meets, pay_text, "pay")
    elif verdict == "below":
        add(w.pay_below, pay_text, "pay")

    age = age_days(listing, today)
    if age is not None:
        ago = "today" if age == 0 else f"{age} day{'s' if age != 1 else ''} ago"
        if age <= 2:
            add(w.fresh_2_days, f"posted {ago}", "freshness")
        elif age <= 7:
            add(w.fresh_week, f"posted {ago}", "freshness")
        elif 30 < age <= 60:
            add(w.stale_month, f"posted {ago}", "freshness")
        elif age > 60:
            add(w.stale, f"posted {ago}", "freshness")

    return found
