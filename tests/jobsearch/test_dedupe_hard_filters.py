"""`[search] hard`: only `exclude` and the filters the person names drop a listing; the others
score it. The seniority filter drops only on a level word that is a level, not on one that begins
a role, product, sector or company name ("Lead Generation Specialist", "Staff Nurse")."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Literal, NamedTuple

import msgspec
import pytest

from jobsearch.dedupe.filters import drop_reason, levels
from jobsearch.dedupe.report import read_listings
from jobsearch.dedupe.store import Decision, SeenSet
from jobsearch.listing import MergedListing, Salary
from jobsearch.profile import Experience, Person, Profile, ProfileError, Search, parse_profile
from tests.jobsearch.test_dedupe_match import posting

HardFilter = Literal["terms", "locations", "remote", "seniority", "salary_floor"]

# Written before the fix (the code of then read 21 of 40 right): title, company, the levels the
# person wants, what the hard seniority filter should do, why.
LEVEL_WORDS: list[tuple[str, str, list[str], str, str]] = [
    # A level word that is a level: the hard filter drops what the person did not ask for.
    ("Senior Backend Engineer", "Northwind", ["junior"], "drop", "senior before the role: a level"),
    ("Backend Engineer, Senior", "Northwind", ["junior"], "drop", "a level written after the role"),
    ("Sr. Data Analyst", "Northwind", ["junior"], "drop", "Sr is senior spelled short"),
    ("Staff Software Engineer", "Northwind", ["senior"], "drop",
     "staff before an engineer: the tech ladder's step"),
    ("Staff Data Scientist", "Northwind", ["senior"], "drop", "staff before a scientist: the same ladder"),
    ("Principal Engineer, Payments", "Northwind", ["senior"], "drop", "principal before an engineer"),
    ("Principal Consultant", "Northwind", ["senior"], "drop",
     "consulting's ladder: consultant, senior, principal"),
    ("Principal Product Designer", "Northwind", ["mid"], "drop", "principal before a designer"),
    ("Lead Data Engineer", "Northwind", ["junior"], "drop", "lead before the role: a lead's job"),
    ("Tech Lead", "Northwind", ["junior"], "drop", "lead as the role itself"),
    ("Junior Frontend Developer", "Northwind", ["senior"], "drop", "junior before the role"),
    ("Software Engineer II", "Northwind", ["senior"], "drop", "a numeral level (II: mid)"),
    ("Graduate Software Engineer", "Northwind", ["senior"], "drop", "graduate before the role: entry level"),
    ("Head of Data", "Northwind", ["senior"], "drop", "head of a department: a manager's level"),
    ("Engineering Manager", "Northwind", ["senior"], "drop", "a manager's job"),
    ("Senior Accountant", "Northwind", ["junior"], "drop", "senior is a level in accounting too"),
    ("Senior Trainer", "Vendorly", ["junior"], "drop", "senior is a level for a trainer too"),
    ("Senior Engineer, Lead Generation Platform", "Northwind", ["junior"], "drop",
     "senior is the level; lead generation only the team's product"),
    ("Lead Generation Manager", "Northwind", ["senior"], "drop",
     "manager is the level; lead generation the field"),
    # The level is one the person wants: kept.
    ("Staff Engineer", "Northwind", ["staff"], "keep", "the level the person wants"),
    ("Senior Engineering Manager", "Northwind", ["senior"], "keep", "one of its levels is wanted"),
    # A level word that is part of a role, product, sector or company name: no level is stated.
    ("Principal Trainer", "Vendorly", ["senior"], "keep",
     "a vendor's trainer title: principal is no step on a trainer's ladder"),
    ("Lead Generation Specialist", "Northwind", ["senior"], "keep", "lead generation is the work (sales)"),
    ("Senior Living Coordinator", "Northwind", ["junior"], "keep",
     "senior living is the sector (care homes)"),
    ("Senior Care Assistant", "Northwind", ["junior"], "keep",
     "senior care is elder care; a senior carer, perhaps: unreadable, so kept"),
    ("Staff Accountant", "Northwind", ["senior"], "keep",
     "an accountant's title (often entry level): staff is a step of the tech ladder only"),
    ("Staff Nurse", "Northwind", ["senior"], "keep", "a registered nurse on the ward's staff"),
    ("Staff Writer", "Northwind", ["senior"], "keep", "a writer on the paper's staff"),
    ("Chief of Staff", "Northwind", ["senior"], "keep", "staff is whom the chief serves"),
    ("Member of Technical Staff", "Northwind", ["senior"], "keep", "one title for every level at some labs"),
    ("Head Chef", "Northwind", ["senior"], "keep", "the kitchen's role name, not a department's head"),
    ("Head Office Administrator", "Northwind", ["senior"], "keep", "head office is a place"),
    ("Principal Investigator", "Northwind", ["senior"], "keep", "a research grant's holder: a role name"),
    ("Assistant Principal", "Northwind", ["senior"], "keep", "a school's deputy head"),
    ("Principal Gifts Officer", "Northwind", ["senior"], "keep",
     "principal gifts: fundraising's largest tier"),
    ("Data Entry Clerk", "Northwind", ["senior"], "keep", "data entry is the work, not an entry level"),
    ("Mid-Market Account Executive", "Northwind", ["senior"], "keep", "mid-market is the sales segment"),
    ("Graduate Admissions Officer", "Northwind", ["senior"], "keep", "graduate admissions is the office"),
    ("Junior School Teacher", "Northwind", ["senior"], "keep", "a junior school is where, not a level"),
    ("Lead Bank Operations Analyst", "Lead Bank", ["senior"], "keep", "Lead Bank is the company's name"),
]  # fmt: skip

# Written after the fix and not tuned on (the code before it read 14 of 31 right, the fix 29): what
# it gets wrong stays marked (strict: a later fix shows).
HELD_OUT: list[Any] = [
    ("Senior Site Reliability Engineer", "Northwind", ["junior"], "drop", "senior before the role"),
    ("Staff SRE", "Northwind", ["senior"], "drop", "SRE is an engineer"),
    ("Principal SWE", "Northwind", ["senior"], "drop", "SWE is a software engineer"),
    ("Distinguished Engineer", "Northwind", ["senior"], "drop", "the ladder's top"),
    ("Staff Product Manager", "Northwind", ["senior"], "drop", "product's ladder"),
    ("Principal Scientist", "Northwind", ["senior"], "drop", "science's ladder"),
    ("Principal Software Engineer (Remote)", "Northwind", ["senior"], "drop", "a tag after"),
    ("Department Head, Mathematics", "Northwind", ["senior"], "drop", "head after its field"),
    ("Head, Growth Marketing", "Northwind", ["senior"], "drop", "head of growth marketing"),
    ("Lead Nurse", "Northwind", ["junior"], "drop", "a lead's job"),
    ("Customer Success Lead", "Northwind", ["junior"], "drop", "lead as the role"),
    ("Entry Level Data Analyst", "Northwind", ["senior"], "drop", "entry level"),
    ("Senior Engineer - Staffing Platform", "Northwind", ["junior"], "drop", "staffing is another word"),
    pytest.param(
        "Principal Accountant", "Northwind", ["senior"], "drop", "a public-sector finance grade",
        marks=pytest.mark.xfail(strict=True, reason="staff/principal count only on the ladders listed"),
    ),
    ("Lead Generation Representative", "Northwind", ["senior"], "keep", "lead generation"),
    ("Lead Qualification Specialist", "Northwind", ["senior"], "keep", "qualifying sales leads"),
    pytest.param(
        "Lead Paint Inspector", "Northwind", ["senior"], "keep", "the metal",
        marks=pytest.mark.xfail(strict=True, reason="no rule knows lead the metal"),
    ),
    ("Senior Citizens Outreach Officer", "Northwind", ["junior"], "keep", "senior citizens"),
    ("Senior Helpers Caregiver", "Senior Helpers", ["junior"], "keep", "the company's name"),
    ("Staff Pharmacist", "Northwind", ["senior"], "keep", "a pharmacist on staff"),
    ("Staff Attorney", "Northwind", ["senior"], "keep", "an attorney on staff"),
    ("Staff Photographer", "Northwind", ["senior"], "keep", "a photographer on staff"),
    ("Staff Auditor", "Northwind", ["senior"], "keep", "audit firms' first grade"),
    ("Staff Sergeant", "Northwind", ["senior"], "keep", "a military rank"),
    ("Principal Dancer", "Northwind", ["senior"], "keep", "a ballet's role"),
    ("Head Teacher", "Northwind", ["senior"], "keep", "a school's head: a role name"),
    ("Head Coach", "Northwind", ["senior"], "keep", "a team's coach"),
    ("Junior High Science Teacher", "Northwind", ["senior"], "keep", "junior high school"),
    ("Mid-Atlantic Territory Sales Representative", "Northwind", ["senior"], "keep", "a region"),
    ("Data Entry Operator", "Northwind", ["senior"], "keep", "data entry"),
    ("Graduate School Coordinator", "Northwind", ["senior"], "keep", "graduate school"),
]  # fmt: skip


def merged(title: str, company: str = "Northwind Robotics") -> MergedListing:
    """A merged listing of a Berlin Python job titled `title` at `company`, paid 50,000 EUR at most."""
    return MergedListing(
        id="m1",
        title=title,
        company=company,
        url="https://n.example/1",
        locations=["Berlin, Germany"],
        description="Python services on Kubernetes.",
        salary=Salary(max=50_000, currency="EUR", interval="year"),
    )


@pytest.mark.parametrize(("title", "company", "wished", "expected", "why"), [*LEVEL_WORDS, *HELD_OUT])
def test_a_hard_seniority_filter_drops_only_on_a_level(
    title: str, company: str, wished: list[Any], expected: str, why: str
) -> None:
    """With `hard = ["seniority"]`, a title whose level the person does not want is dropped with a
    `seniority:` reason; one whose level word is part of another name is kept (the score ranks it)."""
    reason = drop_reason(merged(title, company), Search(seniority=wished, hard=["seniority"]))
    assert ("drop" if reason else "keep") == expected, f"{title}: {why} ({reason})"
    assert reason is None or reason.startswith("seniority: "), reason


def test_levels_reads_each_level_a_title_states() -> None:
    """A title with two level words states both; a level word inside a name states none; a trailing
    numeral is a level only where no word is."""
    assert levels(merged("Senior Engineering Manager")) == {"senior", "manager"}
    assert levels(merged("Principal/Staff Engineer")) == {"principal", "staff"}
    assert levels(merged("Senior Staff Accountant")) == {"senior"}
    assert levels(merged("Team Lead, Lead Generation")) == {"lead"}
    assert levels(merged("Member of Technical Staff - Software Engineer")) == set()
    assert levels(merged("Software Engineer III")) == {"senior"}
    assert levels(merged("Clinical Nurse Manager 2")) == {"manager"}


# A backend engineer since 2018, wherever their searches say, and a senior Berlin Python job.
PERSON = Person(
    name="S", experience=[Experience(employer="Kontor", title="Backend Engineer", start=date(2018, 1, 1))]
)
BERLIN_PYTHON = posting(
    "1", "Senior Backend Engineer", salary=Salary(max=50_000, currency="EUR", interval="year")
)


class Failed(NamedTuple):
    """A filter the job fails, and what becomes of it."""

    search: Search  # the profile's search, which the job fails
    met: Search  # the same filter, as the job meets it
    name: HardFilter  # the filter's name in `hard`
    reason: str  # how its drop reason begins
    scored: str  # what the fit reason that scores the failure says


FAILED = [
    Failed(
        Search(terms=["Nurse Educator"]),
        Search(terms=["Backend Engineer"]),
        "terms",
        "terms: ",
        "close to your role",
    ),
    Failed(
        Search(locations=["Hamburg"]), Search(locations=["Berlin"]), "locations", "locations: ", "; you want"
    ),
    Failed(
        Search(remote="remote", locations=["Berlin"]),
        Search(locations=["Berlin"]),
        "remote",
        "remote: ",
        "you want remote",
    ),
    Failed(
        Search(seniority=["junior"]),
        Search(seniority=["senior"]),
        "seniority",
        "seniority: ",
        "you are junior",
    ),
    Failed(
        Search(salary_floor=60_000),
        Search(salary_floor=40_000),
        "salary_floor",
        "salary: ",
        "under your floor",
    ),
]


def recorded(path: Path, search: Search, run_id: str = "run1") -> Decision:
    """Record BERLIN_PYTHON with PERSON's profile of `search` in the seen-set at `path` (real
    SQLite), scoring its fit."""
    seen = SeenSet(path)
    try:
        return seen.record(BERLIN_PYTHON, search, run_id, Profile(person=PERSON, search=search))
    finally:
        seen.close()


@pytest.mark.parametrize("case", FAILED, ids=lambda case: case.name)
def test_a_filter_not_named_hard_keeps_and_scores(tmp_path: Path, case: Failed) -> None:
    """With `hard` empty (the default) a listing the filter does not want is kept (no drop reason
    recorded, listed by `jobsearch listings`), and the filter costs it fit points with its reason:
    its fit is below the same listing's under the same filter as it meets it."""
    kept = recorded(tmp_path / "kept.sqlite", case.search)
    meeting = recorded(tmp_path / "met.sqlite", case.met)
    assert (kept.state, kept.drop_reason) == ("pending", None)
    [stored] = read_listings(tmp_path / "kept.sqlite")
    assert (stored.state, stored.drop_reason) == ("pending", None)
    assert kept.fit is not None
    assert meeting.fit is not None
    assert kept.fit.score < meeting.fit.score
    assert any(case.scored in r.text for r in kept.fit.reasons), kept.fit.reasons
    assert not any(case.scored in r.text for r in meeting.fit.reasons), meeting.fit.reasons


