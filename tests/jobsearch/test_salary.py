"""`jobsearch.salary`: pay read from a posting's text, put in one unit, shown and chosen (no server)."""

# ruff: noqa: RUF001 - en dashes are how postings write ranges: the inputs must carry them as written

from __future__ import annotations

import pytest

from jobsearch.listing import Salary, SalaryInterval
from jobsearch.salary import (
    PER_YEAR,
    annualised,
    best_salary,
    format_salary,
    inferred_interval,
    salary_from_text,
    stated_interval,
)


def text_pay(
    low: float | None, high: float | None, currency: str | None, interval: SalaryInterval | None
) -> Salary:
    return Salary(min=low, max=high, currency=currency, interval=interval, stated="text")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$120k–$150k", text_pay(120_000, 150_000, "USD", "year")),
        ("USD 120,000 - 150,000", text_pay(120_000, 150_000, "USD", "year")),
        ("€65.000 – €80.000 brutto/Jahr", text_pay(65_000, 80_000, "EUR", "year")),
        ("zwischen 48.000 € und 56.000 €", text_pay(48_000, 56_000, "EUR", "year")),
        ("£50,000 per annum", text_pay(50_000, 50_000, "GBP", "year")),
        ("$45/hr", text_pay(45, 45, "USD", "hour")),
        ("CA$95k - CA$115k", text_pay(95_000, 115_000, "CAD", "year")),
        ("7.000 € pro Monat", text_pay(7_000, 7_000, "EUR", "month")),
        ("80-95k EUR", text_pay(80_000, 95_000, "EUR", "year")),
        ("€70k+", text_pay(70_000, None, "EUR", "year")),
        ("up to $180,000", text_pay(None, 180_000, "USD", "year")),
        ("$150,000/year", text_pay(150_000, 150_000, "USD", "year")),
        ("base salary range: $130,000—$160,000 USD", text_pay(130_000, 160_000, "USD", "year")),
        ("60.000 - 70.000 EUR p.a.", text_pay(60_000, 70_000, "EUR", "year")),
        ("CHF 110'000 – 130'000", text_pay(110_000, 130_000, "CHF", "year")),
        # Number formats.
        ("€ 65 000", text_pay(65_000, 65_000, "EUR", "year")),
        ("65.000,- € brutto", text_pay(65_000, 65_000, "EUR", "year")),
        ("65-80 TEUR", text_pay(65_000, 80_000, "EUR", "year")),
        ("USD 45.50/hr", text_pay(45.5, 45.5, "USD", "hour")),
        # Intervals, English and German, after the amount or before it.
        ("$45 per hour", text_pay(45, 45, "USD", "hour")),
        ("45 € an hour", text_pay(45, 45, "EUR", "hour")),
        ("25 € pro Stunde", text_pay(25, 25, "EUR", "hour")),
        ("$60-$70 an hour", text_pay(60, 70, "USD", "hour")),
        ("€500 per day, 5 days a week", text_pay(500, 500, "EUR", "day")),
        ("$2,000 weekly", text_pay(2_000, 2_000, "USD", "week")),
        ("EUR 4,500 gross per month", text_pay(4_500, 4_500, "EUR", "month")),
        ("€4.500 brutto monatlich", text_pay(4_500, 4_500, "EUR", "month")),
        ("Hourly rate: $45", text_pay(45, 45, "USD", "hour")),
        ("Jahresgehalt: 60.000 € bis 70.000 €", text_pay(60_000, 70_000, "EUR", "year")),
        ("bis zu 80.000 € im Jahr", text_pay(None, 80_000, "EUR", "year")),
        ("Gehalt ab 55.000 € p.a.", text_pay(55_000, None, "EUR", "year")),
        ("Vergütung: 75.000 € – 90.000 € (brutto, jährlich)", text_pay(75_000, 90_000, "EUR", "year")),
        # Pay beside other money and numbers in the same text.
        (
            "The role pays $95,000 to $110,000 a year, plus a 10% bonus.",
            text_pay(95_000, 110_000, "USD", "year"),
        ),
        ("Salary: $120k–$150k + bonus + equity", text_pay(120_000, 150_000, "USD", "year")),
        ("Salary $100k, bonus up to $20k", text_pay(100_000, 100_000, "USD", "year")),
        (
            "We raised $40M from investors. Salary: $120k-$150k. 5,000 customers, a $2,000 learning budget.",
            text_pay(120_000, 150_000, "USD", "year"),
        ),
        (
            "Acme | Backend Engineer | Berlin | REMOTE | €90k-€110k | https://acme.example",
            text_pay(90_000, 110_000, "EUR", "year"),
        ),
        # No currency: pay only in a statement about pay, written like pay.
        ("Gehalt: 60.000 - 70.000 brutto", text_pay(60_000, 70_000, None, "year")),
        ("Salary range 120–150k", text_pay(120_000, 150_000, None, "year")),
        # A mid-sized figure with no interval, in a statement about pay: the interval stays unknown.
        ("Gehalt 4.500 €", text_pay(4_500, 4_500, "EUR", None)),
        # What may follow pay: a qualifier, the kind of contract, a bracketed currency; a field alone.
        (
            "Salary: 90,000 - 110,000 (EUR), depending on experience",
            text_pay(90_000, 110_000, "EUR", "year"),
        ),
        ("Gehalt: 58.000 – 66.000 brutto, Vollzeit", text_pay(58_000, 66_000, None, "year")),
        ("Salary: 60k-70k full-time", text_pay(60_000, 70_000, None, "year")),
        ("Salary: 60,000 US dollars", text_pay(60_000, 60_000, "USD", "year")),
        ("Berlin | Data Engineer | 85.000 € | Onsite", text_pay(85_000, 85_000, "EUR", "year")),
        # Pay beside counts: the count is passed over.
        (
            "Our platform serves 60,000 homes.\nCompensation: €70,000–€85,000 a year.",
            text_pay(70_000, 85_000, "EUR", "year"),
        ),
    ],
)
def test_salary_from_text_reads_pay(text: str, expected: Salary) -> None:
    """Each way English and German postings state pay reads as min, max, ISO currency and interval,
    marked as read from text."""
    assert salary_from_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "$40M Series B",
        "€3 million in revenue",
        "We raised $1.2M ARR last year",
        "401(k) match up to $6,000",
        "We serve 10,000 customers in 40 countries",
        "A team of 2,500 employees",
        "Our plans start at $29/month",
        "$25/month per seat",
        "The product costs $12,000 per year",
        "$5,000 learning budget",
        "€1.500 Weiterbildungsbudget pro Jahr",
        "$2,000 home office stipend",
        "a $10,000 signing bonus",
        "$500 monthly wellness allowance",
        "competitive salary and a $5,000 learning budget",
        "Founded in 2026",
        "Salary: 2026",
        "Call +1 (555) 120-1500",
        "Salary questions? Call +49 30 123 456",
        "4.500 €",
        "Pay: 30-40 per hour",
        "",
    ],
)
def test_salary_from_text_ignores_what_is_not_pay(text: str) -> None:
    """Funding, revenue, retirement matches, counts, prices, perks, years, phone numbers and a bare
    amount nobody calls pay give None."""
    assert salary_from_text(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # A number followed by what it counts, even beside a pay word or an interval.
        "Salaries are competitive, and our booking app is used in 45,000 restaurants.",
        "The scheduler starts about 9,000 containers a week.",
        "Our routing engine plans 80.000 deliveries per month for grocers in Europe.",
        "Wir zahlen ein faires Gehalt und betreuen über 12.000 Ferienwohnungen.",
        "Mehr als 8.000 Arztpraxen im Monat buchen Termine über uns.",
        "Rund 40.000 zufriedene Hotels pro Jahr buchen über uns.",
        # Headcount.
        "With a headcount of 1,400 and published salary bands, we are growing fast.",
        "Our 2,300 engineers all share the same salary framework.",
        "Wir sind 1.200 Mitarbeitende, Vergütung nach Tarif.",
        # Money nothing calls pay: no pay word, no interval at it, no range.
        "We have shipped $250,000 of lab equipment to universities.",
        "Seit 2019 haben wir Projekte im Wert von 250.000 € umgesetzt.",
        # A currency elsewhere in the sentence does not make a count money.
        "Our terminals process R$2 billion a year for 75,000 pharmacies and cafés across Brazil.",
        "Salary is paid in EUR, and we look after 12,000 holiday homes.",
    ],
)
def test_salary_from_text_ignores_counts_and_money_that_is_not_pay(text: str) -> None:
    """Counts of things and of people, money in a statement that says nothing of pay, and a count
    in a sentence that names a currency elsewhere give None, in English and German."""
    assert salary_from_text(text) is None


