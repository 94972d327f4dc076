"""The page's charts: each one's figures from the queries, drawn as SVG and laid out as a table.

A `Chart` holds everything the page, the CSV download and the report show of one chart: its
title, a sentence saying what it shows (the SVG's `<desc>`), the drawing, the table (the same
figures, the text alternative), and, when there is nothing to draw, what to do next.
"""

from __future__ import annotations

import sqlite3
from typing import Final

import msgspec
from markupsafe import Markup

from jobsearch.insights import pay, queries, svg
from jobsearch.listing import Salary
from jobsearch.salary import format_salary

Cell = str | int
NO_LISTINGS: Final = (
    "No listings yet. Run a search (`jobsearch run --profile PROFILE`): every listing it finds "
    "shows here the next time you load this page."
)


class Chart(msgspec.Struct, kw_only=True, frozen=True):
    """One chart: drawing, table and words."""

    key: str  # its id on the page and its CSV's name: /insights/<key>.csv
    title: str
    desc: str
    header: list[str]
    rows: list[list[Cell]]
    svg: str = ""  # Markup text; "" when there is nothing to draw
    empty: str = ""  # what to do next, when there is nothing to draw
    note: str = ""  # what the figures leave out

    @property
    def drawing(self) -> Markup:
        """The SVG as markup (built by `jobsearch.insights.svg`, which escapes every text)."""
        return Markup(self.svg)


def _percent(share: float | None) -> str:
    return "" if share is None else f"{share:.0%}"


def found_chart(found: queries.FoundPerDay) -> Chart:
    """Listings found per day, stacked by board."""
    header = ["day", *found.boards, "total"]
    rows: list[list[Cell]] = [
        [day, *(found.found.get(day, {}).get(b, 0) for b in found.boards), found.new(day)]
        for day in found.days
    ]
    chart = Chart(
        key="found",
        title="Listings found per day, by board",
        header=header,
        rows=rows,
        desc="",
        empty=NO_LISTINGS,
    )
    if not any(found.new(day) for day in found.days):
        return chart
    busiest = max(found.days, key=found.new)
    total = sum(map(found.new, found.days))
    desc = (
        f"Stacked bars, one per day from {found.days[0]} to {found.days[-1]}: {total} "
        f"listings found on {len(found.boards)} board(s); the most, {found.new(busiest)}, on {busiest}."
    )
    values = [[found.found.get(day, {}).get(b, 0) for b in found.boards] for day in found.days]
    days = [d[5:] for d in found.days]
    drawing = svg.bars("found", chart.title, desc, categories=days, series=found.boards, values=values)
    return msgspec.structs.replace(chart, desc=desc, svg=str(drawing), empty="")


def seen_chart(found: queries.FoundPerDay) -> Chart:
    """New listings against postings of known listings seen again, per day."""
    rows: list[list[Cell]] = [[day, found.new(day), found.seen_again.get(day, 0)] for day in found.days]
    chart = Chart(
        key="seen",
        title="New listings and listings seen again, per day",
        header=["day", "new (first seen that day)", "seen again"],
        rows=rows,
        desc="",
        empty=NO_LISTINGS,
        note="Seen again: postings of listings already known (merged, updated or unchanged), "
        "from the summaries of that day's runs.",
    )
    if not found.days:
        return chart
    new, again = sum(map(found.new, found.days)), sum(found.seen_again.values())
    desc = (
        f"Bars side by side per day from {found.days[0]} to {found.days[-1]}: {new} listings first seen, "
        f"{again} postings of known listings seen again."
    )
    values = [[found.new(day), found.seen_again.get(day, 0)] for day in found.days]
    days = [d[5:] for d in found.days]
    series = ["new", "seen again"]
    drawing = svg.bars(
        "seen", chart.title, desc, categories=days, series=series, values=values, stacked=False
    )
    return msgspec.structs.replace(chart, desc=desc, svg=str(drawing), empty="")


def funnel_chart(stages: list[queries.Stage]) -> Chart:
    """found → Drafted → Applied → Screen/Interview → Offer, with conversion rates."""
    rows: list[list[Cell]] = [
        [s.name, s.count, _percent(s.of_previous), _percent(s.of_found)] for s in stages
    ]
    chart = Chart(
        key="funnel",
        title="From found to offer",
        header=["stage", "listings", "of the stage before", "of found"],
        rows=rows,
        desc="",
        empty=NO_LISTINGS,
        note="A listing counts at every stage its status history reached: an Interview "
        "counts as applied and drafted too.",
    )
    if not stages or not stages[0].count:
        return chart
    steps = "; ".join(
        f"{s.name} {s.count}"
        + (f" ({_percent(s.of_previous)} of the stage before)" if s.of_previous is not None else "")
        for s in stages
    )
    desc = f"A funnel of listings by the furthest status reached: {steps}."
    top = stages[0].count
    bars = [
        svg.HBar(
            label=s.name,
            share=s.count / top,
            text=f"{s.count}" + (f" · {_percent(s.of_previous)}" if s.of_previous is not None else ""),
        )
        for s in stages
    ]
    return msgspec.structs.replace(
        chart, desc=desc, svg=str(svg.hbars("funnel", chart.title, desc, bars)), empty=""
    )


