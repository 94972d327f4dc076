"""The check of a model's fit judgement: its rationale may cite only what the listing or the
profile says (and the local fit's own reasons, which are read from those two).

A judgement is dropped when its rationale

- is empty, longer than `RATIONALE_MOST` characters or longer than two sentences;
- quotes (in `quotes`, or between quotation marks in the rationale) words that neither source has;
- links to a URL, an address or a domain that neither source gives;
- names a tool, language or platform (`jobsearch.fit.skills.tools_in`) that neither source names;
- states a figure (a year count, a salary, a percentage) that no source states; a small count
  ("2 of 3 must-haves") is the model's own reading and passes;
- names a capitalised name (an organisation, a place, a product) inside a sentence that neither
  source uses.

It is a reading, not a proof: a paraphrase that invents a requirement in plain lower-case words
passes. The drafts' checks (`jobsearch.draft.checks`) read claims about the person; a judgement
talks about the listing and the person both, so it is read here, by the same vocabulary.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import msgspec

from jobsearch.fit.skills import names, tools_in
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile

RATIONALE_MOST = 400
_SENTENCES_MOST = 2
_SMALL_COUNT = 10
_QUOTED = re.compile(
    r"[\"\u201c\u201d\u201e\u00ab\u00bb]([^\"\u201c\u201d\u201e\u00ab\u00bb]{3,200})[\"\u201c\u201d\u201e\u00ab\u00bb]"
)
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z\u00c0-\u00de\"\u201c]|\s*$)")
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+|\d+(?:\.\d+)?)\s*(k\b|%|\+)?", re.IGNORECASE
)
_UNIT_AFTER = re.compile(r"\s*(?:\+\s*)?(?:years?|yrs?|months?|%|k\b|per\b|/|an hour|a year)", re.IGNORECASE)
# A URL, an address or a bare domain ("evil.example.net", "jobs@acme.io").
_LINK = re.compile(
    r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?:/\S*)?",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"(?<![\w'])([A-Z\u00c0-\u00de][\w&+#.'-]*(?:\s+[A-Z\u00c0-\u00de][\w&+#.'-]*)*)")
# Capitalised words a rationale uses of itself, not as names.
_OWN_WORDS = frozenset(
    {"i", "the", "a", "an", "you", "your", "their", "they", "this", "it", "its", "applicant", "profile",
     "listing", "posting", "role", "job", "candidate", "senior", "junior", "mid", "lead", "staff",
     "principal", "remote", "hybrid", "onsite", "on-site", "strong", "good", "weak", "no", "not"}
)  # fmt: skip


_PLAIN = str.maketrans("\u2019\u2018\u2013\u2014", "''--")


def _fold(text: str) -> str:
    """Text as compared: NFKC, case folded, quotes and dashes made plain, spaces collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.translate(_PLAIN)
    return " ".join(text.split())


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def profile_text(profile: Profile) -> str:
    """Everything the profile says that a judgement may cite: the person and what they search for."""
    parts = [*_strings(msgspec.to_builtins(profile.person)), *_strings(msgspec.to_builtins(profile.search))]
    return "\n".join(parts)


def listing_text(listing: MergedListing) -> str:
    """Everything the listing says: title, company, places, pay, department and text."""
    parts = [listing.title, listing.company, *listing.locations, listing.department or ""]
    parts += [listing.employment_type or "", listing.description]
    if listing.salary is not None:
        parts.extend(_strings(msgspec.to_builtins(listing.salary)))
    return "\n".join(parts)


def _numbers(text: str) -> set[str]:
    """The figures a text states, as digits only ("70,000" -> "70000"; "70k" -> "70" and "70000")."""
    found: set[str] = set()
    for match in _NUMBER.finditer(text):
        digits = re.sub(r"[,.\u00a0\u202f ](?=\d{3}\b)", "", match.group(1))
        found.add(digits)
        if (match.group(2) or "").lower() == "k":
            found.add(f"{digits}000")
        if digits.endswith("000") and len(digits) > 3:
            found.add(digits[:-3])
    return found


def _sentence_starts(text: str) -> set[int]:
    starts = {0}
    for end in _SENTENCE_END.finditer(text):
        rest = text[end.end() :]
        starts.add(end.end() + len(rest) - len(rest.lstrip()))
    return starts


def _shape(text: str) -> list[str]:
    problems = []
    if len(text) > RATIONALE_MOST:
        problems.append(f"the rationale has {len(text)} characters; at most {RATIONALE_MOST}")
    sentences = len(_SENTENCE_END.findall(text)) or 1
    if sentences > _SENTENCES_MOST:
        problems.append(f"the rationale has {sentences} sentences; at most {_SENTENCES_MOST}")
    return problems


def _cited(text: str, quotes: list[str], source: str, folded: str) -> list[str]:
    """Quotes, tools and links that the sources do not have."""
    problems = []
    for quote in [*quotes, *(m.group(1) for m in _QUOTED.finditer(text))]:
        cut = _fold(quote).strip(" .,;:!?'\"")
        if cut and cut not in folded:
            problems.append(f"quotes {quote.strip()[:80]!r}, which neither the listing nor the profile says")
    problems += [
        f"names {tool}, which neither the listing nor the profile names"
        for tool in tools_in(text)
        if not names(tool, source)
    ]
    problems += [
        f"links to {link.group(0)}, which neither the listing nor the profile does"
        for link in _LINK.finditer(text)
        if _fold(link.group(0)).rstrip(".,;:") not in folded
    ]
    return problems


def _figures(text: str, source: str) -> list[str]:
    """Figures that no source states (a small count without a unit is the model's own)."""
    stated = _numbers(source)
    problems = []
    for match in _NUMBER.finditer(text):
        digits = re.sub(r"[,.\u00a0\u202f ](?=\d{3}\b)", "", match.group(1))
        after = _UNIT_AFTER.match(text, match.end())
        small = digits.isdigit() and int(digits) <= _SMALL_COUNT and not (match.group(2) or after)
        if not small and digits not in stated:
            shown = text[match.start() : after.end() if after else match.end()].strip()
            problems.append(f"states {shown}, which neither the listing nor the profile states")
    return problems


def _names(text: str, folded: str) -> list[str]:
    """Capitalised names inside a sentence that no source uses."""
    starts = _sentence_starts(text)
    words = set(re.findall(r"[\w&+#.'-]+", folded))
    problems = []
    for match in _CAPITALISED.finditer(text):
        name = match.group(1).rstrip(".'-")
        if match.start() in starts or _fold(name) in folded:
            continue
        if not all(w.lower() in _OWN_WORDS or w.lower() in words for w in name.split()):
            problems.append(f"names {name}, which neither the listing nor the profile uses")
    return problems


def check_judgement(
    rationale: str,
    quotes: list[str],
    *,
    listing: MergedListing,
    profile: Profile,
    reasons: Iterable[str] = (),
) -> list[str]:
    """What in a judgement neither the listing nor the profile says; empty when it passes."""
    text = " ".join(rationale.split())
    if not text:
        return ["the rationale is empty"]
    source = "\n".join([listing_text(listing), profile_text(profile), *reasons])
    folded = _fold(source)
    problems = (
        _shape(text) + _cited(text, quotes, source, folded) + _figures(text, source) + _names(text, folded)
    )
    return list(dict.fromkeys(problems))
