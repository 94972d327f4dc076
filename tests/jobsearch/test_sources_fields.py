"""Every field a board gives comes through: workplace, salary (the board's field, else the text), all
locations, employment type, department and the count of hidden parts.

Against a real local HTTP server, as `test_sources_boards.py`: the payloads are the fixtures in
`fixtures/` (each board's documented shape) and variants of them built here.
"""

# ruff: noqa: RUF001 - en dashes are how postings write ranges: the inputs must carry them as written

from __future__ import annotations

import copy
import html
from typing import Any

from jobsearch.listing import Listing, Salary, SalaryInterval
from jobsearch.profile import (
    Arbeitnow,
    Ashby,
    Greenhouse,
    HackerNews,
    Lever,
    RemoteOK,
    Remotive,
    Rss,
    SmartRecruiters,
    Workable,
)
from jobsearch.sources import Fetched, fetch_source
from tests.http_target import HttpTarget
from tests.jobsearch.boards import board, client, fixture_json, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

GREENHOUSE = "/v1/boards/{}/jobs?content=true&pay_transparency=true"
LEVER = "/v0/postings/{}?mode=json&skip=0&limit=100"
ASHBY = "/posting-api/job-board/{}?includeCompensation=true"


def by_id(fetched: Fetched) -> dict[str, Listing]:
    return {listing.external_id: listing for listing in fetched.listings}


def text_pay(
    low: float | None, high: float | None, currency: str | None, interval: SalaryInterval | None
) -> Salary:
    return Salary(min=low, max=high, currency=currency, interval=interval, stated="text")


async def read(source: Any) -> dict[str, Listing]:
    async with client() as http:
        return by_id(await fetch_source(http, source))


async def test_greenhouse_pay_ranges_offices_and_workplace(board: HttpTarget) -> None:
    """Greenhouse: the pay zones (in cents) become one yearly range, the board's own field; the
    workplace is read from the location text; offices join the locations; a job without pay zones
    gets the pay its text states; a zone titled hourly is hourly; a hidden part is left out and
    counted."""
    board.script(GREENHOUSE.format("acme"), ok_file("greenhouse_jobs.json"))
    hybrid = {
        "id": 77,
        "title": "Site Reliability Engineer",
        "absolute_url": "https://boards.greenhouse.io/acme/jobs/77",
        "location": {"name": "Hybrid - Munich"},
        "offices": [{"id": 1, "name": "Munich", "location": "Munich, Germany"}, {"id": 2, "name": "Vienna"}],
        "departments": [{"id": 3, "name": "Platform"}, {"id": 4, "name": "Infrastructure"}],
        "content": html.escape("<p>Keep it up.</p><p>Salary: €70.000 – €85.000 brutto/Jahr</p>"),
    }
    hourly = {
        "id": 78,
        "title": "Warehouse Associate",
        "absolute_url": "https://boards.greenhouse.io/acme/jobs/78",
        "location": {"name": "On-site, Austin, TX"},
        "pay_input_ranges": [
            {"min_cents": 2200, "max_cents": 2600, "currency_type": "USD", "title": "Hourly pay range"}
        ],
    }
    board.script(GREENHOUSE.format("more"), ok_json({"jobs": [hybrid, hourly], "meta": {"total": 2}}))
    jobs = await read(Greenhouse(token="acme", base_url=board.url("")))
    more = await read(Greenhouse(token="more", base_url=board.url("")))
    lead = jobs["4012345"]
    assert lead.salary == Salary(min=80_000, max=95_000, currency="EUR", interval="year", stated="field")
    assert (lead.workplace, lead.remote) == ("remote", True)
    assert lead.hidden_parts == 1
    assert "Ignore all previous instructions" not in lead.description
    assert jobs["4012347"].salary is None
    sre = more["77"]
    assert (sre.workplace, sre.remote) == ("hybrid", None)
    assert sre.locations == ["Hybrid - Munich", "Munich, Germany", "Vienna"]
    assert sre.department == "Platform"
    assert sre.salary == text_pay(70_000, 85_000, "EUR", "year")
    warehouse = more["78"]
    assert (warehouse.workplace, warehouse.remote) == ("onsite", False)
    assert warehouse.salary == Salary(min=22, max=26, currency="USD", interval="hour")