def test_salary_from_text_prefers_the_statement_about_pay() -> None:
    """Of two amounts, the one in a sentence about pay is taken, not the first one."""
    text = "Join a team that shipped $200,000 of hardware.\nCompensation: €60.000 – €70.000 per year."
    assert salary_from_text(text) == text_pay(60_000, 70_000, "EUR", "year")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("per hour", "hour"),
        ("Monatsgehalt", "month"),
        ("p.a.", "year"),
        ("Hourly range", "hour"),
        ("Zone A", None),
    ],
)
def test_stated_interval(text: str, expected: SalaryInterval | None) -> None:
    """The interval a short text names, or None."""
    assert stated_interval(text) == expected


def test_inferred_interval() -> None:
    """An amount of 10,000 or more is a year's pay; a smaller one's interval is unknown."""
    assert inferred_interval(80_000, 95_000) == "year"
    assert inferred_interval(None, 12_000) == "year"
    assert inferred_interval(4_500, 5_000) is None
    assert inferred_interval(None, None) is None


@pytest.mark.parametrize(
    ("salary", "expected"),
    [
        (Salary(min=45, max=55, currency="USD", interval="hour"), (93_600, 114_400)),
        (Salary(min=300, max=400, currency="EUR", interval="day"), (78_000, 104_000)),
        (Salary(min=1_000, max=None, currency="GBP", interval="week"), (52_000, None)),
        (Salary(min=None, max=7_000, currency="EUR", interval="month"), (None, 84_000)),
        (Salary(min=65_000, max=80_000, currency="EUR", interval="year"), (65_000, 80_000)),
        (Salary(min=4_500, max=4_500, currency="EUR", interval=None), (None, None)),
    ],
)
def test_annualised(salary: Salary, expected: tuple[float | None, float | None]) -> None:
    """Per year at 2080 hours, 260 days, 52 weeks, 12 months; unknown interval: not annualised."""
    assert annualised(salary) == expected


