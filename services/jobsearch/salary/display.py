"""A salary as people read it: `€65k-80k / year`, `$45-55 / hour`, `up to $180k / year`.

The euro, dollar and pound are shown by their symbols, every other currency by its ISO code
(`CHF 110k-130k / year`); a range is joined by an en dash; amounts from a thousand up are in `k`.
The interval is always shown: a figure whose interval nobody stated says so, since `€4,500` alone
could be a month or a year.
"""

from __future__ import annotations

from typing import Final

from jobsearch.listing import Salary

SYMBOLS: Final = {"EUR": "€", "USD": "$", "GBP": "£"}
UNKNOWN_INTERVAL: Final = "period not stated"
EN_DASH: Final = "\u2013"


def format_salary(salary: Salary | None) -> str:
    """One line for a salary; "" for None or a salary with no amount."""
    if salary is None or (salary.min is None and salary.max is None):
        return ""
    currency = salary.currency or ""
    prefix = SYMBOLS.get(currency, f"{currency} " if currency else "")
    low, high = salary.min, salary.max
    if low is not None and high is not None and low != high:
        low, high = min(low, high), max(low, high)
        amount = f"{prefix}{_amount(low, like=high)}{EN_DASH}{_amount(high)}"
    elif low is not None and high is None:
        amount = f"{prefix}{_amount(low)}+"
    elif low is None and high is not None:
        amount = f"up to {prefix}{_amount(high)}"
    else:
        amount = f"{prefix}{_amount(low or 0.0)}"
    return f"{amount} / {salary.interval or UNKNOWN_INTERVAL}"


def _amount(value: float, *, like: float | None = None) -> str:
    """`65000` -> `65k`, `65500` -> `65.5k`, `45` -> `45`, `45.5` -> `45.50`.

    `like`: the range's other end; a low end is shown in k when the high end is (`900-1.2k` reads
    worse than `0.9k-1.2k`).
    """
    if value >= 1000 or (like is not None and like >= 1000 and value >= 100):
        thousands = value / 1000
        return f"{thousands:.1f}".rstrip("0").rstrip(".") + "k"
    if value == int(value):
        return str(int(value))
    return f"{value:.2f}"
