"""Pay, read wherever a posting states it and put in one comparable unit.

```python
salary = salary_from_text("€65.000 - €80.000 brutto/Jahr")
# Salary(min=65000.0, max=80000.0, currency="EUR", interval="year", stated="text")
annualised(Salary(min=45, max=55, currency="USD", interval="hour"))  # (93600.0, 114400.0)
format_salary(salary)  # "€65k-80k / year", with an en dash
best_salary([from_the_board, from_the_text])  # the board's field, when it has one
```
Reading pay from text is `text`, a year's pay `annual` (its assumptions in its docstring),
showing pay `display`, choosing between statements `best`.
"""

from __future__ import annotations

from jobsearch.salary.annual import PER_YEAR, annualised
from jobsearch.salary.best import best_salary
from jobsearch.salary.display import format_salary
from jobsearch.salary.text import inferred_interval, salary_from_text, stated_interval

__all__ = [
    "PER_YEAR",
    "annualised",
    "best_salary",
    "format_salary",
    "inferred_interval",
    "salary_from_text",
    "stated_interval",
]
