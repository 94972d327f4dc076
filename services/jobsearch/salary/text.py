"""Pay stated in a posting's text: `salary_from_text("€65.000 - €80.000 brutto/Jahr")`.

The text is cut into statements (lines, sentences, bullets, `|`-separated fields) and each money
amount or range in it is read with its currency, its interval and the words around it:

- Numbers are read as English or German write them: `65,000`, `65.000`, `65 000`, `110'000`,
  `65k`, `65.000,-`; `k` means a thousand. A range is `A - B`, `A to B`, `A bis B` or
  `zwischen A und B`; `up to`/`bis zu` gives only a maximum, `from`/`ab` and a trailing `+` only a
  minimum. One figure alone is a range of one (min = max).
- A currency is a symbol (`$` is US dollars unless written `CA$`, `A$`...), an ISO code or a word.
- Only a statement that says pay is read. An amount with its own currency is pay when its
  statement has a pay word (salary, compensation, pay, base, OTE, Gehalt, Vergütung, brutto...),
  names an interval at the amount (`$45/hr`, `€4.500 monatlich`), states a range or an open bound
  (`$120k-$150k`, `up to $180,000`, `€70k+`), or is the amount and nothing else (a pay field, a
  `|` field): "shipped $200,000 of hardware" is money, not pay.
- A bare number (no currency of its own) is pay only when written like pay (`60,000`, `60.000`,
  `60k`: not years or phone numbers), in a statement with a pay word (an interval alone is not
  one: "200,000 builds a day" is a count), and not followed by a word that makes it a count: after
  a bare amount may stand only punctuation, a currency, an interval, a pay word or a word pay is
  qualified with (`gross`, `DOE`, `plus`, `bis`, `zzgl.`, `remote`...; `_money.counted`), so
  "60,000 homes", "3.000 Campingplätze", "1,200 engineers" are counts. Only once the number is
  pay is a currency named elsewhere in its statement taken as its currency: "R$3 billion a year for
  90,000 shops" does not make the shops money.
- The interval is the one named right after the amount (`/hr`, `per hour`, `pro Monat`, `p.a.`,
  `brutto/Jahr`...) or just before it (`Stundenlohn`, `annual salary of`), not across a joining
  word ("a year for 90,000"). When none is named, an amount of 10,000 or more is a year's pay; one
  below 300 is not read as pay at all (an hourly rate must say so); one in between is pay of
  unknown interval, and only in a statement with a pay word.
- Not pay: amounts in millions or billions (funding, revenue), amounts beside a perk, a price, a
  count, a headcount or a retirement plan ("$5,000 learning budget", "401(k) match up to $6,000",
  "costs $49/month", "5,000 customers", "headcount of 1,200"), and amounts outside what a salary is
  stated in for their interval (an hour's pay of $3, a month's of $49).

Of several readings, the one in a statement with a pay word or with its interval named wins, then
a range over one figure, then a named interval and currency; among equals, the first.

Why not Babel: `babel.numbers.parse_decimal` reads one number already cut out of the text, in a
locale given by the caller. A posting names no locale (a German posting writes `€65,000` as often
as `65.000 €`), and finding the amounts, their ranges, `k`, the interval and the words beside them
is the hard part, which Babel does not do. The reader is a set of regular expressions (`_money`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

from jobsearch.listing import Salary, SalaryInterval
from jobsearch.salary import _money as m

TEXT_LIMIT: Final = 50_000  # characters read; pay is stated near the top or in a closing section


def _side(n: int) -> str:
    return (
        rf"(?:(?P<c{n}>{m.CURRENCY})\s?)?(?P<n{n}>{m.NUMBER})(?P<k{n}>{m.MULTIPLIER})?"
        rf"(?P<plus{n}>\+)?(?:\s?(?P<p{n}>{m.CURRENCY}))?"
    )


# A hyphen or any dash (en, em, figure, minus), a tilde, or a word.
_SEPARATOR = r"\s*(?:[-\u2012\u2013\u2014\u2212~]|\bto\b|\bbis\b|\band\b|\bund\b)\s*"
# "$60/hr-$80/hr": the first side may name its unit before the range goes on.
_UNIT_BETWEEN = r"(?:\s?/\s?(?:hour|hr|h|month|mo|year|yr)\b)?"
_AMOUNT: Final = re.compile(rf"{_side(1)}(?:{_UNIT_BETWEEN}{_SEPARATOR}{_side(2)})?", re.I)
_CURRENCY_ANYWHERE: Final = re.compile(m.CURRENCY, re.I)
_GROUPED: Final = re.compile(r"\d[.,'\u2019]\d{3}(?!\d)")
_NOT_ALLOWED_IN_GAP: Final = re.compile(r"\b(?:and|und|plus|with|mit|for|für|of|von|or|oder)\b|\+", re.I)
_NOT_ALLOWED_BEFORE: Final = re.compile(r"\b(?:and|und|plus|with|mit|for|für|or|oder)\b|\+", re.I)
_WORD: Final = re.compile(r"[^\W_]")
_CURRENCY_GROUPS: Final = ("c1", "p1", "c2", "p2")
_BY_LOWER: Final = {token.lower(): iso for token, iso in m.CURRENCIES.items()}
_BEFORE_CHARS = 50  # how far before an amount its interval or a perk word is looked for
_AFTER_CHARS = 40
_INTERVAL_GAP = 20  # an interval named after the amount starts within this many characters


@dataclass(frozen=True, slots=True)
class _Amount:
    """One side of a range as written."""

    value: float
    currency: str | None
    multiplied: bool  # had its own k (or TEUR)
    grouped: bool  # written with thousands separators
    large: bool  # millions or billions: pay only in a currency of many to the dollar
    plus: bool
    lakhs: bool = False  # Indian lakhs (100,000 rupees; "LPA", lakhs per annum)


@dataclass(frozen=True, slots=True)
class _Reading:
    salary: Salary
    about_pay: bool
    start: int

    def rank(self) -> tuple[bool, bool, bool, bool, int]:
        s = self.salary
        ranged = s.min is not None and s.max is not None and s.min != s.max
        return (self.about_pay, ranged, s.interval is not None, s.currency is not None, -self.start)


def salary_from_text(text: str | None) -> Salary | None:
    """The pay a posting's text states, or None when it states none (see the module docstring).

    Args:
        text: plain text (a description, a free-text pay field, one line of a posting).

    Returns:
        `Salary(min, max, currency, interval, stated="text")`; min or max is None for "up to" and
        "from" statements, currency None when the text names none.
    """
    if not text:
        return None
    readings: list[_Reading] = []
    offset = 0  # where the segment starts, near enough to order the readings
    for segment in m.SEGMENT_BREAK.split(text[:TEXT_LIMIT]):
        readings.extend(_read_segment(segment, offset))
        offset += len(segment) + 1
    if not readings:
        return None
    return max(readings, key=_Reading.rank).salary


def stated_interval(text: str | None) -> SalaryInterval | None:
    """The pay interval a short text names (`"per hour"`, `"Monatsgehalt"`, `"p.a."`), if any."""
    if not text:
        return None
    hit = m.INTERVAL.search(text)
    return m.interval_of(hit) if hit else None


def inferred_interval(low: float | None, high: float | None) -> SalaryInterval | None:
    """The interval of an amount whose interval nobody named: a year from 10,000 up, else unknown."""
    top = max((v for v in (low, high) if v is not None), default=None)
    return "year" if top is not None and top >= m.YEARLY_FROM else None


class _Segment:
    """One statement of the text; whether it is about pay is asked only when an amount needs it."""

    def __init__(self, text: str) -> None:
        self.text = m.RETIREMENT_PLAN.sub(" retirement plan ", text)

    @functools.cached_property
    def mentions_pay(self) -> bool:
        """A pay word in the statement (salary, Gehalt, brutto...); an interval alone is not one."""
        return bool(m.PAY_WORDS.search(self.text))

    def only(self, match: re.Match[str]) -> bool:
        """Whether the statement is this amount and nothing else (a pay field, a `|` field); a
        currency code before a symbol ("CAD $150k") is part of the amount."""
        start = match.start()
        code = _CODE_BEFORE.search(self.text, 0, start)
        if code is not None and _iso(code.group(1)) is not None:
            start = code.start()
        return not _WORD.search(self.text, 0, start) and not _WORD.search(self.text, match.end())


def _read_segment(text: str, offset: int) -> list[_Reading]:
    segment = _Segment(text)
    out: list[_Reading] = []
    for match in _AMOUNT.finditer(segment.text):
        reading = _salary(segment, match)
        if reading is not None:
            salary, named = reading
            out.append(_Reading(salary, segment.mentions_pay or named, offset + match.start()))
    return out


def _salary(segment: _Segment, match: re.Match[str]) -> tuple[Salary, bool] | None:  # noqa: PLR0911 - one exit per reason
    """The pay `match` states, and whether its interval is named at it; None when it is not pay."""
    multipliers = [(match.group(g) or "").strip() for g in ("k1", "k2")]
    lakhs = any(m.LAKHS.fullmatch(k) and k.lower() != "l" for k in multipliers)
    if not segment.mentions_pay and not lakhs and not any(match.group(g) for g in _CURRENCY_GROUPS):
        return None  # a figure with no currency, in a statement with no pay word: most numbers
    low = _side_amount(match, 1)
    high = _side_amount(match, 2) if match.group("n2") else None
    end = match.end()
    if high is not None:
        low, high = _share_multiplier(low, high)
        if not low.value <= high.value <= low.value * 4:  # "5,000 and 20 days": not a range
            high = None
            end = max(match.end(g) for g in ("n1", "k1", "plus1", "p1") if match.group(g) is not None)
    text = segment.text
    before, after = text[max(0, match.start() - _BEFORE_CHARS) : match.start()], text[end : end + 80]
    currency = _currency(match, before, low, high, after)
    if text[end : end + 1] == "%" or not _millions_are_pay(currency, low, high):
        return None  # funding, revenue; a percentage
    # A bare number: written like pay, not a year or a phone number ("+49 30 ...", "(555) ..."); in
    # a statement with a pay word (checked above); not a count ("60,000 homes"). Only then is a
    # currency named elsewhere in the statement its currency: that one may belong to other money.
    if currency is None and (
        not (low.grouped or low.multiplied) or before.rstrip().endswith(("+", "(")) or m.counted(after)
    ):
        return None
    named, after_interval = _interval(before, after)
    lo, hi = _bounds(before, low, high)  # "up to", "ab": the words just before the amount
    if currency is None:
        currency = _currency_in(text)
    elif not (segment.mentions_pay or named or lo != hi or segment.only(match)):
        return None  # money, but nothing says pay: no pay word, no interval, no range
    if _beside_not_pay(before, after_interval):
        return None
    values = [low.value] if high is None else [low.value, high.value]
    interval = named or inferred_interval(min(values), max(values))
    if interval is None and (max(values) < m.UNNAMED_FROM or not segment.mentions_pay):
        return None
    if interval is not None:
        floor, ceiling = m.PLAUSIBLE[interval]
        scale = m.MANY_PER_DOLLAR.get(currency or "", 1)
        if not all(floor <= v <= ceiling * scale for v in values):
            return None
    return Salary(min=lo, max=hi, currency=currency, interval=interval, stated="text"), named is not None


def _side_amount(match: re.Match[str], n: int) -> _Amount:
    raw = match.group(f"n{n}")
    multiplier = (match.group(f"k{n}") or "").strip().rstrip(".").lower()
    tokens = [t for t in (match.group(f"c{n}"), match.group(f"p{n}")) if t]
    value = m.number_value(raw)
    thousands = multiplier in ("k", "tsd", "thousand", "tausend") or any(
        t.upper() in m.THOUSANDS_CURRENCIES for t in tokens
    )
    rupees = any(_iso(t) == "INR" for t in tokens)
    lakhs = bool(m.LAKHS.fullmatch(multiplier)) and (multiplier != "l" or rupees)
    millions, billions = (
        bool(multiplier) and bool(x.fullmatch(multiplier)) for x in (m.MILLIONS, m.BILLIONS)
    )
    if thousands:
        value *= 1000
    elif lakhs:
        value *= 100_000
    elif millions or billions:
        value *= 1_000_000 if millions else 1_000_000_000
    currency = next((_iso(t) for t in tokens), None) or ("INR" if lakhs else None)
    return _Amount(
        value=value,
        currency=currency,
        multiplied=thousands or lakhs,
        grouped=bool(_GROUPED.search(raw)),
        large=millions or billions,
        plus=bool(match.group(f"plus{n}")),
        lakhs=lakhs,
    )


def _share_multiplier(low: _Amount, high: _Amount) -> tuple[_Amount, _Amount]:
    """`80-95k`: the k written once belongs to both sides; so does a currency written once."""
    if high.multiplied and not low.multiplied and low.value < 1000:
        factor = 100_000 if high.lakhs else 1000
        low = _Amount(low.value * factor, low.currency, True, low.grouped, low.large, low.plus, high.lakhs)
    elif high.large and not low.multiplied and not low.large and low.value < 1000:  # "¥8-12M"
        low = _Amount(low.value * 1_000_000, low.currency, False, low.grouped, True, low.plus)
    elif low.multiplied and not high.multiplied and high.value < 1000:
        factor = 100_000 if low.lakhs else 1000
        high = _Amount(
            high.value * factor, high.currency, True, high.grouped, high.large, high.plus, low.lakhs
        )
    if low.currency is None and high.currency is not None:
        low = _Amount(low.value, high.currency, low.multiplied, low.grouped, low.large, low.plus)
    return low, high


def _interval(before: str, after: str) -> tuple[SalaryInterval | None, str]:
    """The interval named right after the amount (else just before it), and the text after it."""
    after = re.split(r"\d|(?<=[.!?])\s", after, maxsplit=1)[0][:_AFTER_CHARS]
    hit = m.INTERVAL.search(after)
    if hit and hit.start() <= _INTERVAL_GAP and not _NOT_ALLOWED_IN_GAP.search(after[: hit.start()]):
        return m.interval_of(hit), after[hit.end() :]
    before = re.split(r"\d", before)[-1]  # not the interval of an earlier amount
    named = list(m.INTERVAL.finditer(before))
    if not named or _NOT_ALLOWED_BEFORE.search(before, named[-1].end()):
        return None, after  # "... a year for 90,000": the interval is another statement's
    return m.interval_of(named[-1]), after


def _beside_not_pay(before: str, after: str) -> bool:
    """A perk, price, funding or count word right before or after the amount (and no pay word)."""
    before = re.split(r"\d", before)[-1]
    perk = list(m.NOT_PAY_WORDS.finditer(before))
    if perk:
        pay = list(m.PAY_WORDS.finditer(before))
        if not pay or pay[-1].start() < perk[-1].start():
            return True
    for token in after.split()[:3]:
        word = token.strip(".,:;!?\"'")
        if m.NOT_PAY_WORDS.fullmatch(word):
            return True
        if not word or m.PAY_WORDS.search(word) or m.JOINERS.match(word):
            return False
    return False


def _bounds(before: str, low: _Amount, high: _Amount | None) -> tuple[float | None, float | None]:
    if high is not None:
        return low.value, high.value
    if m.UP_TO.search(before):
        return None, low.value
    if low.plus or m.AT_LEAST.search(before):
        return low.value, None
    return low.value, low.value


_CODE_BEFORE: Final = re.compile(r"\b([A-Z]{3})\s*$")
_CODE_AFTER: Final = re.compile(r"^\s*([A-Z]{3})\b")


def _currency(
    match: re.Match[str], before: str, low: _Amount, high: _Amount | None, after: str = ""
) -> str | None:
    """The amount's currency: its own, else its range's other side's; a bare `$` beside the code
    of another dollar ("CAD $150k", "$140k-$170k CAD", "80 000 $ - 95 000 $ CAD") is that dollar."""
    currency = low.currency or (high.currency if high else None)
    if currency != "USD":
        return currency
    tokens = [match.group(g) for g in _CURRENCY_GROUPS if match.group(g)]
    code = _CODE_BEFORE.search(before)
    if code is not None and not before[code.end(1) :].strip():
        tokens.append(code.group(1))
    if (following := _CODE_AFTER.match(after)) is not None:
        tokens.append(following.group(1))
    others = {t for t in tokens if t in m.OTHER_DOLLARS}
    if len(others) == 1 and all(t == "$" or t in others for t in tokens):
        return others.pop()
    return currency


def _millions_are_pay(currency: str | None, low: _Amount, high: _Amount | None) -> bool:
    """Millions are pay only in a currency of many to the dollar, and then a plausible year's."""
    sides = [low] if high is None else [low, high]
    if not any(side.large for side in sides):
        return True
    scale = m.MANY_PER_DOLLAR.get(currency or "")
    return (
        scale is not None
        and scale >= 7
        and all(side.value / scale <= m.MILLIONS_AS_PAY_UP_TO for side in sides)
    )


def _currency_in(segment: str) -> str | None:
    hit = _CURRENCY_ANYWHERE.search(segment)
    return _iso(hit.group(0)) if hit else None


def _iso(token: str) -> str | None:
    return m.CURRENCIES.get(token) or _BY_LOWER.get(token.lower())