def answers_chart(key: str, by: str, rates: list[queries.AnswerRate]) -> Chart:
    """The share of applications answered (Screen, Interview, Offer or Rejected) per source or board."""
    rows: list[list[Cell]] = [[r.name, r.applied, r.answered, _percent(r.rate)] for r in rates]
    chart = Chart(
        key=key,
        title=f"Answers to applications, by {by}",
        header=[by, "applied", "answered", "answer rate"],
        rows=rows,
        desc="",
        empty="Nothing applied to yet. When you apply, set the listing's status to Applied "
        "(on its page here, in the tracker, or `jobsearch mark ID Applied`); set Screen, "
        "Interview, Offer or Rejected when they answer.",
        note="Answered: Screen, Interview, Offer or Rejected after applying. A listing posted "
        f"on several {by}s counts for each.",
    )
    if not rates:
        return chart
    desc = f"Horizontal bars, one per {by}: " + "; ".join(
        f"{r.name} {r.answered} of {r.applied} answered ({_percent(r.rate)})" for r in rates
    )
    bars = [
        svg.HBar(label=r.name, share=r.rate, text=f"{_percent(r.rate)} ({r.answered} of {r.applied})")
        for r in rates
    ]
    return msgspec.structs.replace(
        chart, desc=desc + ".", svg=str(svg.hbars(key, chart.title, desc, bars)), empty=""
    )


def fit_chart(spread: pay.FitSpread) -> Chart:
    """How many listings fall in each fit bucket: all found, and those applied to."""
    labels = [f"{low}-{high}" for low, high in pay.FIT_BUCKETS]
    rows: list[list[Cell]] = [
        [label, f, a] for label, f, a in zip(labels, spread.found, spread.applied, strict=True)
    ]
    note = f"{spread.unscored} listing(s) have no fit score and are not counted." if spread.unscored else ""
    chart = Chart(
        key="fit",
        title="Fit of the listings found and of those applied to",
        header=["fit", "found", "applied to"],
        rows=rows,
        desc="",
        note=note,
        empty="No listing has a fit score yet: the next run scores every listing it finds "
        "against your profile.",
    )
    if not sum(spread.found):
        return chart
    desc = (
        f"Bars side by side per fit bucket (0-9 to 90-100): {sum(spread.found)} listings found, "
        f"{sum(spread.applied)} applied to; "
        + "; ".join(f"{r[0]}: {r[1]} found, {r[2]} applied" for r in rows if r[1])
    )
    drawing = svg.bars(
        "fit",
        chart.title,
        desc + ".",
        categories=labels,
        series=["found", "applied to"],
        values=[[f, a] for f, a in zip(spread.found, spread.applied, strict=True)],
        stacked=False,
    )
    return msgspec.structs.replace(chart, desc=desc + ".", svg=str(drawing), empty="")


def _yearly(low: float, high: float, currency: str) -> str:
    return format_salary(
        Salary(min=low, max=high, currency=None if currency == "?" else currency, interval="year")
    )


def pay_chart(spread: pay.PaySpread) -> Chart:
    """Annual pay ranges by place (Remote, else the first location), per currency."""
    rows: list[list[Cell]] = [
        [
            r.place,
            r.currency,
            r.listings,
            round(r.low),
            round(r.high),
            round(r.median),
            _yearly(r.low, r.high, r.currency),
        ]
        for r in spread.ranges
    ]
    left_out = []
    if spread.no_period:
        left_out.append(f"{spread.no_period} listing(s) state pay without a period and are left out")
    drawn = spread.ranges[: pay.PLACES_SHOWN]
    if len(spread.ranges) > len(drawn):
        left_out.append(
            f"the drawing shows the {len(drawn)} places with the most listings; the table has all"
        )
    chart = Chart(
        key="pay",
        title="Pay by place, per year",
        header=["place", "currency", "listings", "lowest", "highest", "median middle", "range"],
        rows=rows,
        desc="",
        note="; ".join(left_out) + ("." if left_out else ""),
        empty="No listing states its pay yet. Boards that publish pay (Greenhouse, Ashby, "
        "RemoteOK, ...) fill this in; the pipeline also reads pay from the posting's text.",
    )
    if not spread.ranges:
        return chart
    desc = "Ranges of annual pay, one per place and currency: " + "; ".join(
        f"{r.place}: {_yearly(r.low, r.high, r.currency)} over {r.listings} listing(s)" for r in spread.ranges
    )
    bars = [
        svg.Span(
            label=f"{r.place} ({r.currency})",
            low=r.low,
            high=r.high,
            middle=r.median,
            text=f"{_yearly(r.low, r.high, r.currency).removesuffix(' / year')} · {r.listings}",
        )
        for r in drawn
    ]
    return msgspec.structs.replace(
        chart, desc=desc + ".", svg=str(svg.spans("pay", chart.title, desc, bars)), empty=""
    )


def all_charts(conn: sqlite3.Connection) -> list[Chart]:
    """Every chart of the page, in its order, from the state of record on `conn`."""
    found = queries.found_per_day(conn)
    return [
        found_chart(found),
        seen_chart(found),
        funnel_chart(queries.funnel(conn)),
        answers_chart("answers-source", "source", queries.answer_rates(conn, "source")),
        answers_chart("answers-board", "board", queries.answer_rates(conn, "board")),
        fit_chart(pay.fit_spread(conn)),
        pay_chart(pay.pay_spread(conn, places=10_000)),
    ]


CHART_KEYS: Final = ("found", "seen", "funnel", "answers-source", "answers-board", "fit", "pay")