@pytest.mark.parametrize("case", FAILED, ids=lambda case: case.name)
def test_a_filter_named_hard_drops_with_its_reason(tmp_path: Path, case: Failed) -> None:
    """The same filter named in `hard` drops the listing as before: `jobsearch listings` leaves it
    out, and `--all` shows it dropped with a reason that names the filter; met, it is kept."""
    dropped = recorded(tmp_path / "db.sqlite", msgspec.structs.replace(case.search, hard=[case.name]))
    assert dropped.state == "dropped"
    assert dropped.drop_reason is not None
    assert dropped.drop_reason.startswith(case.reason)
    assert read_listings(tmp_path / "db.sqlite") == []
    [stored] = read_listings(tmp_path / "db.sqlite", include_dropped=True)
    assert (stored.state, stored.drop_reason) == ("dropped", dropped.drop_reason)
    kept = recorded(tmp_path / "met.sqlite", msgspec.structs.replace(case.met, hard=[case.name]))
    assert (kept.state, kept.drop_reason) == ("pending", None)


def test_exclude_drops_without_hard(tmp_path: Path) -> None:
    """`exclude` drops whatever `hard` says, with its reason and a fit that says so."""
    dropped = recorded(tmp_path / "db.sqlite", Search(exclude=["northwind"]))
    assert (dropped.state, dropped.drop_reason) == ("dropped", "exclude: 'northwind' in the company")
    assert dropped.fit is not None
    assert dropped.fit.score < 20


