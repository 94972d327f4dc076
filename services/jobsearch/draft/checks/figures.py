"""The figures a text states, as values: "40%", "€85k", "1.2 million", "twenty-eight", "three and
a half years", "5+ years", "2019".

A figure is a value with what follows it: `Figure.unit` is "%" for a percentage, "year" or "month"
for a duration, "" otherwise. Figures that are part of a name are not figures: digits inside a
word (p95, B2, ICD-10, HL7, Web3), version numbers after a name ("WCAG 2.1"), a phone number's
groups, a day of the month beside a month's name. "one" and "two" in words are left out: "one of
the few", "the two things" state nothing checkable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6,
           "billion": 1e9, "bn": 1e9, "b": 1e9}  # fmt: skip
_WORD_NUMBER = "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True))
_TENS_WORDS = "|".join(_TENS)
_ONES_WORDS = "|".join(k for k, v in _UNITS.items() if v < 10)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)

_FIGURE = re.compile(
    rf"""
    (?<![\w.,/])(?<![A-Za-z]-)                      # not inside a word or a longer number
    (?P<cur>[€$£¥]|eur\s|usd\s|gbp\s|chf\s)?
    (?:
        (?P<num>\d{{1,3}}(?:[,\u202f\u00a0]\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)
      | (?P<word>(?:(?:a|{_ONES_WORDS})\s+hundred(?:\s+and\s+|\s+)(?=(?:{_WORD_NUMBER})\b))?
                (?:(?:{_TENS_WORDS})(?:[-\s](?:{_ONES_WORDS}))?|(?:{_WORD_NUMBER}))
              | (?:a|{_ONES_WORDS})\s+hundred(?!\s+(?:and\s+)?(?:{_WORD_NUMBER})\b))
    )
    (?P<half>\s+and\s+a\s+half)?
    (?:\s?(?P<scale>hundred|thousand|million|billion|mn|bn)\b|(?P<short>[km]|bn?)(?![\w\u2013-]))?
    (?P<plus>\+|-plus\b)?
    (?:[\s\u00a0-]?(?P<unit>%|per\s?cent\b|percent\b|years?\b|yrs?\b|months?\b|weeks?\b|days?\b))?
    (?!\w)
    """,
    re.IGNORECASE | re.VERBOSE,
)
_NAME_BEFORE = re.compile(r"[A-Z][\w-]*\s$")  # "WCAG 2.1", "Python 3.12"
_MONTH_BESIDE = re.compile(rf"(?:\b(?:{_MONTHS})\.?\s+$)|(?:^\s+(?:of\s+)?(?:{_MONTHS})\b)", re.I)
_PHONE = re.compile(r"\+?\d[\d\s().-]{7,}\d")
_CLOCK = re.compile(
    r"^(?::\d{2})?\s?(?:a\.?m\b\.?|p\.?m\b\.?|o'clock\b|h\b)", re.IGNORECASE
)  # "7 a.m.", "3pm"
_LIST_NUMBER = re.compile(r"^[\s\-*\u2022]*$")  # only a bullet before "1." or "2)"
_NOT_FIGURE_WORDS = {"one", "two", "three"}  # small counts in words restate a list


@dataclass(frozen=True)
class Figure:
    """One figure of a text: its value, its unit, and the words as written."""

    value: float
    unit: str  # "%", "year", "month", "week", "day" or ""
    text: str
    start: int
    plus: bool = False


def number_value(raw: str) -> float | None:
    """A number written in digits or in words ("12", "twelve"), or None."""
    return float(raw) if raw.isdigit() else word_value(raw)


def word_value(word: str) -> float | None:
    """The value of a number in words: "twenty-eight", "a hundred and eighty"."""
    total = 0.0
    for part in re.split(r"[-\s]+", word.lower()):
        if part == "hundred":
            total = (total or 1) * 100
        elif part in {"a", "and"}:
            continue
        elif part in _TENS:
            total += _TENS[part]
        elif part in _UNITS:
            total += _UNITS[part]
        else:
            return None
    return total


def _unit(raw: str | None) -> str:
    if not raw:
        return ""
    raw = raw.lower().replace(" ", "")
    if raw in {"%", "percent"} or raw.startswith("per"):
        return "%"
    for unit in ("year", "month", "week", "day"):
        if raw.startswith(unit[:2]) and raw[0] == unit[0]:
            return unit
    return "year" if raw.startswith("yr") else ""


def _number(digits: str, before: str) -> float:
    """A number's value; two digits after an apostrophe are a year ("in '24")."""
    value = float(re.sub(r"[,\u202f\u00a0]", "", digits))
    if len(digits) == 2 and before in {"'", "\u2019"}:
        value += 2000 if value <= 50 else 1900
    return value


def figures(text: str) -> list[Figure]:
    """Every figure a text states, in order."""
    phones = [m.span() for m in _PHONE.finditer(text) if sum(c.isdigit() for c in m.group()) >= 9]
    found: list[Figure] = []
    for match in _FIGURE.finditer(text):
        start = match.start("num") if match.group("num") else match.start("word")
        if any(a <= start < b for a, b in phones):
            continue
        if match.group("num"):
            # "WCAG 2.1" is a version; "Secured $3.4 million" an amount
            if (
                "." in match.group("num")
                and not match.group("cur")
                and _NAME_BEFORE.search(text[: match.start()])
            ):
                continue
            value = _number(match.group("num"), text[start - 1 : start] if start else "")
        else:
            word = match.group("word")
            if word.lower() in _NOT_FIGURE_WORDS and not match.group("unit") and not match.group("scale"):
                continue
            in_words = word_value(word)
            if in_words is None:
                continue
            value = in_words
        if _CLOCK.match(text[match.end() :]):
            continue  # a time of day
        if _LIST_NUMBER.match(text[: match.start()]) and re.match(r"[.)](?:\s|$)", text[match.end() :]):
            continue  # a list's number: "1. Credit risk modelling"
        beside_month = _MONTH_BESIDE.search(text[: match.start()]) or _MONTH_BESIDE.search(
            text[match.end() :]
        )
        if beside_month and value <= 31:
            continue  # a day of the month
        if match.group("half"):
            value += 0.5
        scale = (match.group("scale") or match.group("short") or "").lower()
        if scale:
            value *= _SCALES[scale]
        found.append(
            Figure(
                value=value,
                unit=_unit(match.group("unit")),
                text=match.group().strip(),
                start=start,
                plus=bool(match.group("plus")),
            )
        )
    return found


def same(a: float, b: float) -> bool:
    """Two values equal up to rounding noise."""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
