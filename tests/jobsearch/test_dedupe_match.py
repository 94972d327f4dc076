"""Dedupe's normalisation and matching, case by case (no server)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from jobsearch.dedupe import match, merge
from jobsearch.dedupe.store import SeenSet
from jobsearch.listing import Listing, Salary
from jobsearch.profile import Search
from jobsearch.reading import normalise

TEXT = (
    "About us. Northwind builds warehouse robots that pick and pack parcels for online shops. "
    "The role. You will design and run the Python services that plan each robot's route, own the "
    "job queue between the planners and the fleet, and keep the on-call rotation calm. We look for "
    "five years of backend work, PostgreSQL and a taste for simple designs. We offer thirty days of "
    "leave, a learning budget and a robot named Fred."
)
OTHER_TEXT = (
    "About us. Northwind builds warehouse robots that pick and pack parcels for online shops. "
    "The role. You will build the operator dashboard in TypeScript and React: live maps of the "
    "fleet, alarms an operator can act on in seconds, and charts that work on the warehouse's old "
    "tablets. We look for three years of frontend work and care for accessibility. We offer thirty "
    "days of leave, a learning budget and a robot named Fred."
)


def posting(external_id: str, title: str, **fields: object) -> Listing:
    """A listing of Northwind Robotics in Berlin unless `fields` say otherwise."""
    base: dict[str, object] = {
        "board": "greenhouse",
        "source": "test",
        "url": f"https://boards.greenhouse.example/northwind/jobs/{external_id}",
        "company": "Northwind Robotics GmbH",
        "locations": ["Berlin, Germany"],
        "description": TEXT,
    }
    base.update(fields)
    return Listing(external_id=external_id, title=title, **base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Northwind Robotics GmbH", "northwindrobotics"),
        ("Northwind Robotics, Inc.", "northwindrobotics"),
        ("NORTHWIND ROBOTICS LLC", "northwindrobotics"),
        ("Northwind Robotics Ltd.", "northwindrobotics"),
        ("Zalando SE", "zalando"),
        ("Sunfield Bank, N.A.", "sunfieldbank"),
        ("Müller & Co. KG", "muller"),
        (
            "\uff2e\uff4f\uff52\uff54\uff48\uff57\uff49\uff4e\uff44 Robotics AG",
            "northwindrobotics",
        ),  # full width
        ("株式会社サクラデータ", "サクラデータ"),
        ("Mueller Analytik GmbH", "mulleranalytik"),
        ("Müller Analytik", "mulleranalytik"),
        ("Muller Analytik", "mulleranalytik"),
        ("Smith &amp; Rowe", "smithandrowe"),
        ("Smith and Rowe Ltd", "smithandrowe"),
        ("Øresund Robotics AB", "oresundrobotics"),
    ],
)
def test_company_key_drops_legal_forms(raw: str, key: str) -> None:
    """Legal forms, case, punctuation, width, spacing, HTML entities and transliteration (ü = ue = u,
    ø = o, & = and) do not change a company's key."""
    assert normalise.company_key(raw) == key


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("Sr. Backend Eng. (m/w/d)", "senior back end engineer"),
        ("Senior Backend Engineer (f/m/x) - Remote", "senior back end engineer"),
        ("Jr Dev (all genders)", "junior developer"),
        ("Engineering Mgr, Payments", "engineering manager payments"),
        ("Softwareentwickler*in (w/m/d)", "softwareentwickler"),
        ("Backend-Entwickler (m/w/d) 100% remote", "back end entwickler"),
        ("Data Scientist II", "data scientist 2"),
    ],
)
def test_title_words(raw: str, words: str) -> None:
    """Gender tags and remote markers go, abbreviations are spelled out, numerals unified."""
    assert " ".join(normalise.title_words(raw)) == words


def test_canonical_url_drops_tracking() -> None:
    """utm_*, gh_src, lever-source, ref and fragments go; the job's own parameters stay."""
    plain = normalise.canonical_url("https://boards.greenhouse.io/acme/jobs/7")
    for noisy in [
        "https://boards.greenhouse.io/acme/jobs/7?gh_src=abc&utm_source=x&utm_medium=y",
        "https://job-boards.greenhouse.io/acme/jobs/7/#app",
        "HTTPS://www.boards.greenhouse.io/acme/jobs/7?ref=hn",
    ]:
        assert normalise.canonical_url(noisy) == plain
    lever = normalise.canonical_url(
        "https://jobs.lever.co/acme/4f2e/apply?lever-source=LinkedIn&lever-origin=x"
    )
    assert lever == "jobs.lever.co/acme/4f2e"
    assert normalise.canonical_url("https://x.example/job?id=5&utm_campaign=a") == "x.example/job?id=5"


