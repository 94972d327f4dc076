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


_STEM_ENDINGS = (
    "ations",
    "ation",
    "ings",
    "ing",
    "ment",
    "ers",
    "er",
    "ies",
    "ial",
    "al",
    "es",
    "ed",
    "s",
    "y",
)
_LITTLE = frozenset({"and", "or", "of", "the", "a", "an", "in", "on", "for", "with", "to"})


def stem(word: str) -> str:
    """A word without a common English ending: nursing, nurse -> nurs; management -> manage."""
    word = word.lower()
    for ending in _STEM_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)].rstrip("e")
    return word.rstrip("e") if len(word) > 4 else word


@functools.lru_cache(maxsize=2048)
def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[^\W_]+", text))


@functools.lru_cache(maxsize=2048)
def _stem_text(text: str) -> str:
    return " " + " ".join(stem(w) for w in re.findall(r"[^\W_]+", text) if w.lower() not in _LITTLE) + " "


_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9&/+-]{1,9})\)")


def names(skill: str, text: str) -> bool:
    """Whether a text names a skill: as a whole word or phrase, by another of its names, by the
    short form it gives in brackets ("Advanced Life Support (ALS) instructor": ALS), or by its
    words in any form: two words together ("cardiology nurse"), three or more in any order
    ("Heart failure management" in "manages heart failure"), a single word in lower case
    ("forecasting" in "forecasts")."""
    if not skill.strip():
        return False
    short = _ACRONYM.search(skill)
    if _pattern(skill).search(text) is not None or (short and _pattern(short.group(1)).search(text)):
        return True
    return _by_its_words(skill, text)


def _by_its_words(skill: str, text: str) -> bool:
    words = [w for w in re.findall(r"[^\W_]+", _ACRONYM.sub(" ", skill)) if w.lower() not in _LITTLE]
    if not words or any(any(c.isdigit() for c in w) for w in words):
        return False
    if len(words) == 1:  # a word in lower case by its stem; "Python", "SQL", "Go" by their name only
        return words[0][1:].islower() and len(words[0]) >= 6 and stem(words[0]) in _stems(text)
    if len(words) == 2:  # "Cardiology nursing": the two together, in any form
        return f" {stem(words[0])} {stem(words[1])} " in _stem_text(text)
    return all(stem(w) in _stems(text) for w in words)


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


@functools.cache
def _tools() -> re.Pattern[str]:
    """One pattern for every tool of the vocabulary, longest first (ambiguous ones capitalised)."""
    plain = sorted(
        (t for t in SKILL_NAMES if len(t) > 1 and t not in AMBIGUOUS_SKILLS), key=len, reverse=True
    )
    words = sorted((t for t in SKILL_NAMES if len(t) > 1 and t in AMBIGUOUS_SKILLS), key=len, reverse=True)
    return re.compile(
        r"(?<![\w.+#-])(?:(?i:"
        + "|".join(map(re.escape, plain))
        + r")|"
        + "|".join(re.escape(w[:1].upper() + w[1:]) for w in words)
        + r")(?![\w+#])"
    )


def tools_in(text: str) -> list[str]:
    """The vocabulary's tools a text names, once each, in lower case."""
    return list(dict.fromkeys(m.group().lower() for m in _tools().finditer(text)))


def match(title: str, parts: Sections, skills: list[str], must: list[str], avoid: list[str]) -> SkillMatch:
    """Read a listing's title and text parts against the person's skills, `must` and `avoid`."""
    body = f"{parts.required}\n{parts.nice}\n{parts.other}"
    required_text = f"{title}\n{parts.required}"
    held = list(dict.fromkeys([*skills, *must]))
    required = [s for s in held if names(s, required_text)]
    other = [s for s in held if s not in required and names(s, body)]
    asks = [
        tool for tool in tools_in(parts.required) if not any(names(tool, s) or names(s, tool) for s in held)
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
