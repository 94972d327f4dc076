"""Fit and pay across the listings: the fit distribution, and salary ranges by place.

Read-only SQL over `listings` and `status_history`. Pay is annualised as the rest of the pipeline
does it (`jobsearch.salary.annualised`: per hour x 2080, per day x 260, ...); a salary whose
period nobody stated is left out and counted. Amounts in different currencies are never
combined: a place's range is per currency.
"""

from __future__ import annotations

import sqlite3
import statistics
from collections import defaultdict
from typing import Final

import msgspec

from jobsearch.insights.queries import APPLIED
from jobsearch.listing import Salary
from jobsearch.salary import annualised

FIT_BUCKETS: Final = tuple((low, low + 9 if low < 90 else 100) for low in range(0, 100, 10))
REMOTE: Final = "Remote"
NO_PLACE: Final = "(no place given)"
PLACES_SHOWN: Final = 12
_SALARY = msgspec.json.Decoder(Salary)
_STRINGS = msgspec.json.Decoder(list[str])


class FitSpread(msgspec.Struct, kw_only=True, frozen=True):
    """How many listings fall in each fit bucket (0-9 .. 90-100): all found, and those applied to."""

    found: list[int]
    applied: list[int]
    unscored: int  # listings found with no fit (found before fit existed, or never scored)


class PayRange(msgspec.Struct, kw_only=True, frozen=True):
    """The annual pay stated by the listings of one place, in one currency."""

    place: str
    currency: str
    listings: int
    low: float  # the lowest annual figure stated
    high: float  # the highest
    median: float  # the median of each listing's middle


class PaySpread(msgspec.Struct, kw_only=True, frozen=True):
    """Pay ranges by place, and what could not be shown."""

    ranges: list[PayRange]
    no_period: int  # listings with pay whose period was not stated
    without_pay: int
    more_places: int  # places beyond the ones shown


def fit_spread(conn: sqlite3.Connection) -> FitSpread:
    """The fit distribution of every listing found, and of those applied to."""
    found = [0] * len(FIT_BUCKETS)
    applied = [0] * len(FIT_BUCKETS)
    marks = ", ".join("?" * len(APPLIED))
    rows = conn.execute(
        "SELECT l.fit, EXISTS (SELECT 1 FROM status_history h WHERE h.listing_id = l.id"
        f" AND h.status IN ({marks})) FROM listings l",
        APPLIED,
    )
    unscored = 0
    for fit, was_applied in rows:
        if not isinstance(fit, int):
            unscored += 1
            continue
        bucket = min(max(fit, 0) // 10, len(FIT_BUCKETS) - 1)  # 100 joins 90-99
        found[bucket] += 1
        if was_applied:
            applied[bucket] += 1
    return FitSpread(found=found, applied=applied, unscored=unscored)


def place_of(remote: int | None, workplace: str | None, locations_json: str) -> str:
    """The place a listing's pay is grouped by: Remote, else its first location."""
    if workplace == "remote" or (workplace is None and remote == 1):
        return REMOTE
    try:
        places = _STRINGS.decode(locations_json)
    except msgspec.DecodeError:
        places = []
    first = next((p.strip() for p in places if p.strip()), "")
    return first or NO_PLACE


def pay_spread(conn: sqlite3.Connection, *, places: int = PLACES_SHOWN) -> PaySpread:
    """Annual pay by place (Remote, else the first location) and currency: the most listed first."""
    middles: dict[tuple[str, str], list[float]] = defaultdict(list)
    lows: dict[tuple[str, str], float] = {}
    highs: dict[tuple[str, str], float] = {}
    no_period = without_pay = 0
    for salary_json, remote, workplace, locations in conn.execute(
        "SELECT salary, remote, workplace, locations FROM listings WHERE status != 'Dismissed'"
    ):
        salary = _salary(salary_json)
        if salary is None:
            without_pay += 1
            continue
        low, high = annualised(salary)
        if low is None and high is None:
            no_period += 1
            continue
        low = low if low is not None else high
        high = high if high is not None else low
        assert low is not None
        assert high is not None
        low, high = min(low, high), max(low, high)
        key = (place_of(remote, workplace, locations), salary.currency or "?")
        middles[key].append((low + high) / 2)
        lows[key] = min(lows.get(key, low), low)
        highs[key] = max(highs.get(key, high), high)
    ordered = sorted(middles, key=lambda k: (-len(middles[k]), k))
    ranges = [
        PayRange(
            place=place,
            currency=currency,
            listings=len(middles[(place, currency)]),
            low=lows[(place, currency)],
            high=highs[(place, currency)],
            median=statistics.median(middles[(place, currency)]),
        )
        for place, currency in ordered[:places]
    ]
    return PaySpread(
        ranges=ranges, no_period=no_period, without_pay=without_pay, more_places=max(len(ordered) - places, 0)
    )


def _salary(text: str | None) -> Salary | None:
    if not text:
        return None
    try:
        salary = _SALARY.decode(text)
    except msgspec.DecodeError:
        return None
    return salary if salary.min is not None or salary.max is not None else None