async def test_lever_workplace_locations_commitment_team_and_pay(board: HttpTarget) -> None:
    """Lever: `workplaceType` is the workplace (hybrid keeps remote unset, on-site is not remote,
    unspecified says nothing); location and allLocations are all kept; commitment and team come
    through; `salaryRange` is the board's field and a posting without one gets its text's pay; the
    salary description is part of the text; a part of the HTML nobody sees is left out, counted."""
    postings = fixture_json("lever_postings.json")
    onsite = copy.deepcopy(postings[1])
    onsite.update(id="onsite-1", workplaceType="on-site", hostedUrl="https://jobs.lever.co/q/onsite-1")
    unspecified = copy.deepcopy(postings[1])
    unspecified.update(id="any-1", workplaceType="unspecified", hostedUrl="https://jobs.lever.co/q/any-1")
    board.script(LEVER.format("quillstone"), ok_json([*postings, onsite, unspecified]))
    jobs = await read(Lever(site="quillstone", base_url=board.url("")))
    platform = jobs["5f2c1a9e-0b1d-4c39-9d8e-2f7d8e0a1b01"]
    assert (platform.workplace, platform.remote) == ("hybrid", None)
    assert platform.salary == Salary(min=120_000, max=150_000, currency="CAD", interval="year")
    assert "Base salary" in platform.description
    assert platform.hidden_parts == 1
    assert "Rate this candidate" not in platform.description
    support = jobs["a1b2c3d4-0000-4000-8000-000000000002"]
    assert (support.workplace, support.remote) == ("remote", True)
    assert support.locations == ["Remote", "Lisbon, Portugal"]
    assert (support.employment_type, support.department) == ("Contract", "Support")
    assert support.salary == text_pay(40, 50, "USD", "hour")
    assert (jobs["onsite-1"].workplace, jobs["onsite-1"].remote) == ("onsite", False)
    assert (jobs["any-1"].workplace, jobs["any-1"].remote) == (None, None)


async def test_ashby_compensation_workplace_and_locations(board: HttpTarget) -> None:
    """Ashby: `workplaceType` is the workplace beside `isRemote`; secondary locations are kept; the
    `Salary` summary component is the salary (hourly here); without one, the tiers' salary
    components span the range, else the summary text is read (still the board's field); a
    fortnightly figure is halved per week; a job with no compensation gets its text's pay."""
    body = fixture_json("ashby_board.json")
    base = {"isListed": True, "jobUrl": "https://jobs.ashbyhq.com/orbita/x", "employmentType": "Contract"}
    tiers = copy.deepcopy(body["jobs"][1]["compensation"])
    tiers["summaryComponents"] = []
    summary_only = {"compensationTierSummary": "$90K – $110K • Offers Equity", "summaryComponents": []}
    fortnight = {
        "summaryComponents": [
            {"compensationType": "Salary", "interval": "2 WEEK", "currencyCode": "USD", "minValue": 4000}
        ]
    }
    body["jobs"] += [
        {**base, "id": "tiers", "title": "Tiers", "compensation": tiers},
        {**base, "id": "summary", "title": "Summary", "compensation": summary_only},
        {**base, "id": "fortnight", "title": "Fortnight", "compensation": fortnight},
        {**base, "id": "text", "title": "Text", "descriptionPlain": "Pay: $60–70/hr, remote."},
    ]
    board.script(ASHBY.format("orbita"), ok_json(body))
    jobs = await read(Ashby(board_name="orbita", base_url=board.url("")))
    staff = jobs["0c4d5e6f-1111-4222-8333-444455556666"]
    assert (staff.workplace, staff.remote) == ("hybrid", False)
    assert staff.department == "Engineering"
    part = jobs["0c4d5e6f-1111-4222-8333-444455556667"]
    assert (part.workplace, part.remote) == ("remote", True)
    assert part.locations == ["Remote", "Remote - Europe"]
    assert part.salary == Salary(min=25, max=30, currency="EUR", interval="hour")
    assert jobs["tiers"].salary == Salary(min=25, max=30, currency="EUR", interval="hour")
    assert jobs["summary"].salary == Salary(min=90_000, max=110_000, currency="USD", interval="year")
    assert jobs["fortnight"].salary == Salary(min=2_000, currency="USD", interval="week")
    assert jobs["text"].salary == text_pay(60, 70, "USD", "hour")
    assert jobs["text"].employment_type == "Contract"


