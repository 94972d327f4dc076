"""Numbers: every figure a draft states is one the profile or the listing states, or one the
profile's dates give.

A percentage, an amount, a count or a year must be a figure of the sources ("cut costs by 40%" when
no source says 40% is an invention; "the 9,000 shops you serve" is the listing's). A duration must
be one the profile's dates give, rounded as a person rounds ("seven years" for 7.4, "almost three
years" for 2.7, "three and a half years"), or one a source states ("five years on the wards"); a
duration in a clause naming one of the person's employers must be that employer's. "5+ years" is
true when the dates give at least five.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.claims import claims
from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.figures import Figure, figures, same
from jobsearch.draft.checks.text import clauses, sentences
from jobsearch.draft.checks.verdict import verdict
from jobsearch.jobs import Check

_ITEMS = re.compile(
    r"\s+(?:more\s+|other\s+|main\s+|key\s+|short\s+)?(?:things|reasons|ways|points|areas|examples|questions|"
    r"parts|gaps|words|sentences|lines|highlights|stories|notes)\b",
    re.IGNORECASE,
)
_ROUGHLY = re.compile(
    r"\b(?:almost|nearly|over|more than|about|around|roughly|close to|just under|just over)\s+$", re.I
)


def _employer_span(figure: Figure, clause: str, facts: Facts) -> bool:
    """A bare figure beside an employer's name may be its duration: "the first three and a half
    at Naira Rails"."""
    return any(figure.value in facts.durations.get(e, set()) for e in facts.employers_in(clause))


def _stated(figure: Figure, facts: Facts, among: set[tuple[float, str]] | None = None) -> bool:
    known = facts.figures if among is None else among
    return any(
        same(figure.value, value) and unit in {figure.unit, ""} for value, unit in facts.figures
    ) or any(same(figure.value, value) and figure.unit == "" for value, _ in known)


def _duration_ok(figure: Figure, clause: str, before: str, facts: Facts) -> bool:
    years = figure.value / 12 if figure.unit == "month" else figure.value
    if figure.unit and (figure.value, figure.unit) in facts.figures:
        return True  # a source states it: "five years on the wards", "charge nurse for two years"
    employers = sorted(facts.employers_in(clause))
    allowed: set[float] = set()
    for employer in employers:
        allowed |= facts.durations.get(employer, set())
    longest = max(allowed, default=0.0)
    if not employers or len(employers) > 1 or years > longest + 1:
        # no employer, or several, or longer than the stay named ("thirteen years, starting at
        # Brouwer in 2013"): the career's totals too
        allowed |= facts.durations.get("", set())
    if figure.plus:
        return any(a >= years for a in allowed) or _stated(figure, facts)
    slack = 1.0 if _ROUGHLY.search(before) else (0.5 if figure.unit == "month" else 0.0)
    if any(abs(a - years) <= slack + 1e-9 for a in allowed):
        return True
    return not employers and _stated(figure, facts)


def unstated(text: str, facts: Facts) -> list[str]:
    """The figures of a text that no source states or gives, as written."""
    bad: list[str] = []
    for sentence in sentences(text):
        for clause in clauses(sentence):
            for figure in figures(clause):
                if figure.unit in {"", "%"} and figure.value in (0.0, 1.0):
                    continue
                if _ITEMS.match(clause[figure.start + len(figure.text) :]):
                    continue  # "three things from your posting": the letter's own list
                if figure.unit in {"year", "month"}:
                    ok = _duration_ok(figure, clause, clause[: figure.start], facts)
                elif claims(clause, figure.start):  # "I released 60 parts": the person's, so the profile's
                    ok = _stated(figure, facts, facts.profile_figures) or _employer_span(
                        figure, clause, facts
                    )
                else:
                    ok = _stated(figure, facts) or _employer_span(figure, clause, facts)
                if not ok:
                    bad.append(figure.text)
    return list(dict.fromkeys(bad))


def check_numbers(text: str, facts: Facts) -> Check:
    """No figure that the profile and the listing do not state or give."""
    bad = unstated(text, facts)
    return verdict("numbers", bad, lambda shown: f"states {shown}, in neither your profile nor the listing")
