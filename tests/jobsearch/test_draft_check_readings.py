"""The draft checks' readings of what the seventeenth to nineteenth blind sets showed: a school
named by its place after a degree, a college of the person's school, a licence by its class code,
a team's size, a share or a span in words, a language pair, a title of the profile's own words;
and the inventions said the same way. A lineworker's and an interpreter's notes."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest

from jobsearch.draft.checks import Facts
from jobsearch.draft.checks.figures import figures
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.check_failures import failures

_LINEWORKER: dict[str, Any] = {
    "person": {
        "name": "Rhys Cooper",
        "location": "Rockhampton, Queensland",
        "summary": "Powerline worker on live-line crews. Queensland electrical linesperson licence and\n"
        "HR truck licence. English and Spanish.",
        "skills": ["HV glove and barrier", "C#", "LAMP Words for Life"],
        "experience": [
            {
                "employer": "Capricorn Power Networks",
                "title": "Powerline Worker",
                "start": "2019-02-04",
                "highlights": [
                    "Leads 3 apprentices on a live-line crew.",
                    "Replaced 180 wooden poles in 2023.",
                    "Cut paperwork by eight hours a week.",
                    "Roughly 40% of callouts were storm response.",
                    "Managed a S$3.2m maintenance budget and a \u20ac2.1bn asset register.",
                ],
            },
            {
                "employer": "Burdekin Line Services",
                "title": "Apprentice Lineworker",
                "start": "2014-01-06",
                "end": "2018-12-21",
            },
        ],
        "education": [
            {"institution": "Iowa State University", "degree": "B.S.", "field": "Veterinary Medicine",
             "year": 2013},
            {"institution": "Justice Institute of British Columbia", "degree": "Certificate",
             "field": "Primary Care Paramedic", "year": 2014},
            {"institution": "TAFE Queensland", "degree": "Certificate III",
             "field": "Distribution Overhead", "year": 2017},
            {"institution": "University of the Witwatersrand", "degree": "Diploma", "field": "Safety",
             "year": 2010},
        ],
    },
    "writing": {"language": "en", "signature": "Rhys Cooper"},
}  # fmt: skip


def _facts(person: dict[str, Any], title: str, company: str, description: str) -> Facts:
    """The facts of a profile and a listing of that title, company and text."""
    listing = MergedListing(
        id=title.lower().replace(" ", "-"),
        title=title,
        company=company,
        url="https://jobs.example.org/listing",
        description=description,
    )
    return Facts.of(msgspec.convert(person, Profile), listing, today=date(2026, 12, 1))


def _fails(text: str, facts: Facts, check: str, found: str) -> None:
    """`check` fails on `text`, quoting `found`."""
    failed = failures(text, facts)
    assert check in failed, failed
    assert found in failed[check]


@pytest.fixture
def lineworker() -> Facts:
    return _facts(
        _LINEWORKER,
        "Live Line Powerline Worker",
        "Coral Coast Network Services",
        "Join our live-line crew in Mackay.\n"
        "Applicants need a degree from an AVMA-accredited school.\n"
        "Nice to have\n- NFPA 1006 Rope Rescue Technician\n- Marine and shipboard firefighting experience\n"
        "- A second language spoken in our community",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Hi, I write C# tools for our crew at Capricorn.",
        "Hi, I earned my B.S. at Iowa State University College of Veterinary Medicine in 2013.",
        "Hi, I got my safety diploma at Wits and my PCP certificate at JIBC.",
        "Hi, I did my Cert III in Distribution Overhead at TAFE Queensland in 2017.",
        "Hi, I lead a crew of 3 apprentices and we replaced a hundred and eighty poles in 2023.",
        "Hi, I've spent over seven years in this role, after nearly five at Burdekin Line Services.",
        "Hi, I have more than twelve years on the tools and the last seven or so on live line.",
        "Hi, roughly two in five of my callouts were storm response.",
        "Hi, I ran a S$3m+ budget and know the AVMA-accredited school rule you mention.",
        "Hi, I took more than S$3 million of maintenance through my hands at Capricorn.",
        "Hi, my AAC work with LAMP is a hobby; I also hold an HR truck licence.",
        "Hi, as a team lead on my crew I train apprentices. Rhys",
    ],
)
def test_true_things_read_as_people_write_them_pass(text: str, lineworker: Facts) -> None:
    """A tool with a sign in its name, a college of the person's school, a school cut short, a
    vocational certificate and a short form of one, a team the profile gives, numbers in words,
    a span of the current role and of the jobs up to now, a share, a lower bound, a tool worked
    with, and a team lead for a person who leads apprentices."""
    assert failures(text, lineworker) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi, I earned my B.S. at South Dakota State in 2013.", "schools", "South Dakota State"),
        ("Hi, I'm a University of British Columbia graduate.", "schools", "University of British Columbia"),
        ("Hi, proud AGH grad and lineworker at Capricorn.", "schools", "AGH"),
        ("Hi, I also hold a Certificate IV in Distribution Overhead.", "degrees", "Certificate IV"),
        ("Hi, my certifications include NFPA 1006 Rope Rescue Technician.", "certifications", "1006"),
        ("Hi, I have responded to storms, gained experience in marine and shipboard firefighting.",
         "skills", "shipboard firefighting"),
        ("Hi, my tickets: linesperson licence, HR truck licence, C2 crane licence.", "certifications",
         "C2 crane licence"),
        ("Hi, at Capricorn I lead a team of eight apprentices.", "numbers", "eight apprentices"),
        ("Hi, I served as an acting lieutenant on my crew.", "titles", "acting lieutenant"),
    ],
)  # fmt: skip
def test_inventions_said_the_same_way_fail(text: str, check: str, found: str, lineworker: Facts) -> None:
    """A school by its place, one made of the person's schools' words, one before "grad", the
    next level of a certificate, the listing's wished standard, a wish done, a licence code no
    source writes, a team size the profile gives only for hours, a rank never held."""
    _fails(text, lineworker, check, found)


_INTERPRETER: dict[str, Any] = {
    "person": {
        "name": "Luc\u00eda Ortega",
        "location": "Madrid, Spain",
        "summary": "Sworn Translator-Interpreter of English appointed by the MAEC. Spanish and English.",
        "skills": ["consecutive interpreting", "Sworn Translator-Interpreter of English (MAEC)"],
        "experience": [
            {"employer": "Iberjur Traducciones", "title": "Senior Legal Interpreter", "start": "2018-03-01",
             "highlights": ["Interpreted for Casa Aurora, a client brand."]},
        ],
    },
    "writing": {"language": "en", "signature": "Luc\u00eda Ortega"},
}  # fmt: skip


@pytest.fixture
def interpreter() -> Facts:
    return _facts(
        _INTERPRETER,
        "Sworn Court Interpreter (English-Spanish)",
        "Juslingua",
        "We need a sworn English-Spanish interpreter. Questions to Beatriz Salcedo.",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Hello Beatriz, I was appointed Sworn Translator-Interpreter of English by the MAEC.",
        "Hello Beatriz, I'm a MAEC-appointed Sworn Translator-Interpreter of English.",
        "Hello Beatriz, I'm a sworn EN-ES interpreter (MAEC) at Iberjur.",
        "Hello Beatriz, I have been senior legal interpreter of Casa Aurora's cases at Iberjur.",
    ],
)
def test_titles_in_the_profiles_words_pass(text: str, interpreter: Facts) -> None:
    """An appointment the profile writes, a language pair in codes, a title of a client named."""
    assert failures(text, interpreter) == {}


def test_a_title_never_held_still_fails(interpreter: Facts) -> None:
    failed = failures("Hello Beatriz, I'm Head Interpreter at Iberjur.", interpreter)
    assert "Head Interpreter" in failed.get("titles", ""), failed


def test_numbers_in_words_with_hundreds() -> None:
    assert [f.value for f in figures("a hundred and eighty poles, two hundred and five, a hundred")] == [
        180,
        205,
        100,
    ]


_THERAPIST: dict[str, Any] = {
    "person": {
        "name": "Mere Walsh",
        "location": "Auckland, New Zealand",
        "summary": "Paediatric occupational therapist. Basic Life Support. IEng MIET.",
        "skills": ["Court of Master Sommeliers \u2013 Certified Sommelier", "CSWIP 3.1U Diver Inspector"],
        "experience": [
            {
                "employer": "Halvorsen & Price LLP",
                "title": "Occupational Therapist",
                "start": "2019-03-01",
                "highlights": [
                    "Secured $3.4 million in funding for the clinic in 2023.",
                    "Removed 1,200 m of old pipe at Invergordon.",
                ],
            }
        ],
        "education": [
            {
                "institution": "North East Scotland College",
                "degree": "BComm",
                "field": "Health",
                "year": 2012,
            },
        ],
    },
    "writing": {"language": "en", "signature": "Mere Walsh"},
}


@pytest.fixture
def therapist() -> Facts:
    return _facts(
        _THERAPIST,
        "Senior Occupational Therapist",
        "Tayside Therapy",
        "Tayside Therapy hires for its 2027 season. We need BLS, a degree and MIET.\n"
        "Nice to have: CSWIP 3.2U; an IRSE-accredited scheme; weekend cover.",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Hi, I secured $3.4 million in funding at H&P in 2023.",
        "Hi, I'm a paediatric OT. At Invergordon we removed 1,200 m of old pipe.",
        "Hi, I graduated from NESCol with a BComm and then from an IRSE-accredited scheme.",
        "Hi, you ask for BLS, a degree and MIET; I have all three.",
        "Hi, I'm BLS certified and registered as IEng with the IET.",
        "Hi, I saw Tayside Therapy is hiring for 2027. I hold CMS Certified Sommelier, oddly.",
    ],
)
def test_the_fourth_rounds_true_things_pass(text: str, therapist: Facts) -> None:
    """An amount after a capitalised verb in the profile, an employer's initials with its
    ampersand, a site the profile names, a kind of scheme, a college's initials and first
    syllable, a degree's short name, the letter's own list, a short form certified, a body by a
    member's letters, the listing's year, a credential by the initials of its body."""
    assert failures(text, therapist) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi, I also hold CSWIP 3.2U.", "certifications", "3.2U"),
        ("Hi, I'm a paediatric OT. PS: Anton Bester, my manager, is happy to speak to you.", "names",
         "Anton Bester"),
        ("Hi, I hold a BCom in Hospitality Management.", "degrees", "Hospitality Management"),
    ],
)  # fmt: skip
def test_the_fourth_rounds_inventions_fail(text: str, check: str, found: str, therapist: Facts) -> None:
    """A wish of the listing's run-on "Nice to have:" line held, a referee no source names, a
    degree's short name with a field the profile lacks."""
    _fails(text, therapist, check, found)