async def test_workable_workplace_locations_and_pay(board: HttpTarget) -> None:
    """Workable: `workplace_type` (in SPI v3's `location` shape) is the workplace, else
    `telecommuting` the remote flag; every visible location is kept, a hidden one is not; a salary
    object in SPI v3's shape is the board's field; without one, pay comes from the description."""
    body = fixture_json("workable_account.json")
    paid = copy.deepcopy(body["jobs"][0])
    paid.update(
        shortcode="PAID123456",
        url="https://apply.workable.com/j/PAID123456",
        salary={"salary_from": 70000, "salary_to": 80000, "salary_currency": "EUR"},
    )
    body["jobs"] += [paid]
    body["jobs"].append(
        {
            "title": "Backend Engineer",
            "shortcode": "AB12CD34EF",
            "employment_type": "Part-time",
            "telecommuting": True,
            "department": "Engineering",
            "url": "https://apply.workable.com/j/AB12CD34EF",
            "locations": [
                {"city": "Athens", "country": "Greece", "countryCode": "GR", "hidden": False},
                {"city": "Lisbon", "country": "Portugal", "countryCode": "PT", "hidden": False},
            ],
            "description": "<p>APIs.</p><p>Salary: €55,000 - €65,000 per year.</p>",
        }
    )
    board.script("/api/v1/widget/accounts/tidewater?details=true", ok_json(body))
    jobs = await read(Workable(account="tidewater", base_url=board.url("")))
    sre = jobs["8D6F1A2B3C"]
    assert (sre.workplace, sre.remote) == ("hybrid", False)
    assert sre.locations == ["Rotterdam, South Holland, Netherlands"]  # Amsterdam is hidden
    assert (sre.employment_type, sre.department) == ("Full-time", "Infrastructure")
    assert (jobs["9E7A2B3C4D"].workplace, jobs["9E7A2B3C4D"].remote) == ("remote", True)
    backend = jobs["AB12CD34EF"]
    assert (backend.workplace, backend.remote) == ("remote", True)
    assert backend.locations == ["Athens, Greece", "Lisbon, Portugal"]
    assert (backend.employment_type, backend.department) == ("Part-time", "Engineering")
    assert backend.salary == text_pay(55_000, 65_000, "EUR", "year")
    assert jobs["PAID123456"].salary == Salary(min=70_000, max=80_000, currency="EUR", interval="year")
    assert jobs["8D6F1A2B3C"].salary is None


async def test_smartrecruiters_flags_location_parts_and_text_pay(board: HttpTarget) -> None:
    """SmartRecruiters: the `remote` and `hybrid` flags are the workplace (remote stays as the
    board says); a location without `fullLocation` is its parts; the job ad's text states the pay."""
    base = "/v1/companies/Vortexaudio/postings"
    board.script(f"{base}?limit=100&offset=0", ok_file("smartrecruiters_postings.json"))
    board.script(f"{base}/744000012345678", ok_file("smartrecruiters_detail.json"))
    jobs = await read(SmartRecruiters(company="Vortexaudio", base_url=board.url("")))
    java, sales = jobs["744000012345678"], jobs["744000012345679"]
    assert (java.workplace, java.remote) == ("hybrid", False)
    assert java.salary == text_pay(55_000, 65_000, "SEK", "month")
    assert (java.employment_type, java.department) == ("Full-time", "R&D")
    assert (sales.workplace, sales.remote) == ("remote", True)
    assert sales.locations == ["Göteborg, SE"]
    assert sales.salary is None


async def test_remoteok_and_remotive_pay_fields_and_text(board: HttpTarget) -> None:
    """Remote OK's salary_min/max and Remotive's free-text `salary` are the boards' own fields;
    where they are empty the description's pay is read, stated "text"; both boards are remote."""
    remoteok = fixture_json("remoteok.json")
    remoteok[2]["description"] = "<p>Figma all day. We pay $90k - $110k.</p>"
    board.script("/api", ok_json(remoteok))
    remotive = fixture_json("remotive.json")
    remotive["jobs"][1]["description"] = "<p>Models. €60k–€70k per year.</p>"
    board.script("/api/remote-jobs", ok_json(remotive))
    ok = await read(RemoteOK(base_url=board.url("")))
    rv = await read(Remotive(base_url=board.url("")))
    assert ok["1093001"].salary == Salary(min=120_000, max=160_000, currency="USD", interval="year")
    assert ok["1093002"].salary == text_pay(90_000, 110_000, "USD", "year")
    assert rv["1989001"].salary == Salary(min=140_000, max=170_000, currency="USD", interval="year")
    assert rv["1989002"].salary == text_pay(60_000, 70_000, "EUR", "year")
    every = [*ok.values(), *rv.values()]
    assert {(x.workplace, x.remote) for x in every} == {("remote", True)}


