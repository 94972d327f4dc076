"""Skills: which of the person's skills a listing requires or mentions, which tools it requires that
the person lacks, and whether it names what the person insists on or avoids.

A skill is found as a whole word or phrase, in any case, under its other names too (Golang/Go,
Postgres/PostgreSQL, k8s/Kubernetes, JS/JavaScript: `reading.skills.SKILL_SYNONYMS`); a skill
that is also an English word ("Go", "R", "Excel", "Spark") only as the posting capitalises it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from jobsearch.fit.sections import Sections
from jobsearch.reading.skills import AMBIGUOUS_SKILLS, SKILL_NAMES, SKILL_SYNONYMS


@functools.lru_cache(maxsize=4096)
def _pattern(skill: str) -> re.Pattern[str]:
    names = {skill.strip(), *(v for k, v in SKILL_SYNONYMS.items() if k == skill.strip().lower())}
    alternatives = []
    for name in names:
        body = re.escape(name)
        if name.lower() in AMBIGUOUS_SKILLS:
            # "Go", "R", "Excel": as the posting writes a name, never the everyday word
            alternatives.append(rf"(?<![\w.+#-]){re.escape(name[:1].upper())}{re.escape(name[1:])}(?![\w+#])")
        else:
            alternatives.append(rf"(?i:(?<![\w.+#-]){body}(?![\w+#]))")
    return re.compile("|".join(alternatives))


def names(skill: str, text: str) -> bool:
    """Whether a text names a skill (as a whole word or phrase, or by another of its names)."""
    return bool(skill.strip()) and _pattern(skill).search(text) is not None


@dataclass(frozen=True)
class SkillMatch:
    """What a listing says about the person's skills."""

    required: list[str]  # the person's skills it requires (or names in its title)
    other: list[str]  # the person's skills it names elsewhere
    asks_missing: list[str]  # tools it requires that the person does not list
    must_missing: list[str]  # of the person's `must`, those it does not name
    must_found: list[str]
    avoid_title: list[str]  # of `avoid`, those in the title
    avoid_required: list[str]
    avoid_text: list[str]


def match(title: str, parts: Sections, skills: list[str], must: list[str], avoid: list[str]) -> SkillMatch:
    """Read a listing's title and text parts against the person's skills, `must` and `avoid`."""
    body = f"{parts.required}\n{parts.nice}\n{parts.other}"
    required_text = f"{title}\n{parts.required}"
    held = list(dict.fromkeys([*skills, *must]))
    required = [s for s in held if names(s, required_text)]
    other = [s for s in held if s not in required and names(s, body)]
    asks = [
        tool
        for tool in sorted(SKILL_NAMES)
        if len(tool) > 1
        and names(tool, parts.required)
        and not any(names(tool, s) or names(s, tool) for s in held)
    ]
    return SkillMatch(
        required=required,
        other=other,
        asks_missing=asks,
        must_missing=[s for s in must if not names(s, f"{title}\n{body}")],
        must_found=[s for s in must if names(s, f"{title}\n{body}")],
        avoid_title=[a for a in avoid if names(a, title)],
        avoid_required=[a for a in avoid if not names(a, title) and names(a, parts.required)],
        avoid_text=[a for a in avoid if not names(a, required_text) and names(a, body)],
    )
