"""One field of a comment (`Berlin, Germany`, `REMOTE (EU)`, `€90k-€110k`) read by what it is.

A field is a link, an e-mail, pay, where the work is done (with the region a remote role is
limited to and any place it names), a region alone ("US only"), the employment type, a visa or
funding note, the tech stack, a role title, a place, a sentence, or a name (the company, when it
stands first). Where it stands does not decide what it is; `Key: value` says it outright.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal

from jobsearch.listing import Salary, Workplace
from jobsearch.salary import salary_from_text
from jobsearch.sources.hn import vocab as v

Kind = Literal[
    "url", "email", "pay", "where", "region", "type", "visa", "funding", "tech", "title", "place",
    "several", "sentence", "name", "company", "other",
]  # fmt: skip
_KEYED: Final[dict[str, Kind]] = {
    "company": "company", "employer": "company", "role": "title", "roles": "title",
    "position": "title", "positions": "title", "title": "title", "titles": "title", "job": "title",
    "jobs": "title", "location": "place", "locations": "place", "where": "place", "office": "place",
    "salary": "pay", "salaries": "pay", "compensation": "pay", "comp": "pay", "pay": "pay",
    "type": "type", "employment": "type", "remote": "where", "visa": "visa", "stack": "tech",
    "tech": "tech", "tech stack": "tech", "apply": "url", "how to apply": "url", "link": "url",
    "url": "url", "website": "other", "email": "email", "e-mail": "email", "contact": "email",
}  # fmt: skip
_KEY: Final = re.compile(r"^(?P<key>[A-Za-z][A-Za-z -]{1,20}?)\s?:\s+(?P<value>.+)$")
_PARENS: Final = re.compile(r"\(([^()]*)\)")
_ALTERNATIVES: Final = re.compile(r"\s+or\s+|\s*;\s*|\s+&\s+|\s*/\s*(?=[A-Z])|\s*\+\s*(?=[A-Z])")
_LIST: Final = re.compile(r",\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+")
_ONLY: Final = re.compile(r"[\s-]*only$|^only\s+", re.I)
_TRIM: Final = " \t,.;:-\u2013\u2014()[]"
_EDGE: Final = " \t,.;:-\u2013\u2014[]"  # what a whole field may be trimmed of (its parentheses kept)


@dataclass
class Field:
    """What one field says."""

    kind: Kind
    text: str
    places: list[str] = field(default_factory=list)
    workplace: Workplace | None = None
    region: str | None = None
    salary: Salary | None = None
    employment: str | None = None
    links: list[str] = field(default_factory=list)


def split_outside(pattern: re.Pattern[str], text: str) -> list[str]:
    """`text` cut where `pattern` matches outside parentheses."""
    out, start, depth, pos = [], 0, 0, 0
    while pos < len(text):
        char = text[pos]
        depth += (char == "(") - (char == ")" and depth > 0)
        if depth == 0 and (hit := pattern.match(text, pos)) is not None and hit.end() > pos:
            out.append(text[start:pos])
            start = pos = hit.end()
            continue
        pos += 1
    out.append(text[start:])
    return [part for part in out if part.strip()]


def read(text: str, *, links: list[str] | None = None) -> Field:
    """What `text` is, as one field of a posting."""
    text = text.strip(" \t|")
    keyed = _KEY.match(text)
    if keyed and keyed["key"].strip().casefold() in _KEYED:
        return _keyed(_KEYED[keyed["key"].strip().casefold()], keyed["value"].strip(), links or [])
    return _unkeyed(text, links or [])


def _keyed(kind: Kind, value: str, links: list[str]) -> Field:  # noqa: PLR0911 - one exit per key
    if kind in ("url", "email"):
        found = read(value, links=links)
        return found if found.kind in ("url", "email") else Field("other", value)
    if kind == "place":
        where = read_where(value)
        if where is not None:
            return where
        return Field("place", value, places=places_in(value) or [value.strip(_TRIM)])
    if kind == "pay":
        return Field("pay", value, salary=salary_from_text(value))
    if kind == "type":
        return Field("type", value, employment=employment(value) or value)
    if kind == "where":
        return read_where(value) or Field("where", value, workplace=_yes_no(value))
    return Field(kind, value)


def _yes_no(value: str) -> Workplace | None:
    word = value.strip().casefold()
    return (
        "remote"
        if word.startswith(("yes", "ok", "possible"))
        else "onsite"
        if word.startswith("no")
        else None
    )


def _unkeyed(text: str, links: list[str]) -> Field:  # noqa: PLR0911, PLR0912 - one exit per kind
    bare = text.strip(_EDGE)
    if bare.startswith("(") and bare.endswith(")") and bare.count("(") == 1:
        bare = bare[1:-1].strip()
    if not bare:
        return Field("other", text)
    if v.URL.fullmatch(bare) or (links and not re.sub(r"\S*\.\.\.|https?://\S+", "", bare).strip()):
        return Field("url", bare, links=links or [bare])
    if (email := v.EMAIL.search(bare)) and len(bare) <= len(email.group(0)) + 12:
        return Field("email", email.group(0))
    if v.SEVERAL.search(bare):
        return Field("several", bare)
    # "$160k-$190k or $90-110/hr", "$150k / €100k": the first statement is the pay.
    first = re.split(r"\s+or\s+|\s+/\s+", bare, maxsplit=1)[0]
    salary = salary_from_text(first) or salary_from_text(bare)
    if salary is not None and _mostly_money(bare):
        return Field("pay", bare, salary=salary)
    if v.EQUITY_ONLY.match(bare):
        return Field("other", bare)
    where = read_where(bare)
    if where is not None:
        return where
    if v.REGION_HINT.match(bare):
        return Field("region", bare, region=_ONLY.sub("", bare).strip(_TRIM))
    if (kind := employment(bare)) is not None and len(bare.split()) <= 3 and not v.ROLE.search(bare):
        return Field("type", bare, employment=kind)
    if v.VISA.search(bare):
        return Field("visa", bare)
    if v.FUNDING.search(bare) and len(bare.split()) <= 5:
        return Field("funding", bare)
    if is_tech(bare):
        return Field("tech", bare)
    if is_title(bare):
        return Field("title", bare)
    places = places_in(bare)
    if places:
        return Field("place", bare, places=places)
    if is_sentence(bare):
        return Field("sentence", bare)
    return Field("name", bare)


def _mostly_money(text: str) -> bool:
    """Pay is the point of the field: few words besides the amounts, the currency and the interval."""
    words = re.findall(r"[^\W\d_]{3,}", re.sub(r"\([^)]*\)", "", text))
    skip = {"base", "plus", "equity", "bonus", "super", "salary", "year", "hour", "month", "per", "annum",
            "usd", "eur", "cad", "gbp", "aud", "chf", "dkk", "sek", "nok", "lpa", "depending", "experience",
            "mensuales", "and", "brutto", "gross", "ote", "stock", "options", "range", "hourly", "contract",
            "up", "to", "from", "tokens", "the", "same", "everywhere", "pay", "we", "b2b"}  # fmt: skip
    return sum(1 for w in words if w.casefold() not in skip) <= 2


def employment(text: str) -> str | None:
    """Full-time, Part-time, Contract or Internship, if the text names one."""
    found = v.EMPLOYMENT.search(text)
    return v.EMPLOYMENT_NAMES[found.lastgroup or "full"] if found else None


def is_title(text: str) -> bool:
    """A role's name: a role word, a few capitalised words, not a sentence."""
    outside = _PARENS.sub(" ", text)
    words = outside.split()
    if not v.ROLE.search(outside) or not words or len(words) > 10:
        return False
    if words[0][:1].islower() and not re.match(r"[a-z]+[A-Z]|ios|iOS", words[0]):
        return False
    lower = [w for w in v.SENTENCE_WORDS.findall(outside) if w not in ("of", "and", "for", "in", "the", "a")]
    named = [w for w in words if w.casefold() not in ("of", "and", "for", "in", "the", "a", "&", "de", "-")]
    capitalised = sum(1 for w in named if not w[:1].islower())
    return not lower and capitalised * 2 >= len(named)


