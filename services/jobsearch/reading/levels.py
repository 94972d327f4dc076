"""The words of a job title that state its level, read one way for the filters
(`jobsearch.dedupe.filters`) and the fit score (`jobsearch.fit.role`).

A title's level word states a level only where it is one. "Senior Living Coordinator", "Lead
Generation Specialist", "Staff Nurse", "Head Chef", "Principal Trainer" state no level: the word
begins another name (`_NAME_AFTER`), or it is a level only in some places (`staff` and
`principal` before the roles of a career ladder, `head` as "Head of ..." or after its field,
`entry` as "entry level"). The title is read part by part ("Principal Engineer, Payments"), the
company's own name left out ("Lead Bank"), and a trailing numeral ("Engineer II") read as a level.
"""

from __future__ import annotations

import itertools
import re

from jobsearch.reading import normalise, vocabulary

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
# The levels above a manager, which `vocabulary.LEVEL_WORDS` folds into "manager" (that tells
# two jobs apart, not a director's job from a manager's).
HIGH_LEVELS = {
    **{"head": "head", "director": "director", "vp": "vp", "vice": "vp", "chief": "chief"},
    **{"cfo": "chief", "cto": "chief", "ceo": "chief", "coo": "chief", "cno": "chief"},
}
# A title's last word as a level: "Engineer II".
NUMERAL_LEVELS = {"1": "junior", "i": "junior", "2": "mid", "3": "senior", "4": "staff"}


def level_words(title: str, company: str = "") -> list[str]:
    """The words of `title` that state a level (`senior`, `head`, `ii`...), in order: those of
    `vocabulary.LEVEL_WORDS` and `HIGH_LEVELS` where they are levels, and a trailing numeral."""
    found: list[str] = []
    for segment in _SEGMENTS.split(title):
        words = normalise.title_words(segment, company)
        for at, word in enumerate(words):
            known = word in vocabulary.LEVEL_WORDS or word in HIGH_LEVELS
            if known and _is_level(word, words[at + 1 :], segment):
                found.append(word)
    whole = normalise.title_words(title, company)
    if not found and whole and whole[-1] in NUMERAL_LEVELS:
        found.append(whole[-1])
    return found


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
    if word == "vice":  # "Vice President"; not "Vice Chair of ..."
        return after[:1] == ["president"]
    return True
