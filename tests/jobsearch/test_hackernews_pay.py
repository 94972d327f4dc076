"""Pay as "Who is hiring?" comments state it (`jobsearch.salary.salary_from_text`, extended for
them): a currency by code, symbol or prefix, a dollar named by its code beside a bare `$`, amounts
in millions for currencies of many to the dollar, Indian lakhs, "up to", "+", hourly and monthly
rates (also in Spanish and French)."""

from __future__ import annotations

import pytest

from jobsearch.salary import salary_from_text

CASES = [
    ("CAD $150k-$175k", (150_000, 175_000, "CAD", "year")),
    ("$140k-$170k CAD", (140_000, 170_000, "CAD", "year")),
    ("C$95k-C$120k", (95_000, 120_000, "CAD", "year")),
    ("A$150k-A$175k", (150_000, 175_000, "AUD", "year")),
    ("AUD $120k", (120_000, 120_000, "AUD", "year")),
    ("120-160K USD", (120_000, 160_000, "USD", "year")),
    ("CHF 140'000 - 165'000", (140_000, 165_000, "CHF", "year")),
    ("DKK 55.000-65.000/month", (55_000, 65_000, "DKK", "month")),
    ("35-50 LPA", (3_500_000, 5_000_000, "INR", "year")),
    ("Salary ₹25 lakhs", (2_500_000, 2_500_000, "INR", "year")),
    ("¥8M-¥12M", (8_000_000, 12_000_000, "JPY", "year")),
    ("¥8-12M", (8_000_000, 12_000_000, "JPY", "year")),
    ("₩70M-₩90M", (70_000_000, 90_000_000, "KRW", "year")),
    ("NOK 900k-1.1M", (900_000, 1_100_000, "NOK", "year")),
    ("75.000 - 90.000 €", (75_000, 90_000, "EUR", "year")),
    ("55-70k€", (55_000, 70_000, "EUR", "year")),
    ("Up to $180k", (None, 180_000, "USD", "year")),
    ("$175k+", (175_000, None, "USD", "year")),
    ("$80-$100/hr", (80, 100, "USD", "hour")),
    ("$60/hr-$80/hr", (60, 80, "USD", "hour")),
    ("MXN 70,000-90,000 mensuales", (70_000, 90_000, "MXN", "month")),
    ("KES 400k-550k/month", (400_000, 550_000, "KES", "month")),
    ("sueldo 2.000€ al mes", (2_000, 2_000, "EUR", "month")),
    ("45 000 € par mois", (45_000, 45_000, "EUR", "month")),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_pay_as_comments_state_it(text: str, expected: tuple[float | None, float | None, str, str]) -> None:
    salary = salary_from_text(text)
    assert salary is not None
    assert (salary.min, salary.max, salary.currency, salary.interval) == expected


@pytest.mark.parametrize(
    "text",
    [
        "We raised $5M seed",
        "We raised ¥500M from investors",
        "5M-20M users",
        "3 lakh users",
        "Berlin USD $150k",
    ],
)
def test_money_that_is_not_pay_stays_unread(text: str) -> None:
    """Funding in millions, counts, and an amount inside a sentence with no pay word are not pay."""
    assert salary_from_text(text) is None