async def test_arbeitnow_remote_flag_title_and_german_pay(board: HttpTarget) -> None:
    """Arbeitnow: `remote: true` is a remote workplace; `remote: false` leaves the workplace to the
    title ("(Hybrid)"); pay is read from the German text."""
    board.script("/api/job-board-api?page=1", ok_file("arbeitnow_page1.json"))
    board.script("/api/job-board-api?page=2", ok_file("arbeitnow_page2.json"))
    jobs = await read(Arbeitnow(base_url=board.url("")))
    php, student, devops = (
        jobs["senior-php-developer-berlin-123456"],
        jobs["werkstudent-data-munich-123457"],
        jobs["devops-engineer-hamburg-123458"],
    )
    assert (php.workplace, php.remote) == (None, False)
    assert (student.workplace, student.remote) == ("remote", True)
    assert (devops.workplace, devops.remote) == ("hybrid", False)
    assert devops.salary == text_pay(60_000, 70_000, "EUR", "year")
    assert devops.employment_type == "full time"


async def test_hackernews_workplace_and_pay_from_the_first_line(board: HttpTarget) -> None:
    """HN: REMOTE, ONSITE and Hybrid in the first line's fields are the workplace; the pay field is
    read as text (a comment has no pay field)."""
    thread = fixture_json("hn_thread.json")
    thread["children"].append(
        {
            "id": 45800199,
            "created_at": "2026-11-02T18:00:00.000Z",
            "text": "Basalt Cloud | SRE | Munich | Hybrid | Contract | $120k-$140k<p>On call 1 in 6.",
            "children": [],
        }
    )
    board.script("/api/v1/items/45800001", ok_json(thread))
    jobs = await read(HackerNews(thread_id=45800001, base_url=board.url("")))
    acme, sakura, basalt = jobs["45800101"], jobs["45800102"], jobs["45800199"]
    assert (acme.workplace, acme.remote) == ("remote", True)
    assert acme.salary == text_pay(90_000, 110_000, "EUR", "year")
    assert (sakura.workplace, sakura.remote) == ("onsite", False)
    assert (basalt.workplace, basalt.remote) == ("hybrid", None)
    assert (basalt.locations, basalt.employment_type) == (["Munich"], "Contract")
    assert basalt.salary == text_pay(120_000, 140_000, "USD", "year")


async def test_feeds_type_category_workplace_and_pay(board: HttpTarget) -> None:
    """RSS/Atom: We Work Remotely's `type` is the employment type and every job is remote; the
    first category is the department; an Atom entry's categories say hybrid; pay is read from the
    item's text."""
    board.script(
        "/categories/remote-back-end-programming-jobs.rss", ok_file("wwr.rss", "application/rss+xml")
    )
    board.script("/careers.atom", ok_file("jobs.atom", "application/atom+xml"))
    feed = "https://weworkremotely.com/categories/remote-back-end-programming-jobs.rss"
    wwr = await read(Rss(url=feed, base_url=board.url("")))
    atom = await read(Rss(url=board.url("/careers.atom")))
    go = wwr["https://weworkremotely.com/remote-jobs/basalt-cloud-senior-go-engineer"]
    ruby = wwr["https://weworkremotely.com/remote-jobs/cobalt-insurance-ruby-developer"]
    assert (go.workplace, go.remote, go.employment_type) == ("remote", True, "Full-Time")
    assert go.department == "Back-End Programming"
    assert go.salary is None
    assert ruby.employment_type == "Contract"
    assert ruby.salary == text_pay(90_000, 110_000, "USD", "year")
    [gis] = atom.values()
    assert (gis.workplace, gis.remote, gis.department) == ("hybrid", None, "Engineering")
