"""Of several statements of one job's pay (its boards' fields, its text), the one that states it best."""

from __future__ import annotations

from collections.abc import Iterable

from jobsearch.listing import Salary


def best_salary(salaries: Iterable[Salary | None]) -> Salary | None:
    """The salary that states pay best, or None when none states any amount.

    Best is, in this order: the board's structured field over a figure read from text; a range over
    a single figure; a known currency, then a known interval, over an unknown one. Among equals,
    the first given.
    """
    best: Salary | None = None
    best_rank: tuple[bool, bool, bool, bool] | None = None
    for salary in salaries:
        if salary is None or (salary.min is None and salary.max is None):
            continue
        rank = _rank(salary)
        if best_rank is None or rank > best_rank:
            best, best_rank = salary, rank
    return best


def _rank(salary: Salary) -> tuple[bool, bool, bool, bool]:
    ranged = salary.min is not None and salary.max is not None and salary.min != salary.max
    return (salary.stated == "field", ranged, salary.currency is not None, salary.interval is not None)
