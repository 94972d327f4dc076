"""Referees: a person a draft offers as a reference ("PS: Anton Bester, Silvertree's owner, is
happy to speak to you about my work") is one the profile or the listing names.

A referee stands as a sentence's subject, where the names check reads no claim; a model that
invents a reference names a person no source writes, so such a sentence is read here.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.text import sentences

# "PS: Anton Bester, Silvertree's owner, is happy to speak to you": a referee named
_REFEREE = re.compile(
    r"^(?:P\.?\s?S\.?:?\s+)?([A-Z][\w'\u2019-]+(?:\s+[A-Z][\w'\u2019-]+)+)(?:,[^,.]{1,60},)?\s+"
    r"(?:is|are|would\s+be|has\s+agreed|have\s+agreed|can|will|could)\b[^.]{0,40}?"
    r"\b(?:speak|vouch|talk|reference|recommend|confirm)"
)


def referees(text: str, facts: Facts) -> list[str]:
    """Referees a draft names whose name no source writes."""
    found: list[str] = []
    for sentence in sentences(text):
        match = _REFEREE.match(sentence.strip())
        if match and not all(w in facts.names for w in match.group(1).split()):
            found.append(match.group(1))
    return found
