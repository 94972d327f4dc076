"""The draft checks on how people word true things (a bound on a figure, a number in a name, a
group addressed, a tool they know of) and on inventions worded the same way: an ICU nurse's notes."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest

from jobsearch.draft.checks import Facts
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.check_failures import failures

_NURSE: dict[str, Any] = {
    "person": {
        "name": "Amrit Gill",
        "location": "Hamilton, Ontario",
        "summary": "Registered nurse (RN, BScN), certified in critical care nursing by the Canadian\n"
        "Nurses Association (CNCC(C)). Part-66 is my brother's licence, not mine.",
        "skills": ["CRRT", "Epic", "CNCC(C)", "AWS Certified Data Engineer \u2013 Associate", "Python"],
        "experience": [
            {
                "employer": "Escarpment Health Sciences Centre",
                "title": "Registered Nurse",
                "start": "2020-09-14",
                "highlights": [
                    "Raised delirium-screening compliance from 58% to 91%.",
                    "Precepted 220 student shifts.",
                ],
            }
        ],
        "education": [
            {"institution": "McMaster University", "degree": "BScN", "year": 2017},
            {
                "institution": "AGH University of Science and Technology",
                "degree": "BEng",
                "field": "Computer Science",
                "year": 2012,
            },
        ],
    },
    "writing": {"language": "en", "signature": "Amrit Gill"},
}


@pytest.fixture
def nurse() -> Facts:
    listing = MergedListing(
        id="icu",
        title="Registered Nurse \u2013 ICU",
        company="Eastlake Health Network",
        url="https://jobs.example.org/icu",
        description="We open a new tower in 2027 and hire for the ICU from Term 1, 2027.\n"
        "A critical care certificate (e.g. Mohawk, Humber or George Brown) is preferred.\n"
        "Assets\n- ECMO or Impella experience\n- Snowflake for our quality dashboards\n"
        "Questions go to Karen Ostrowski.",
    )
    return Facts.of(msgspec.convert(_NURSE, Profile), listing, today=date(2026, 12, 1))


@pytest.mark.parametrize(
    "text",
    [
        "Hi Karen, I took our screening compliance from under 60% to over 90%.",
        "Hi Karen, I've precepted over 200 student shifts at Escarpment.",
        "Hi Karen, I'd love to join the ICU role from Term 1, 2027.",
        "Dear Selection Panel, I'd like to talk about the ICU role.",
        "Hi Karen, I know Impella and ECMO are on your list of assets; I'd love to learn both.",
        "Hi Karen, I hold CNCC(C) certification from the Canadian Nurses Association.",
        "Hi Karen, I'm AWS Certified (Data Engineer \u2013 Associate) and chart in Epic.",
        "Hi Karen, I have an engineering degree in Computer Science from AGH and a BScN.",
    ],
)
def test_true_things_worded_as_people_word_them_pass(text: str, nurse: Facts) -> None:
    """A bound within a quarter of the figure, the listing's year of the post, a group addressed,
    tools the person knows of, a credential with its kind's word, and a field after "in"."""
    assert failures(text, nurse) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi Karen, I took our screening compliance to over 95%.", "numbers", "95%"),
        ("Hi Karen, I've precepted over 300 student shifts at Escarpment.", "numbers", "300"),
        ("Hi Karen, with two years of Snowflake behind me, your dashboards appeal.", "skills", "Snowflake"),
        ("Hi Karen, after my BScN I completed an MScN at McMaster.", "degrees", "MScN"),
        ("Hi Karen, I hold a critical care certificate from Humber.", "schools", "Humber"),
        ("Hi Karen, I nursed Globex's executives at Escarpment.", "names", "Globex"),
        ("Hi Karen, I'm also Part 67 certified.", "numbers", "67"),
    ],
)
def test_inventions_worded_the_same_way_fail(text: str, check: str, found: str, nurse: Facts) -> None:
    """A bound past what the profile says, years of a tool only the listing has, degree letters
    the profile lacks, a school only the listing names as an example, a possessive's company."""
    failed = failures(text, nurse)
    assert check in failed, failed
    assert found in failed[check]


@pytest.fixture
def hygienist() -> Facts:
    profile = {
        "person": {
            "name": "Jas Toor",
            "location": "Vancouver, Canada",
            "summary": "Registered dental hygienist, local anaesthesia certified; periodontal maintenance.",
            "skills": ["scaling and root planing", "Dentrix", "Mental Health First Aid"],
            "experience": [
                {"employer": "Calder Dental", "title": "Dental Hygienist", "start": "2016-09-05",
                 "end": "2020-01-31"},
                {"employer": "Harbourview Dental Group", "title": "Registered Dental Hygienist",
                 "start": "2020-02-03"},
            ],
            "education": [
                {"institution": "Tecnológico de Monterrey", "degree": "Ingeniero Industrial",
                 "field": "Industrial Engineering", "year": 2012},
            ],
        },
        "writing": {"language": "en", "signature": "Jas Toor"},
    }  # fmt: skip
    listing = MergedListing(
        id="kits",
        title="Registered Dental Hygienist",
        company="Kitsilano Coast Dental",
        url="https://jobs.example.org/kits",
        description="We are a Fully Accredited practice. Travel to our clinics about 30% of the time.\n"
        "Nice to have\n- Experience with laser-assisted periodontal therapy\n- DSL training\n"
        "Contact: Tasha Reid.",
    )
    return Facts.of(msgspec.convert(profile, Profile), listing, today=date(2026, 12, 1))


@pytest.mark.parametrize(
    "text",
    [
        "Hi Tasha, laser-assisted periodontal therapy is something I'd love to learn.",
        "Hi Tasha, I'm fine with 30% travel between your clinics.",
        "Hi Tasha, I understand what keeping a Fully Accredited practice involves.",
        "Hi Tasha, I'm an industrial engineer from Tec de Monterrey turned hygienist.",
        "Hi Tasha, I'm a Mental Health First Aider and a hygienist at Harbourview.",
        "Hi Tasha, I'm certified in local anaesthesia and work in Dentrix.",
    ],
)
def test_the_listing_s_wishes_and_terms_said_back_and_the_profile_s_own_pass(
    text: str, hygienist: Facts
) -> None:
    """A wish named as something to learn, the listing's terms said back, a credential word said
    of a thing, a title the degree names from its school, a derived form, a credential in words."""
    assert failures(text, hygienist) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi Tasha, I've been doing laser-assisted periodontal therapy alongside SRP.", "skills", "laser"),
        ("Hi Tasha, I'm also certified in nitrous oxide sedation monitoring.", "certifications", "nitrous"),
        ("Hi Tasha, I'm a hygienist at Harbourview (DSL-trained).", "certifications", "DSL"),
        ("Hi Tasha, I treat patients of employers such as Globex at Harbourview.", "names", "Globex"),
        (
            "Hi Tasha, I began at Calder Dental, where I spent over five years on perio.",
            "numbers",
            "five years",
        ),
    ],
)
def test_a_wish_done_a_credential_in_words_a_client_and_a_stay_stretched_fail(
    text: str, check: str, found: str, hygienist: Facts
) -> None:
    """The listing's wish said as done, a credential in words no unit holds, a wished credential
    with a suffix, a client after "such as", and "over five years" for a stay of 3.4."""
    failed = failures(text, hygienist)
    assert check in failed, failed
    assert found in failed[check]