def test_annualising_assumptions() -> None:
    """The assumptions are the documented ones: 40 h x 52 weeks, 5 days x 52 weeks."""
    assert PER_YEAR == {"hour": 2080, "day": 260, "week": 52, "month": 12, "year": 1}
    assert annualised(None) == (None, None)


@pytest.mark.parametrize(
    ("salary", "expected"),
    [
        (Salary(min=65_000, max=80_000, currency="EUR", interval="year"), "€65k\u201380k / year"),
        (Salary(min=45, max=55, currency="USD", interval="hour"), "$45\u201355 / hour"),
        (Salary(min=50_000, max=50_000, currency="GBP", interval="year"), "£50k / year"),
        (Salary(min=None, max=180_000, currency="USD", interval="year"), "up to $180k / year"),
        (Salary(min=110_000, max=130_000, currency="CHF", interval="year"), "CHF 110k\u2013130k / year"),
        (Salary(min=70_000, max=None, currency="EUR", interval="year"), "€70k+ / year"),
        (Salary(min=95_500, max=115_000, currency="CAD", interval="year"), "CAD 95.5k\u2013115k / year"),
        (Salary(min=45.5, max=45.5, currency="USD", interval="hour"), "$45.50 / hour"),
        (Salary(min=60_000, max=70_000, currency=None, interval="year"), "60k\u201370k / year"),
        (Salary(min=4_500, max=4_500, currency="EUR", interval=None), "€4.5k / period not stated"),
        (Salary(min=80_000, max=65_000, currency="EUR", interval="year"), "€65k\u201380k / year"),
        (Salary(currency="EUR", interval="year"), ""),
        (None, ""),
    ],
)
def test_format_salary(salary: Salary | None, expected: str) -> None:
    """Symbols for EUR, USD and GBP, else the ISO code; thousands in k; the interval always shown."""
    assert format_salary(salary) == expected


FIELD_RANGE = Salary(min=100_000, max=120_000, currency="USD", interval="year")
FIELD_SINGLE = Salary(min=110_000, max=110_000, currency="USD", interval="year")
TEXT_RANGE = text_pay(100_000, 130_000, "USD", "year")
NO_CURRENCY = Salary(min=100_000, max=120_000, interval="year")
NO_INTERVAL = Salary(min=100_000, max=120_000, currency="USD")


@pytest.mark.parametrize(
    ("salaries", "expected"),
    [
        ([TEXT_RANGE, FIELD_SINGLE], FIELD_SINGLE),  # the board's field over text, even a single figure
        ([FIELD_SINGLE, FIELD_RANGE], FIELD_RANGE),  # a range over one figure
        ([NO_CURRENCY, FIELD_RANGE], FIELD_RANGE),  # a known currency over none
        ([NO_INTERVAL, FIELD_RANGE], FIELD_RANGE),  # a known interval over none
        ([NO_INTERVAL, NO_CURRENCY], NO_INTERVAL),  # currency before interval
        (
            [FIELD_RANGE, Salary(min=1, max=2, currency="USD", interval="year")],
            FIELD_RANGE,
        ),  # first of equals
        ([None, Salary(currency="USD"), TEXT_RANGE], TEXT_RANGE),  # no amount: not a statement of pay
        ([None, Salary()], None),
        ([], None),
    ],
)
def test_best_salary(salaries: list[Salary | None], expected: Salary | None) -> None:
    """Structured over text, a range over a single figure, a known currency and interval over an
    unknown one; the first among equals; None when nothing states an amount."""
    assert best_salary(iter(salaries)) == expected