def test_places_and_remote() -> None:
    """Cities with exonyms, regions are not cities, remote synonyms are recognised."""
    assert normalise.city("München, Germany") == normalise.city("Munich") == "munich"
    assert normalise.city("Remote (EU)") is None
    assert normalise.city("Germany") is None
    for remote in ["Remote", "Anywhere", "Work from home", "Remote - Europe", "100% remote", "WFH"]:
        assert normalise.is_remote_place(remote), remote


@pytest.mark.parametrize(
    ("raw", "cities", "continents"),
    [
        ("USA Only", (), {"north america"}),
        ("Europe Only", (), {"europe"}),
        ("Latin America", (), {"latin america"}),
        ("Remote - Americas", (), {"north america", "latin america"}),
        ("UK, Europe", (), {"europe"}),
        ("ONSITE (hybrid, 3 days)", (), set()),
        ("Austin, TX, United States", ("austin",), {"north america"}),
        ("Berlin or Munich", ("berlin", "munich"), set()),
        ("Berlin, Germany or REMOTE (EMEA)", ("berlin",), {"europe", "middle east and africa"}),
        ("São Paulo, Brazil", ("sao paulo",), {"latin america"}),
    ],
)
def test_regions_are_not_cities(raw: str, cities: tuple[str, ...], continents: set[str]) -> None:
    """A region ("USA Only", "Latin America", "EMEA") names no city but its continents; a schedule
    is no place; each alternative of a location names its own city."""
    read = normalise.location(raw)
    assert (read.cities, set(read.continents)) == (cities, continents)


def run(tmp_path: Path, *postings: Listing) -> list[str]:
    """Feed postings to a fresh seen-set: the merged id of each."""
    seen = SeenSet(tmp_path / "seen.sqlite")
    try:
        return [seen.record(p, Search(), "run").listing.id for p in postings]
    finally:
        seen.close()


def test_cross_post_on_an_aggregator_is_one_job(tmp_path: Path) -> None:
    """The company board's posting and an aggregator's copy (other name form, gender tag, shortened
    text, its own URL) merge into one listing."""
    own = posting("101", "Senior Backend Engineer")
    copy = posting(
        "rok-9",
        "Senior Backend Engineer (m/w/d) - Berlin",
        board="remoteok",
        company="Northwind Robotics",
        url="https://remoteok.example/remote-jobs/9",
        locations=["Berlin"],
        description=TEXT[:300],
    )
    a, b = run(tmp_path, copy, own)
    assert a == b


def test_repost_under_a_new_id_is_one_job(tmp_path: Path) -> None:
    """A repost with a new id and a tracking-parameter URL merges; the exact URL key catches it."""
    first = posting("101", "Data Engineer")
    repost = posting("188", "Data Engineer", url=first.url + "?utm_source=newsletter&gh_src=x")
    assert len(set(run(tmp_path, first, repost))) == 1


def test_same_title_at_another_company_is_not_a_duplicate(tmp_path: Path) -> None:
    """One title, one text, one city, two companies: two jobs."""
    a = posting("1", "Site Reliability Engineer")
    b = posting("2", "Site Reliability Engineer", company="Copperleaf Security", url="https://c.example/2")
    assert len(set(run(tmp_path, a, b))) == 2


def test_same_title_in_another_city_is_not_a_duplicate(tmp_path: Path) -> None:
    """One company and title, Berlin and Hamburg: two jobs."""
    a = posting("1", "Backend Engineer")
    b = posting("2", "Backend Engineer", locations=["Hamburg, Germany"])
    assert len(set(run(tmp_path, a, b))) == 2


def test_another_level_is_not_a_duplicate(tmp_path: Path) -> None:
    """Backend Engineer, Senior Backend Engineer, Staff Backend Engineer, Engineering Manager: four jobs."""
    ids = run(
        tmp_path,
        posting("1", "Backend Engineer"),
        posting("2", "Senior Backend Engineer"),
        posting("3", "Staff Backend Engineer"),
        posting("4", "Backend Engineering Manager"),
    )
    assert len(set(ids)) == 4


