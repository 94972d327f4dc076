"""A salary as a year's pay, so that pay stated per hour, day, week, month or year compares.

The assumptions, in one place:

| interval | per year | why |
|---|---|---|
| hour | 2080 | 40 hours a week for 52 weeks |
| day | 260 | 5 working days a week for 52 weeks |
| week | 52 | |
| month | 12 | |
| year | 1 | |

Paid leave, overtime and a thirteenth month's pay are not counted: the figure is the stated rate
times the periods in a year, no more. A salary whose interval is unknown is not annualised.
"""

from __future__ import annotations

from typing import Final

from jobsearch.listing import Salary, SalaryInterval

HOURS_PER_YEAR: Final = 2080  # 40 h x 52 weeks
DAYS_PER_YEAR: Final = 260  # 5 days x 52 weeks
WEEKS_PER_YEAR: Final = 52
MONTHS_PER_YEAR: Final = 12
PER_YEAR: Final[dict[SalaryInterval, int]] = {
    "hour": HOURS_PER_YEAR,
    "day": DAYS_PER_YEAR,
    "week": WEEKS_PER_YEAR,
    "month": MONTHS_PER_YEAR,
    "year": 1,
}


def annualised(salary: Salary | None) -> tuple[float | None, float | None]:
    """The salary's (min, max) per year; (None, None) when its interval is unknown.

    A missing bound stays missing: "up to $180k" is (None, 180000.0).
    """
    if salary is None or salary.interval is None:
        return None, None
    factor = PER_YEAR[salary.interval]
    return (
        salary.min * factor if salary.min is not None else None,
        salary.max * factor if salary.max is not None else None,
    )
