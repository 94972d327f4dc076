"""The draft checks on short forms and the listing's own names: an engineer's and a technician's
notes that write a profile's credential, school, skill or employer another way, and notes that
claim what only the listing names."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest

from jobsearch.draft.checks import Facts
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.check_failures import failures

_ENGINEER: dict[str, Any] = {
    "person": {
        "name": "Mere Whaanga",
        "location": "Christchurch, New Zealand",
        "summary": "Chartered structural engineer (CPEng, CMEngNZ) and registered nurse turned engineer.\n"
        "EPA 608 Universal and NATE certified.",
        "skills": ["ETABS", "Google Tag Manager", "NATE - Air Conditioning Service", "Bluebeam Revu"],
        "experience": [
            {
                "employer": "Harrow Kerr Engineering",
                "title": "Structural Engineer",
                "start": "2017-09-04",
                "highlights": ["Top technician for site sign-ups in 2024, with 310 new members."],
            },
            {
                "employer": "Lee Valley Physiotherapy",
                "title": "Clinical Research Associate II",
                "start": "2014-01-06",
                "end": "2017-08-25",
            },
        ],
        "education": [{"institution": "Universidade de São Paulo", "degree": "Bacharelado", "year": 2013}],
    },
    "writing": {"language": "en", "signature": "Mere Whaanga"},
}


@pytest.fixture
def engineer() -> Facts:
    listing = MergedListing(
        id="rk",
        title="Senior Structural Engineer",
        company="Rakaia Structures",
        url="https://jobs.example.org/rk",
        description="Rakaia Structures designs buildings across Canterbury.\n"
        "Nice to have\n- Procore and Duetto\n- OSHA 10 card\n- ACRP-CP certification\n"
        "Questions? Talk to Mereana Tait.",
    )
    return Facts.of(msgspec.convert(_ENGINEER, Profile), listing, today=date(2026, 12, 1))


@pytest.mark.parametrize(
    "text",
    [
        "Hi Mereana, I'm a chartered professional engineer, a Chartered Member of Engineering New Zealand.",
        "Hi Mereana, I'm an RN by training, now at Harrow Kerr.",
        "Hi Mereana, I work in GTM and ETABS at Harrow Kerr.",
        "Hi Mereana, I was at Lee Valley Physio before Harrow Kerr.",
        "Hi Mereana, I was Harrow Kerr's top technician for sign-ups in '24.",
        "Hi Mereana, nine-plus years with Harrow Kerr, and I'd like to talk.",
        "Hi Mereana, I hold NATE (Air Conditioning Service) certifications.",
        "Hi Mereana, I studied at the University of São Paulo before moving here.",
    ],
)
def test_a_profile_s_own_thing_written_another_way_passes(text: str, engineer: Facts) -> None:
    """A credential by its words' beginnings, a post's initials, a skill's initials, a name cut
    short, a title after a possessive, an apostrophe year, "nine-plus", one credential written in
    two places, a school named in English."""
    assert failures(text, engineer) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi Mereana, I'm CPEng and an APEC Engineer at Harrow Kerr.", "titles", "APEC Engineer"),
        ("Hi Mereana, I'm a Senior CRA at Harrow Kerr in Christchurch.", "titles", "Senior CRA"),
        ("Hi Mereana, Procore and Bluebeam Revu are both part of my routine.", "skills", "Procore"),
        ("Hi Mereana, engineer at Harrow Kerr here: daily work in ETABS and Duetto.", "skills", "Duetto"),
        ("Certifications: EPA 608 Universal, NATE, and an OSHA 10 card.", "certifications", "OSHA"),
        (
            "Hi Mereana, I hold both the certifications your posting lists, NATE and the ACRP-CP.",
            "certifications",
            "ACRP-CP",
        ),
        (
            "Hi Mereana, I'm pitch-side at Harrow Kerr, holding World Rugby ICIR Level 2.",
            "names",
            "World Rugby",
        ),
    ],
)
def test_what_only_the_listing_names_or_nobody_does_fails_when_claimed(
    text: str, check: str, found: str, engineer: Facts
) -> None:
    """A second title after "and an", a title by the initials of another, the listing's tools
    held as the subject or in a note's fragment, its credentials in the letter's own list or
    behind a pointer to the posting, a credential after "holding"."""
    failed = failures(text, engineer)
    assert check in failed, failed
    assert found in failed[check]