def test_only_the_named_filters_drop() -> None:
    """Of several filters a listing fails, only those in `hard` drop it, and the reason names one
    of them: locations and remote are two filters, not one."""
    job = merged("Senior Backend Engineer")
    search = Search(locations=["Hamburg"], remote="remote", seniority=["junior"], salary_floor=60_000)
    assert drop_reason(job, search) is None
    assert drop_reason(job, msgspec.structs.replace(search, hard=["terms"])) is None
    named: list[tuple[HardFilter, str]] = [
        ("salary_floor", "salary: "),
        ("locations", "locations: "),
        ("remote", "remote: "),
    ]
    for name, begins in named:
        reason = drop_reason(job, msgspec.structs.replace(search, hard=[name]))
        assert reason is not None
        assert reason.startswith(begins)
    in_berlin = Search(locations=["Berlin"], remote="remote", hard=["locations"])  # Berlin, not remote
    assert drop_reason(job, in_berlin) is None


def test_a_listing_dropped_by_a_hard_filter_comes_back_when_it_is_no_longer_hard(tmp_path: Path) -> None:
    """A listing a hard filter dropped is new in a later run whose profile only scores that filter,
    and its recorded drop reason is cleared: `listings --all` never shows a stale reason."""
    path = tmp_path / "db.sqlite"
    first = recorded(path, Search(seniority=["junior"], hard=["seniority"]))
    assert first.drop_reason == "seniority: senior is not one of junior"
    again = recorded(path, Search(seniority=["junior"]), "run2")
    assert (again.state, again.outcome, again.drop_reason) == ("pending", "new", None)
    [stored] = read_listings(path, include_dropped=True)
    assert (stored.state, stored.drop_reason) == ("pending", None)


def test_the_profile_reads_hard_and_refuses_an_unknown_filter() -> None:
    """`hard` takes the filters' names from TOML (none by default); a name that is no filter fails
    at load, naming the file's line and the key."""
    base = '[person]\nname = "S"\n\n[search]\nseniority = ["senior"]\n'
    profile = parse_profile(base + 'hard = ["seniority", "terms"]\n')
    assert profile.search.hard == ["seniority", "terms"]
    assert parse_profile(base).search.hard == []
    with pytest.raises(ProfileError, match=r"<profile>:6: search\.hard\[1\]: .*'salary'"):
        parse_profile(base + 'hard = ["seniority", "salary"]\n')
