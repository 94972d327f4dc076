"""Dedupe's reading of titles: tags, synonyms, and when two titles at one company are one job."""

from __future__ import annotations

import pytest

from jobsearch.dedupe import match
from jobsearch.dedupe.titles import titles_compared
from jobsearch.listing import Listing
from jobsearch.reading import normalise


def core(title: str, locations: tuple[str, ...] = (), company: str = "Northwind Robotics") -> str:
    """The title core dedupe compares for a posting with this title and these locations."""
    listing = Listing(
        board="remotive",
        source="test",
        external_id="1",
        url="https://r.example/1",
        title=title,
        company=company,
        locations=list(locations),
    )
    return match.features(listing).title


@pytest.mark.parametrize(
    ("title", "locations", "expected"),
    [
        ("Platform Eng. (EMEA, Remote)", ("EMEA",), "platform engineer"),
        ("Backend Engineer (LATAM)", ("São Paulo, Brazil",), "back end engineer"),
        ("Backend Engineer - Remote", (), "back end engineer"),
        ("Senior Platform Engineer | Remote Europe", (), "platform engineer"),
        ("Field Service Technician [Contract]", (), "field service technician"),
        (
            "Field Service Technician (Contract) - Austin, TX",
            ("Austin, TX, United States",),
            "field service technician",
        ),
        ("Java Developer (Contract, 6 months) | Remote US", (), "java engineer"),
        ("Senior Software Engineer (f/m/x)", (), "software engineer"),
        ("Senior Backend Engineer (Golang)", (), "back end engineer go"),
        ("Senior Backend Developer - Go | Remote US", (), "back end engineer go"),
        (
            "Data Engineer - Climate Tech (Amsterdam)",
            ("Amsterdam, Netherlands",),
            "data engineer climate tech",
        ),
        ("Mobile Engineer (React Native) - LATAM", (), "mobile engineer react native"),
        ("Senior Full-Stack Engineer", (), "full stack engineer"),
        ("Fullstack Developer", (), "full stack engineer"),
        ("Senior SWE", (), "software engineer"),
        ("SRE (Remote, US)", (), "site reliability engineer"),
    ],
)
def test_title_tags_and_synonyms(title: str, locations: tuple[str, ...], expected: str) -> None:
    """Tags in brackets or after a dash or bar (remote, region, the posting's own place, contract
    terms) leave the title; a part with any other word stays ("(Golang)", "- Climate Tech");
    Golang = Go, Developer = Engineer, SWE and SRE spelled out, Full-Stack = Fullstack."""
    assert core(title, locations) == expected


def test_title_tags_name_the_region() -> None:
    """A region in a title's tag is where the job is: "| Remote Europe" on a posting without a place."""
    tags = normalise.title_tags("Senior Platform Engineer | Remote Europe")
    assert tags.continents == {"europe"}
    assert normalise.title_tags("Field Service Technician [Contract]").employment == "contract"


def test_the_company_name_leaves_a_title_only_whole() -> None:
    """ "Hexaplane Backend Engineer" at Hexaplane loses the name; "Robotics Software Engineer" at
    Oresund Robotics keeps "robotics" (one of the name's words alone is the job's)."""
    assert normalise.title_words("Hexaplane Backend Engineer", "Hexaplane Ltd") == ["back", "end", "engineer"]
    assert normalise.title_words("Robotics Software Engineer", "Öresund Robotics") == [
        "robotics",
        "software",
        "engineer",
    ]


@pytest.mark.parametrize(
    ("a", "b", "same", "apart"),
    [
        ("back end engineer payments", "back end engineer risk", False, True),
        ("software engineer inference", "software engineer training", False, True),
        ("back end engineer", "front end engineer", False, True),
        ("cloud security engineer", "security engineer cloud", True, False),
        ("security engineer", "security engineer cloud", False, False),
        ("software engineer training", "software engineer training infrastructure", False, False),
        ("go engineer", "back end engineer go", False, False),
        ("back end engineer optimisation", "back end engineer optimization", True, False),
        ("data scientist", "product designer", False, True),
    ],
)
def test_qualifiers_decide_between_titles(a: str, b: str, same: bool, apart: bool) -> None:
    """Each title with a qualifier the other lacks: two jobs. The same words: one title. One title
    naming more than the other: the texts decide (neither same nor apart)."""
    compared = titles_compared(a, b)
    assert (compared.same, compared.apart) == (same, apart), compared.why
