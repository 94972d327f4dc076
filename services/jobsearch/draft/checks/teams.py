"""Teams: the size of a team the person says they lead is a team size the profile gives.

"I manage a team of eight demand analysts" when the profile says "Leads 3 demand analysts" is an
invention even though the profile says "eight" elsewhere ("saved eight hours a week"): a count
of people the person leads must be one the profile gives for people, beside a team word or a
verb of leading ("team of 7 buyers", "leads 5 gameplay programmers", "supervise three graduate
engineers"). A count the profile nowhere states is the numbers check's; the listing's team ("your
team of five planners") is no claim.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.figures import number_value
from jobsearch.draft.checks.text import clauses, fold, sentences
from jobsearch.draft.checks.vocabulary import FIRST_PERSON

_NUM = r"(\d{1,3}|[a-z]+(?:-[a-z]+)?)"
_LEADS = (
    r"(?:lead|leads|led|leading|manage|manages|managed|managing|supervise|supervises|supervised|"
    r"supervising|oversee|oversees|oversaw|overseeing|head|heads|headed)"
)
_TEAM = re.compile(
    rf"\b(?:(?:team|crew|squad|department|group|staff)\s+of\s+{_NUM}"
    rf"|{_LEADS}\s+(?:a\s+|my\s+|our\s+)?(?:(?:team|crew)\s+of\s+)?{_NUM}(?=\s+[a-z])"
    rf"|{_NUM}\s+(?:person|strong|member|people)\s+(?:team|crew|squad))"
    # the people counted: a plural noun within three words ("8 demand analysts")
    r"(?:((?:\s+(?!and\b|at\b|for\b|in\b|on\b|with\b|through\b)[a-z-]+){0,2}?\s+[a-z]{3,}s)\b)?"
)
_FIVE = 5  # letters of a noun's stem compared ("analysts" and "analyst")


_CONTEXT = frozenset(
    {"team", "teams", "crew", "crews", "squad", "squads", "brigade", "staff", "lead", "leads", "led",
     "leading", "manage", "manages", "managed", "managing", "supervise", "supervises", "supervised",
     "supervising", "mentor", "mentors", "mentored", "oversee", "oversees", "oversaw", "head", "heads",
     "headed", "direct", "reports", "person", "people"}
)  # fmt: skip
_WINDOW = 4  # words either side of a figure of the profile read as what it counts


def _occurrences(folded: str) -> dict[float, set[str]]:
    """Each number a folded text states, with the words (and their stems) around it."""
    tokens = folded.split()
    out: dict[float, set[str]] = {}
    for i, token in enumerate(tokens):
        value = number_value(token)
        if value is None:
            continue
        near = tokens[max(0, i - _WINDOW) : i] + tokens[i + 1 : i + 1 + _WINDOW]
        out.setdefault(value, set()).update(near, {w[:_FIVE] for w in near})
    return out


def unsupported_teams(text: str, facts: Facts) -> list[str]:
    """The team sizes a draft claims that the profile gives for no team, as written."""
    known = _occurrences(facts.profile_text)
    bad: list[str] = []
    for clause in (c for sentence in sentences(text) for c in clauses(sentence)):
        if not FIRST_PERSON.search(clause):
            continue  # "a platform team of 5 sounds like a good place": the listing's team
        folded = fold(clause)
        for match in _TEAM.finditer(folded):
            value = number_value(match[1] or match[2] or match[3])
            number_end = next(match.end(g) for g in (1, 2, 3) if match[g])
            if re.match(r"\s+(?:hundred|thousand|million)\b", folded[number_end:]):
                continue  # "six hundred bottles a minute": no team
            if value is None or value <= 2 or value not in known:
                continue  # a count no source states is the numbers check's
            if re.search(r"\b(?:your|you)\s+(?:\w+\s+){0,2}$", folded[: match.start()]):
                continue  # "lead your team of five": the listing's
            stems = {w[:_FIVE] for w in (match[4] or "").split()}
            around = known[value]
            if not stems or stems & around or _CONTEXT & around:
                continue
            bad.append(match.group().strip())
    return bad
