"""The vocabulary of pay in a posting's text: currencies, numbers, intervals and the words around them.

Internal to `jobsearch.salary`: `text.py` builds its reader from these. English and German are
covered (and the words for salary in Portuguese and Spanish); a currency is named by its symbol
(`$`, `€`, `£`, `CA$`...), its ISO 4217 code (`USD`, `CHF`...) or a word (`Euro`, `US dollars`).
"""

from __future__ import annotations

import re
from typing import Final

from jobsearch.listing import SalaryInterval

# Symbol, code or word -> ISO 4217. A bare `$` is read as US dollars: the boards that say
# otherwise write `CA$`, `A$` or a code.
CURRENCIES: Final[dict[str, str]] = {
    "$": "USD", "US$": "USD", "USD": "USD", "dollars": "USD", "dollar": "USD", "Dollars": "USD",
    "Dollar": "USD", "US dollars": "USD", "Canadian dollars": "CAD", "Australian dollars": "AUD",
    "CA$": "CAD", "C$": "CAD", "CAD": "CAD",
    "AU$": "AUD", "A$": "AUD", "AUD": "AUD",
    "NZ$": "NZD", "NZD": "NZD",
    "S$": "SGD", "SGD": "SGD", "HK$": "HKD", "HKD": "HKD",
    "€": "EUR", "EUR": "EUR", "euro": "EUR", "euros": "EUR", "Euro": "EUR", "Euros": "EUR",
    "TEUR": "EUR", "T€": "EUR",  # German "thousand euros"
    "£": "GBP", "GBP": "GBP",
    "CHF": "CHF", "SFr.": "CHF",
    "SEK": "SEK", "NOK": "NOK", "DKK": "DKK", "PLN": "PLN", "zł": "PLN", "CZK": "CZK", "HUF": "HUF",
    "¥": "JPY", "JPY": "JPY", "₹": "INR", "INR": "INR", "R$": "BRL", "BRL": "BRL", "MXN": "MXN",
    "ZAR": "ZAR", "₪": "ILS", "ILS": "ILS",
    "₩": "KRW", "KRW": "KRW", "KES": "KES", "KSh": "KES", "NT$": "TWD", "TWD": "TWD", "₱": "PHP",
    "฿": "THB", "THB": "THB", "IDR": "IDR", "₦": "NGN", "NGN": "NGN", "RON": "RON", "₴": "UAH",
    "UAH": "UAH", "₺": "TRY", "ARS": "ARS", "CLP": "CLP", "COP": "COP", "AED": "AED", "CNY": "CNY",
    "RMB": "CNY", "PKR": "PKR", "EGP": "EGP",
}  # fmt: skip
# A bare `$` next to a code of another dollar ("CAD $150k", "$140k-$170k CAD") is that dollar.
OTHER_DOLLARS: Final = frozenset({"CAD", "AUD", "NZD", "SGD", "HKD", "MXN", "TWD", "ARS", "CLP", "COP"})
# Roughly how many of a currency make a US dollar, where it is many: its salaries are stated in
# millions ("¥8M-¥12M", "₩70M", "NOK 1.1M"), which in dollars or euros would be funding.
MANY_PER_DOLLAR: Final[dict[str, float]] = {
    "JPY": 150, "KRW": 1400, "INR": 85, "HUF": 360, "CLP": 900, "COP": 4000, "IDR": 16000,
    "KES": 130, "NGN": 1500, "PHP": 56, "THB": 35, "TWD": 32, "ARS": 900, "PKR": 280, "EGP": 48,
    "SEK": 10, "NOK": 10, "DKK": 7, "CZK": 23, "MXN": 18, "ZAR": 18, "UAH": 41, "CNY": 7,
}  # fmt: skip
MILLIONS_AS_PAY_UP_TO: Final = 1_000_000  # dollars: a figure in millions above this is not pay
THOUSANDS_CURRENCIES: Final = frozenset({"TEUR", "T€"})


def _alternatives(tokens: list[str]) -> str:
    return "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True))  # CA$ before $


# A code or word is a whole word ("EUR" in "Europe" is not a currency); a symbol stands anywhere.
# Case matters (`(?-i:`), and the lookahead on first characters lets the many places where no
# currency starts fail at once: the reader runs over whole descriptions.
_FIRST_CHARACTERS = "".join(sorted({re.escape(t[0]) for t in CURRENCIES}))
CURRENCY: Final = (
    rf"(?-i:(?=[{_FIRST_CHARACTERS}])"
    rf"(?:{_alternatives([t for t in CURRENCIES if not t[-1].isalpha()])}"
    rf"|(?<![^\W\d_])(?:{_alternatives([t for t in CURRENCIES if t[-1].isalpha()])})(?![^\W\d_])))"
)