_SIGNALLER: dict[str, Any] = {
    "person": {
        "name": "Tom Ash",
        "location": "Leeds, England",
        "summary": "Signalling engineer working on paediatric hospital sidings. Salesforce Certified\n"
        "Administrator.",
        "experience": [
            {
                "employer": "Pennine Rail Systems",
                "title": "Senior Signalling Design Engineer",
                "start": "2019-03-01",
                "highlights": ["Raised availability from 84% to 91% over 2022-2023."],
            },
            {"employer": "Tayside Subsea", "title": "Saturation Diver", "start": "2012-01-02",
             "end": "2019-02-01"},
        ],
    },
    "writing": {"language": "en", "signature": "Tom Ash"},
}  # fmt: skip


@pytest.fixture
def signaller() -> Facts:
    return _facts(_SIGNALLER, "Signalling Principles Designer", "Irwell Rail", "Design signalling schemes.")


@pytest.mark.parametrize(
    "text",
    [
        "Hi, I'm a senior signalling designer at Pennine Rail Systems.",
        "Hi, I was a sat diver at Tayside Subsea before that.",
        "Hi, I'm certified Admin, and over two years we gained seven points of availability.",
    ],
)
def test_a_title_cut_short_and_a_gain_in_points_pass(text: str, signaller: Facts) -> None:
    """A title's words cut short, a credential's word written short, a span a range of years gives,
    a gain the profile's two percentages give."""
    assert failures(text, signaller) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi, I've been shop foreman at Pennine Rail Systems.", "titles", "shop foreman"),
        ("Hi, I'm a principal signalling designer at Pennine Rail Systems.", "titles", "principal"),
        ("Hi, over two years we gained nine points of availability.", "numbers", "nine"),
    ],
)
def test_titles_and_points_not_given_still_fail(text: str, check: str, found: str, signaller: Facts) -> None:
    _fails(text, signaller, check, found)


