"""Credential units: a credential the profile states, read as one unit whatever order or short
form a letter writes it in.

A profile writes "Certified Sommelier with the Court of Master Sommeliers" or "Chartered quantity
surveyor (MSCSI MRICS)"; a letter writes "a CMS Certified Sommelier", "the Court of Master
Sommeliers' Certified Sommelier title" or "a chartered QS (MSCSI MRICS)". Each sentence, skill,
highlight and education entry of the profile is a unit: its words, and the initials of every run
of two to six of its words ("CMS" for Court of Master Sommeliers, "QS" for quantity surveyor). A
credential a letter names is the profile's when every word of it is in one unit. Words from two
units do not make one credential: "AWS Certified" in one line and "Solutions Architect" in
another is no "AWS Certified Solutions Architect".
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.text import fold, sentences

# Small words a credential's name carries without meaning ("a member of the ..."), and those an
# initialism may skip ("Court of Master Sommeliers" -> CMS).
_SMALL = frozenset({"a", "an", "the", "of", "and", "&", "with", "for", "in", "de", "du", "der", "des"})
_LONGEST_RUN = 6


def unit_words(piece: str) -> list[frozenset[str]]:
    """The units of one piece of a profile (its summary, a skill, a highlight): one per sentence,
    with hard line breaks read as spaces."""
    out: list[frozenset[str]] = []
    for sentence in sentences(re.sub(r"\s*\n\s*", " ", piece)):
        tokens = fold(sentence).split()
        if not tokens:
            continue
        found = set(tokens)
        for size in range(2, _LONGEST_RUN + 1):
            for start in range(len(tokens) - size + 1):
                run = tokens[start : start + size]
                if run[0] in _SMALL or run[-1] in _SMALL:
                    continue
                found.add("".join(w[0] for w in run))
                found.add("".join(w[0] for w in run if w not in _SMALL))
        out.append(frozenset(found))
    return out


def held_as_unit(name: str, units: list[frozenset[str]]) -> bool:
    """Whether every word of a credential's name (folded, small words aside) is in one unit."""
    wanted = {w for w in fold(name).split() if w not in _SMALL}
    return bool(wanted) and any(wanted <= unit for unit in units)