# 120,000 / 120.000 / 120 000 / 110'000 / 120000 / 45.50 / 1,5 / 65.000,- ; grouping is three
# digits after the separator, a decimal part one or two.
NUMBER: Final = (
    r"(?<![\d.,])(?:\d{1,3}(?:(?:[.,'\u2019]|[ \u00a0\u202f])\d{3})+|\d+)"
    r"(?:[.,]\d{1,2})?(?:,[-\u2013])?(?![\d])"
)
# k = thousand; M/Mio/million and bn/Mrd: amounts no salary is stated in (funding, revenue).
MULTIPLIER: Final = (
    r"(?:\s?(?:k|tsd\.?|thousand|tausend)|\s?(?:lpa|lakhs?|lacs?|l)|\s?(?:m|mio\.?|mn|millions?|millionen)"
    r"|\s?(?:b|bn|billions?|mrd\.?|milliarden?))(?![^\W\d_])"
)
MILLIONS: Final = re.compile(r"m|mio|mn|million|millions|millionen", re.I)
# Indian pay is stated in lakhs (100,000 rupees), "LPA" being lakhs per annum.
LAKHS: Final = re.compile(r"lpa|lakhs?|lacs?|l", re.I)  # "L" only with a rupee: "₹35L"
BILLIONS: Final = re.compile(r"b|bn|billions?|mrd|milliarden?", re.I)

# How an interval is named: "per"/"a"/"pro"... or "/" before a unit, or a word of its own. One
# pattern with a group per interval (`match.lastgroup`), since it runs around every amount.
_UNITS: Final[dict[SalaryInterval, str]] = {
    "hour": r"hour|hr|h|stunde|std\.?",
    "day": r"day|tag",
    "week": r"week|wk|woche",
    "month": r"month|mo|monat|mes|mois|månad|mån",
    "year": r"year|yr|y|annum|jahr|año|an",
}
_WORDS: Final[dict[SalaryInterval, str]] = {
    "hour": r"hourly|stündlich|stunden(?:lohn|satz)",
    "day": r"daily|day[- ]rate|tages(?:satz|lohn)",
    "week": r"weekly|wöchentlich",
    "month": r"monthly|monatlich|mtl\.|monats\w*|mensual(?:es)?|mensuel(?:le)?s?|mensais?",
    "year": r"p\.\s?a\.?|pa|annual(?:ly)?|yearly|jährlich|jahres\w*|anual(?:es)?|annuel(?:le)?s?",
}
INTERVAL: Final = re.compile(
    r"(?:/\s?|\b(?:per|an?|pro|je|im|por|par|al)\s+)(?:"
    + "|".join(f"(?P<{name}>{units})" for name, units in _UNITS.items())
    + r")(?![^\W\d_])|\b(?:"
    + "|".join(f"(?P<{name}_word>{words})" for name, words in _WORDS.items())
    + r")(?![^\W\d_])",
    re.I,
)


def interval_of(match: re.Match[str]) -> SalaryInterval:
    """The interval an `INTERVAL` match names."""
    name = (match.lastgroup or "").removesuffix("_word")
    return next(interval for interval in _UNITS if interval == name)


