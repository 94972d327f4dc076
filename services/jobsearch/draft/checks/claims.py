"""Whether a clause claims something as the person's own: a first-person subject before it ("I
operate Kubernetes", "we released 60 parts"), no gap or wish word ("not yet", "would", "keen to
learn"), and no "your" between the two ("I like your Kubernetes setup")."""

from __future__ import annotations

import re

from jobsearch.draft.checks.vocabulary import FIRST_PERSON, GAP

_YOURS = re.compile(r"\b(?:your|you|you're|you've|the team's|the role's)\b", re.IGNORECASE)


# "the certifications your advert mentions": a pointer to the listing, not the listing's own thing
_POINTER = re.compile(
    r"\b(?:your|the)\s+(?:advert|ad|posting|listing|job\s+ad|description|post)\s+"
    r"(?:mentions|lists|names|asks\s+for|wants|requires)\b",
    re.IGNORECASE,
)


def claims(clause: str, at: int) -> bool:
    """Whether `clause` holds what is written at offset `at` as the person's own."""
    if GAP.search(clause):
        return False
    person = [m.start() for m in FIRST_PERSON.finditer(clause[:at])]
    if not person:
        return False
    before = _POINTER.sub(lambda m: " " * len(m.group()), clause[:at])
    your = [m.start() for m in _YOURS.finditer(before)]
    return not (your and max(your) > max(person))