def test_similar_title_with_other_text_is_not_a_duplicate(tmp_path: Path) -> None:
    """Backend vs Frontend Engineer at one company, sharing only the company's boilerplate: two jobs."""
    a = posting("1", "Backend Engineer")
    b = posting("2", "Frontend Engineer", description=OTHER_TEXT)
    assert len(set(run(tmp_path, a, b))) == 2


def test_reworded_title_with_the_same_text_is_one_job(tmp_path: Path) -> None:
    """'Software Engineer, Platform' and 'Platform Software Engineer (Python)' with one text: one job."""
    a = posting("1", "Software Engineer, Platform")
    b = posting("2", "Platform Software Engineer (Python)", board="remotive", url="https://r.example/2")
    assert len(set(run(tmp_path, a, b))) == 1


def test_text_similarity_tolerates_truncation_not_other_roles() -> None:
    """A truncated copy scores near 1; another role with the same boilerplate scores low."""
    full = " ".join(normalise.words(TEXT))
    assert (match.text_similarity(full, " ".join(full.split()[:55])) or 0) > 0.9
    assert (match.text_similarity(full, " ".join(normalise.words(OTHER_TEXT))) or 1) < match.SAME_TEXT


def test_company_named_shorter_matches_only_on_the_same_text(tmp_path: Path) -> None:
    """'Northwind' (an aggregator's short form) joins 'Northwind Robotics GmbH' on the same title and
    text; 'Northwind Bakery' with the same title but its own text stays apart."""
    own = posting("1", "Backend Engineer")
    short = posting("2", "Backend Engineer", board="remotive", company="Northwind", url="https://r.example/2")
    bakery = posting(
        "3", "Backend Engineer", board="remotive", company="Northwind Bakery", url="https://r.example/3",
        description=OTHER_TEXT.replace("Northwind builds warehouse robots", "Northwind bakes bread"),
    )  # fmt: skip
    a, b, c = run(tmp_path, own, short, bakery)
    assert a == b
    assert c != a


def test_merged_listing_keeps_every_source_and_the_earliest_date() -> None:
    """An aggregator posting first, the company board second: the merged listing keeps its id, both
    sources, the earliest posted date, and shows the company board's URL and title."""
    aggregator = posting(
        "rok-1", "Backend Engineer (m/w/d)", board="remoteok", url="https://remoteok.example/1",
        posted_at=date(2026, 11, 3), salary=Salary(min=70_000, max=90_000, currency="EUR"),
    )  # fmt: skip
    own = posting("1", "Backend Engineer", posted_at=date(2026, 11, 5), locations=["Berlin", "Remote (EU)"])
    first_seen = datetime(2026, 11, 6, tzinfo=UTC)
    merged = merge.union([aggregator, own], listing_id=merge.merged_id(aggregator.key), first_seen=first_seen)
    assert merged.id == merge.merged_id(aggregator.key)
    assert [s.board for s in merged.sources] == ["greenhouse", "remoteok"]
    assert merged.url == own.url
    assert merged.title == "Backend Engineer"
    assert merged.posted_at == date(2026, 11, 3)
    assert merged.salary == aggregator.salary
    assert merged.locations == ["Berlin, Germany", "Remote (EU)"]
    assert merged.first_seen == first_seen


@pytest.mark.parametrize(
    ("a", "a_slug", "b", "same"),
    [
        ("nettlebank", False, "nettlebanktechnologies", True),  # a word that says nothing of the trade
        ("bluefinatlas", False, "bluefinatlaslabs", True),
        ("hexaplane", False, "hexaplanehealth", False),  # a trade: related, not one
        ("mossgiel", True, "mossgielinsurance", True),  # a board's slug and the name it stands for
        ("mossgiel", False, "mossgielinsurance", False),
        ("acme", False, "acmerobotics", False),
    ],
)
def test_names_one_company(a: str, a_slug: bool, b: str, same: bool) -> None:
    """`same_company`: a name plus a generic company word is the same company; a trade word only
    beside a board's slug."""
    assert match.same_company(a, a_slug, b, False) is same


def test_legal_forms_of_several_words_leave_the_company_key() -> None:
    """`sp. z o.o.`, `Pty Ltd`, `S.A. de C.V.` are legal forms, like GmbH."""
    assert normalise.company_key("Żuraw Software sp. z o.o.") == normalise.company_key("Zuraw Software")
    assert normalise.company_key("Quokka Travel Pty Ltd") == "quokkatravel"
    assert normalise.company_key("Maíz Digital S.A. de C.V.") == "maizdigital"