_ENGINEER: dict[str, Any] = {
    "person": {
        "name": "Rodrigo Garza",
        "location": "Monterrey, Mexico",
        "summary": "Automation engineer. Python.",
        "skills": ["MedDRA coding"],
        "experience": [
            {
                "employer": "Norteña Envases",
                "title": "Controls Engineer",
                "start": "2017-01-02",
                "highlights": [
                    "Commissioned 6 filling lines (600 bottles per minute).",
                    "Completed 180 audits at the plant and 140 at suppliers.",
                    "Ran a dry dock with a US$2.1m budget.",
                    "Processed around 4,200 reports a year.",
                ],
            }
        ],
        "education": [{"institution": "Tecnológico de Monterrey", "degree": "B.Eng.", "year": 2014}],
    },
    "writing": {"language": "en", "signature": "Rodrigo Garza"},
}


@pytest.fixture
def engineer() -> Facts:
    return _facts(
        _ENGINEER,
        "Automation Lead",
        "Ridgeline Packaging",
        "Report to Laura Villarreal, Director of Engineering.\nNice to have\n- SOAR playbooks\n"
        "- the refreshed safety curriculum",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Hi, I graduated from the Tec de Monterrey in 2014.",
        "Hi, I commissioned six filling lines running six hundred bottles a minute.",
        "Hi, I completed more than 300 audits at the plant and at suppliers combined.",
        "Hi, I ran a dry dock on a budget of about US$2 million.",
        "Hi, I know Ridgeline needs someone familiar with the refreshed safety curriculum.",
        "Hi, I script in Python; SOAR is new for me.",
        "Hi, I'd enjoy working with you as Director of Engineering, Laura.",
        "Hi, my signal work rests on MedDRA-coded case series.",
        "Hi, I processed about four thousand reports a year.",
        "Hi, I'd be keen to work toward a diploma in construction.",
        "Hi, it's the job I've been growing into as a credentialed controls engineer at Norteña Envases.",
    ],
)
def test_the_fifth_rounds_true_things_pass(text: str, engineer: Facts) -> None:
    """A school's word cut short, a number that runs machines, a total of two of the profile's
    figures, an amount rounded, the company's need, a gap, the reader's own title, a held skill as
    an adjective, a count of thousands rounded, a degree as a goal, a title after "growing into"."""
    assert failures(text, engineer) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi, I completed more than 900 audits combined.", "numbers", "900"),
        ("Hi, I ran a dry dock on a budget of about US$3 million.", "numbers", "3 million"),
    ],
)
def test_the_fifth_rounds_inventions_fail(text: str, check: str, found: str, engineer: Facts) -> None:
    _fails(text, engineer, check, found)
