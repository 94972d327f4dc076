"""Licences: a licence, ticket or endorsement named by its class code ("C2 crane licence", "HR
truck licence", "a Class 3 licence") claimed as the person's is one the profile writes.

A letter lists a tradesperson's tickets in a row ("My tickets: Queensland electrical linesperson
licence, HR truck licence, C2 crane licence"); the licence's class code is what makes it one
licence rather than another, so a code no source of the person writes is an invented licence,
whatever the words around it. The code is a short capitalised token with a digit or in capitals
("C2", "CN", "HR", "MR", "B1"), at most two lower-case words before the licence word.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.text import contains, fold
from jobsearch.draft.checks.units import held_as_unit
from jobsearch.draft.checks.vocabulary import FIRST_PERSON, GAP
from jobsearch.draft.checks.wished import OWN_LIST

_LICENCE = re.compile(
    r"(?<![\w-])(?:(?:Class|Category|Cat\.?)\s+([A-Z]?\d{1,2}[A-Z]?)|([A-Z]{1,3}\d{0,2}))\s+"
    r"(?:[a-z][\w-]*\s+){0,2}?(?:licen[cs]e|ticket|endorsement|permit)s?\b"
)
_NOT_CODES = frozenset({"I", "A", "HV", "LV", "EU", "UK", "US"})


def licences_claimed(sentence: str, facts: Facts) -> list[str]:
    """The licences a sentence claims as the person's (in the first person, or in the letter's
    own list) whose class code the profile does not write beside a licence word."""
    if GAP.search(sentence) or not (FIRST_PERSON.search(sentence) or OWN_LIST.match(sentence)):
        return []
    found: list[str] = []
    for match in _LICENCE.finditer(sentence):
        code = match.group(1) or match.group(2)
        if code in _NOT_CODES or (not any(c.isdigit() for c in code) and len(code) < 2):
            continue
        licence = match.group().strip()
        # "a BC PCP licence": the initials of a credential the profile writes out
        if not contains(facts.profile_text, fold(code)) and not held_as_unit(code, facts.credential_units):
            found.append(licence)
    return found