def is_tech(text: str) -> bool:
    """A list of languages and tools (`Python, Django, PostgreSQL`), or `Stack: ...`."""
    parts = [p.strip().casefold() for p in re.split(r"[,/]|\band\b", text) if p.strip()]
    return len(parts) >= 2 and sum(p in v.TECH for p in parts) >= max(2, len(parts) - 1)


def is_sentence(text: str) -> bool:
    """Words a sentence has: several lowercase ones, or a sentence's end."""
    return len(v.SENTENCE_WORDS.findall(text)) >= 2 or (
        len(text.split()) >= 6 and text.rstrip()[-1:] in ".!?"
    )


def is_place(text: str) -> bool:
    """A city, a country, a state, or `City, ST` / `City, Country`."""
    name = text.strip(_TRIM)
    key = name.casefold()
    if key in v.CITIES or key in v.COUNTRIES or key in v.US_STATES:
        return True
    shape = v.PLACE_SHAPE.match(name)
    if shape is None:
        return False
    area = shape["area"].strip()
    if area in v.STATE_CODES or area.casefold() in v.COUNTRIES or area.casefold() in v.US_STATES:
        return True
    # "London, Ontario"-like: a known city and a region we do not know; not a list of cities.
    return (
        shape["city"].strip().casefold() in v.CITIES
        and area.casefold() not in v.CITIES
        and not re.search(r"\s(?:or|and)\s", area)
        and len(area.split()) <= 2
    )