# Words that make a sentence about pay (an interval alone does not: "9,000 builds a week").
# German compounds end in their pay word (Jahresgehalt, Stundenlohn): those match inside a word.
PAY_WORDS: Final = re.compile(
    r"\b(?:salar(?:y|ies)|pay|pays|paying|compensation|comp|wages?|base|ote|remuneration|income|earnings"
    r"|rate|vergütung|entgelt|brutto\w*|verdien\w*|einkommen|salário|salario|salarial|sueldo"
    r"|remuneração|remuneración)\b|gehalt|lohn\b",
    re.I,
)
# Words that make a money amount something other than pay: a perk, a price, funding, a count.
NOT_PAY_WORDS: Final = re.compile(
    r"\b(?:budgets?|stipends?|allowances?|bonus(?:es)?|signing|sign-on|match(?:ing|ed)?|retirement|pension"
    r"|equity|stock|options?|rsus?|funding|funded|raised?|raising|revenue|arr|valuation|series|seed"
    r"|invest(?:ment|ors?|ed)?|customers?|clients?|users?|employees|people|members|downloads"
    r"|prices?|priced|pricing|costs?|subscriptions?|fees?|reimburse\w*|relocation|referral|credits?"
    r"|grants?|prizes?|awards?|donat\w*|sales|turnover|profit"
    r"|headcount"
    r"|zuschuss|zuschüsse|prämien?|umsatz|finanzierung\w*|kunden|nutzer|mitarbeiter\w*|mitarbeitende\w*"
    r"|beschäftigte\w*|preis\w*"
    r"|kostet|kosten|erstattung|weiterbildung\w*)\b",
    re.I,
)
CURRENCY_WORD: Final = re.compile(CURRENCY, re.I)
# The words that may stand right after an amount of pay, besides a currency, an interval and a pay
# word: a range or list joined on, what the figure includes, what it depends on, and punctuation.
# After a figure with no currency of its own, any other word makes it a count: "60,000 homes",
# "3.000 Campingplätze", "1,200 engineers" (`counted`).
_FOLLOWS_PAY: Final = re.compile(
    r"(?:to|and|or|plus|with|bis|und|oder|mit|zzgl|inkl|incl|including|inclusive|excluding|exkl"
    r"|gross|net|netto|total|fixed|fix|fixum|cash|range|band|depending|dependent|based|doe|negotiable"
    r"|verhandelbar|je|nach|in|is|for|at|fte|pro|rata|before|pre|tax|taxes"
    r"|full|part|remote|hybrid|onsite|on|contract|permanent|vollzeit|teilzeit|festanstellung)",
    re.I,
)
_WORD_AFTER: Final = re.compile(r"\s*([^\W\d_][^\W\d_\-]*)")


def counted(after: str) -> bool:
    """Whether the word right after an amount makes it a count of something, not money.

    `after` is the text right after the amount (its currency and `k` included in the amount).
    Punctuation, the end of the text, a currency, an interval, a pay word or a `_FOLLOWS_PAY` word
    leave it an amount; any other word (a noun, an adjective before one) makes it a count.
    """
    word = _WORD_AFTER.match(after)
    if word is None:
        return False
    token = word.group(1)
    if CURRENCY_WORD.fullmatch(token) or _FOLLOWS_PAY.fullmatch(token) or PAY_WORDS.search(token):
        return False
    hit = INTERVAL.match(after, word.start(1))
    return hit is None


# "401(k)" is a retirement plan, not 401 thousand: read as the word before the numbers are read.
RETIREMENT_PLAN: Final = re.compile(r"\b401\s?\(?k\)?", re.I)
JOINERS: Final = re.compile(r"^(?:and|und|plus|with|mit|or|oder|&|\+|,|;|\(|\))$", re.I)
UP_TO: Final = re.compile(
    r"(?:\bup\s+to|\bbis\s+zu|\bmax(?:imum|\.)?|\bhöchstens|\bno\s+more\s+than)\s*:?\s*$", re.I
)
AT_LEAST: Final = re.compile(
    r"(?:\bfrom|\bab|\bstarting\s+(?:at|from)|\bat\s+least|\bmindestens|\bmin(?:imum|\.)?)\s*:?\s*$", re.I
)
# Where one statement ends: a line, a sentence, a bullet, a `|`-separated field.
SEGMENT_BREAK: Final = re.compile(r"\n+|(?<=[.!?;])\s+(?=[A-ZÄÖÜ(])|\s+[|•·]\s+")

# Amounts a salary is plausibly stated in, per interval: outside, the figure is something else
# (a product's price per month, a count per year).
PLAUSIBLE: Final[dict[SalaryInterval, tuple[float, float]]] = {
    "hour": (5, 2_000),
    "day": (30, 20_000),
    "week": (100, 50_000),
    "month": (300, 200_000),
    "year": (5_000, 5_000_000),
}
YEARLY_FROM: Final = 10_000  # an amount this large with no interval named is a year's pay
UNNAMED_FROM: Final = 300  # below this, an amount with no interval named is not read as pay


def number_value(raw: str) -> float:
    """The value of a number as written in English or German (`120,000`, `65.000,-`, `1,5`)."""
    raw = raw.rstrip("-\u2013").rstrip(",")
    raw = re.sub(r"[ \u00a0\u202f'\u2019]", "", raw)
    # A separator followed by exactly three digits groups thousands; by one or two, it is decimal.
    decimal = re.search(r"[.,](\d{1,2})$", raw)
    fraction = ""
    if decimal is not None:
        fraction = decimal.group(1)
        raw = raw[: decimal.start()]
    whole = re.sub(r"[.,]", "", raw)
    return float(f"{whole}.{fraction}" if fraction else whole)
