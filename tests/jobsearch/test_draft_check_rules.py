"""Each draft check on short notes for Jane Doe's profile and the plain backend listing: what each
reads as a claim, what as a gap or the listing's own, and the words it reports."""

from __future__ import annotations

from datetime import date

import msgspec
import pytest

from jobsearch.draft.checks import Facts
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.check_failures import failures

TODAY = date(2026, 12, 1)  # Initech since 2020-03: 6.75 years; Hooli 2016-09 to 2020-02: 3.5


@pytest.fixture
def facts(profile: Profile, corpus: dict[str, MergedListing]) -> Facts:
    return Facts.of(profile, corpus["plain-backend"], today=TODAY)


@pytest.mark.parametrize(
    "text",
    [
        "Hi! I spent three and a half years at Hooli and almost seven at Initech.",
        "Hi! Eight years of backend work, since 2016, over six of them at Initech.",
        "Hi! 10+ years? Not quite: I have ten years, and I cut month-end from 9 hours to 40 minutes.",
        "Hi! Your data team builds in Python and Kafka; Kubernetes I have used since my Hooli days.",
        "Hi! I haven't used Terraform yet, and Snowflake would be new to me, but I learn fast.",
        "Hi! Your team runs Terraform, which I'd be keen to learn.",
        "Hi! I have a BSc in Computer Science from TUM, and no master's degree.",
        "Hi! As a Senior Software Engineer at Initech I mentored four engineers.",
        "Hi! I'd love to grow as a Backend Engineer at Acme Analytics. Saludos, Jane",
        "Hi! I'm working towards the CKA, and I would like to hear about the Backend Engineer role.",
        "Three things I can offer Acme Analytics: Python, Kafka and calm on-call rotations.",
        "Hi! At Initech, we moved billing to Kafka. Initech's 4 TB of invoices stay queryable.",
    ],
)
def test_honest_statements_pass_every_check(text: str, facts: Facts) -> None:
    """Real durations rounded as people round, gaps, the listing's own role, an initialism of the
    school, a denied degree, a certification worked towards, a list's own count: all pass."""
    assert failures(text, facts) == {}


@pytest.mark.parametrize(
    ("text", "check", "words"),
    [
        ("Hi! I spent five years at Hooli building partner reporting.", "numbers", "'five years'"),
        ("Hi! At Initech I cut infrastructure costs by 30%.", "numbers", "'30%'"),
        ("Hi! I led a team of 12 engineers at Initech.", "numbers", "'12'"),
        ("Hi! I have 15 years of backend experience.", "numbers", "'15 years'"),
        ("Hi! I have written most of our Terraform at Initech.", "skills", "Terraform"),
        ("Hi! At Hooli we ran everything on Snowflake.", "skills", "Snowflake"),
        ("Hi! I speak fluent Portuguese and Python.", "skills", "Portuguese"),
        ("Hi! As Staff Engineer at Initech I mentored four engineers.", "titles", "'Staff Engineer'"),
        ("Hi! I've been a Senior Backend Engineer since 2020.", "titles", "'Senior Backend Engineer'"),
        ("Hi! I also hold an MSc in Computer Science.", "degrees", "'MSc in Computer Science'"),
        ("Hi! My degree in Physics taught me to measure.", "degrees", "'degree in Physics'"),
        (
            "Hi! I am an AWS Certified Solutions Architect.",
            "certifications",
            "'AWS Certified Solutions Architect'",
        ),
        ("Hi! I passed the CKAD last spring.", "certifications", "'CKAD'"),
        ("Dear Ms. Fischer, I'd like to talk about the role.", "names", "'Ms. Fischer'"),
        ("Hi! Before Initech I consulted for Globex on billing.", "names", "'Globex'"),
        ("Hi! I studied at the University of Stuttgart.", "names", "'University of Stuttgart'"),
        ("Hi! I worked at Acme Analytics before.", "employment", "'Acme Analytics'"),
        ("Hi! See janedoe.example.net for more.", "links", "janedoe.example.net"),
    ],
)
def test_each_invention_fails_its_check_and_the_detail_names_it(
    text: str, check: str, words: str, facts: Facts
) -> None:
    """The invented claim fails the check meant for it, whose detail quotes what it found."""
    failed = failures(text, facts)
    assert check in failed, failed
    assert words in failed[check]


def test_a_current_role_duration_is_counted_up_to_the_day_of_the_draft(
    profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """ "Seven years at Initech" is false in 2025 (5.8 years) and true in 2026 (6.75)."""
    text = "Hi! I have spent seven years at Initech."
    early = Facts.of(profile, corpus["plain-backend"], today=date(2025, 12, 1))
    assert "numbers" in failures(text, early)
    assert "numbers" not in failures(text, Facts.of(profile, corpus["plain-backend"], today=TODAY))


def test_german_nouns_are_not_names_but_an_employer_after_bei_is(
    profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """In a German draft capitalised nouns say nothing; "bei Globex" is still an unknown name."""
    german = msgspec.structs.replace(profile, writing=msgspec.structs.replace(profile.writing, language="de"))
    facts = Facts.of(german, corpus["plain-backend"], today=TODAY)
    assert failures("Hallo! Ich bringe Erfahrung mit Datendiensten und Verantwortung mit.", facts) == {}
    assert failures("Hallo! Davor war ich bei Globex tätig.", facts).keys() == {"names"}


@pytest.mark.parametrize(
    ("text", "failed"),
    [
        ("Hi! I studied Computer Science at TUM and graduated in 2016.", False),
        ("Hi! My BSc is from the Technical University of Munich.", False),
        ("Hi! I studied at the Munich University of Applied Sciences.", True),
        ("Hi! I graduated from Berlin Technical University in 2016.", True),
    ],
)
def test_a_school_is_one_of_the_profile_s_in_full_in_part_or_by_its_short_form(
    text: str, failed: bool, facts: Facts
) -> None:
    """ "TUM" and the full name pass; a school made of the profile's own words (Munich, Technical,
    University) but not its school fails."""
    assert ("schools" in failures(text, facts)) is failed


def test_a_greeting_or_sign_off_in_any_language_is_no_name(facts: Facts) -> None:
    """The first word of a greeting or sign-off line is a formula; a name after it is still read."""
    assert failures("Servus,\n\nI'd like to talk about the role.\n\nDiolch!\nJane", facts) == {}
    assert failures("Namaste Farhan,\n\nI'd like to talk about the role.", facts).keys() == {"names"}