def places_in(text: str) -> list[str]:
    """The places a field names (`SF or NYC`, `Berlin, Germany`), or [] when it is not places."""
    name = re.sub(r"^(?:in|based\s+in|located\s+in)\s+", "", text.strip(_TRIM), flags=re.I)
    if is_place(name):
        return [name]
    for cut in (_ALTERNATIVES, _LIST):
        parts = [p.strip(_TRIM) for p in split_outside(cut, name) if p.strip(_TRIM)]
        if len(parts) > 1 and all(is_place(p) for p in parts):
            return parts
    return []


def read_where(text: str) -> Field | None:
    """A field saying where the work is done, with its region and places; None if it says not."""
    workplace = _workplace(text)
    if workplace is None:
        return None
    alternatives = [_workplace(part) for part in split_outside(_ALTERNATIVES, text)]
    if "remote" in alternatives and len(alternatives) > 1:  # "Lisbon (hybrid) or Remote": remote is offered
        workplace = "remote"
    places: list[str] = []
    region: str | None = None
    for part in split_outside(_ALTERNATIVES, text):
        own = _workplace(part)
        if own is None:
            found = places_in(part)
            if found:
                places.extend(found)
            elif workplace == "remote" and region is None and part.strip(_TRIM):
                region = _ONLY.sub("", part).strip(_TRIM) or None
            continue
        inside = [m.group(1).strip() for m in _PARENS.finditer(part)]
        rest = v.WHERE_WORDS.sub(" ", _PARENS.sub(" ", part))
        rest = re.sub(r"\s+", " ", rest).strip(_TRIM)
        for piece in [*inside, rest]:
            if not piece or re.fullmatch(r"[\d\s/x-]*(?:days?|d|x)?(?:\s*/?\s*(?:week|wk|w))?", piece, re.I):
                continue
            found = places_in(piece)
            if found and own != "remote":
                places.extend(found)
            elif own == "remote" and region is None and not v.WHERE_WORDS.fullmatch(piece):
                region = _ONLY.sub("", piece).strip(_TRIM) or None
            elif found:
                places.extend(found)
    word = v.REMOTE.search(text)
    if (
        workplace == "remote"
        and region is None
        and word
        and word.group(0).casefold() in ("anywhere", "worldwide")
    ):
        region = word.group(0).capitalize()
    return Field("where", text, places=places, workplace=workplace, region=region)


def _workplace(text: str) -> Workplace | None:
    if v.NOT_REMOTE.search(text):
        return "onsite"
    if v.HYBRID.search(text):
        return "hybrid"
    if v.REMOTE.search(text):
        return "remote"
    if v.ONSITE.search(text):
        return "onsite"
    return None
