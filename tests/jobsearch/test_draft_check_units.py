"""The draft checks on credentials read as one unit, names a profile writes, and tools no source
names: a sommelier's and a geologist's notes, short forms and inventions side by side."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest

from jobsearch.draft.checks import Facts
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.check_failures import failures

TODAY = date(2026, 12, 1)

_SOMMELIER: dict[str, Any] = {
    "person": {
        "name": "Lena Brandauer",
        "location": "Vienna, Austria",
        "summary": "Head sommelier in Vienna. WSET Level 4 Diploma in Wines (DipWSET) and Certified\n"
        "Sommelier with the Court of Master Sommeliers. German (native), English (fluent).",
        "skills": ["wine list curation", "cellar management", "Coravin service", "Gastrofix POS"],
        "experience": [
            {
                "employer": "Restaurant Eichenhof",
                "title": "Head Sommelier",
                "start": "2019-05-01",
                "location": "Vienna",
                "highlights": ["Run a list of 850 wines and a cellar of about 9,000 bottles."],
            }
        ],
        "education": [{"institution": "Tourismusschulen MODUL Wien", "degree": "Diploma", "year": 2010}],
    },
    "writing": {"language": "en", "signature": "Lena Brandauer"},
}
_SURVEYOR: dict[str, Any] = {
    "person": {
        "name": "Orla Brennan",
        "location": "Dublin, Ireland",
        "summary": "Chartered quantity surveyor (MSCSI MRICS) with eleven years in cost management;\n"
        "now a consultant QS in Dublin, measuring to NRM2 in CostX.",
        "skills": ["cost planning", "CostX", "Power BI", "AWS Certified Cloud Practitioner"],
        "experience": [
            {
                "employer": "Liffey Cost Consultants",
                "title": "Senior Quantity Surveyor",
                "start": "2020-03-02",
                "highlights": ["Costed a data centre with the client's certified Solutions Architect team."],
            }
        ],
        "education": [
            {
                "institution": "Universidad Católica del Norte",
                "degree": "BSc Quantity Surveying",
                "year": 2015,
            }
        ],
    },
    "writing": {"language": "en", "signature": "Orla Brennan"},
}


def _facts(profile: dict[str, Any], company: str, title: str, description: str) -> Facts:
    listing = MergedListing(
        id="l1", title=title, company=company, url="https://jobs.example.org/l1", description=description
    )
    return Facts.of(msgspec.convert(profile, Profile), listing, today=TODAY)


@pytest.fixture
def sommelier() -> Facts:
    return _facts(
        _SOMMELIER,
        "Palais Auer Hotel & Spa",
        "Head of Wine",
        "Palais Auer is a five-star hotel in Salzburg. You hold the WSET Diploma or CMS Advanced. "
        "Our cellar system is Oracle Simphony. Contact: Sabine Gruber, Director of F&B.",
    )


@pytest.fixture
def surveyor() -> Facts:
    return _facts(
        _SURVEYOR,
        "Corrib Build Consultancy",
        "Senior Quantity Surveyor",
        "Corrib Build runs public works in Galway. Measure to NRM2; CostX is our estimating tool.\n"
        "Nice to have: 5D BIM in Revit.\nContact: Fergal Keane.",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Hello Sabine, I'm a CMS Certified Sommelier with a DipWSET, head sommelier at Eichenhof.",
        "Hello Sabine, I hold the Court of Master Sommeliers' Certified Sommelier title.",
        "Hello Sabine, Vienna sommelier (WSET Diploma, CMS Certified) keen on your Head of Wine role.",
        "Dear Ms Gruber, I'm a Certified Sommelier with the Court of Master Sommeliers in Vienna.",
        "Hello Sabine, I'd love to run a hotel list in Salzburg; Oracle Simphony would be new to me.",
    ],
)
def test_a_credential_written_in_another_order_or_by_its_initials_passes(text: str, sommelier: Facts) -> None:
    """The profile's credential under its initials (CMS), a possessive, a shorter form, and the
    degree word inside a name the profile writes ("Court of Master Sommeliers") claim nothing new."""
    assert failures(text, sommelier) == {}


def test_a_chartered_qs_is_the_profile_s_chartered_quantity_surveyor(surveyor: Facts) -> None:
    """ "chartered QS (MSCSI MRICS)": every word is in the profile's one sentence, QS by its
    initials."""
    assert failures("Hi Fergal, I'm a chartered QS (MSCSI MRICS) in Dublin, in CostX daily.", surveyor) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        # words from two different lines of the profile make no credential of it
        ("Hi Fergal, I'm an AWS Certified Solutions Architect and a chartered QS.", "certifications", "AWS"),
        ("Hi Fergal, I do my measurement in CostX and Cubit for public clients.", "skills", "Cubit"),
        ("Hi Fergal, I run our cost checks in Datamine Studio RM weekly.", "skills", "Datamine Studio"),
        ("Hi Fergal, consultant QS in Dublin: NRM2, change registers in CostLedger.", "skills", "CostLedger"),
        ("Hi Fergal, I'm a QS from the Universidad de Chile, now at Liffey.", "schools", "de Chile"),
    ],
)
def test_inventions_beside_the_profile_s_own_words_still_fail(
    text: str, check: str, found: str, surveyor: Facts
) -> None:
    """A credential patched from two lines, a tool no source names listed with a held one or used
    in a clause about the person's work, and a school in Spanish that is not the profile's."""
    failed = failures(text, surveyor)
    assert check in failed, failed
    assert found in failed[check]


def test_an_honorific_before_a_word_of_the_company_s_name_is_an_invented_person(sommelier: Facts) -> None:
    """ "Mr. Auer": Auer is only ever the hotel's name, never a person the listing names; the
    listing's contact with her honorific passes."""
    assert "names" in failures("Dear Mr. Auer, I'd like to talk about the Head of Wine role.", sommelier)
    assert failures("Dear Ms Gruber, I'd like to talk about the Head of Wine role.", sommelier) == {}


@pytest.mark.parametrize(
    "text",
    [
        "Hi Fergal, I've worked in Dublin and Galway on public works, measuring in CostX.",
        "Hi Fergal, my estimates live in CostX and Power BI; your NRM2 work sounds familiar.",
        "Hi Fergal, I haven't used Revit yet but would pick it up quickly.",
    ],
)
def test_places_held_tools_and_gaps_are_no_invented_tools(text: str, surveyor: Facts) -> None:
    """A place after "in", the profile's own tools, and a tool named as a gap pass."""
    assert failures(text, surveyor) == {}


_CONTROLLER: dict[str, Any] = {
    "person": {
        "name": "Naledi Khumalo",
        "location": "Columbus, Ohio",
        "summary": "CIMA-qualified management accountant (ACMA, CGMA) running finance and operations\n"
        "of a cold-chain warehouse in Ohio.",
        "skills": ["month-end close", "ASCM CSCP", "NN/g UX Certification", "SAP S/4HANA"],
        "experience": [
            {
                "employer": "Buckeye Cold Storage",
                "title": "Warehouse Operations Manager",
                "start": "2020-01-06",
            }
        ],
        "education": [
            {"institution": "Bowling Green State University", "degree": "BSBA", "year": 2010},
            {"institution": "Hogeschool van Amsterdam", "degree": "BA", "year": 2012},
        ],
    },
    "writing": {"language": "en", "signature": "Naledi Khumalo"},
}


@pytest.fixture
def controller() -> Facts:
    return _facts(
        _CONTROLLER,
        "Prairieland Foods",
        "Financial Controller",
        "Prairieland Foods runs a DC in Plainfield. You are CIMA or CA(SA) qualified.\nContact: Dana Ortiz.",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Hi Dana, I'm a CIMA-qualified management accountant at Buckeye in Columbus.",
        "Hi Dana, I'm an ASCM Certified Supply Chain Professional at Buckeye Cold Storage.",
        "Hi Dana, I hold the Nielsen Norman Group UX Certification and run month-end close.",
        "Hi Dana, HvA-trained and a BGSU grad, now warehouse operations manager at Buckeye.",
        "Hi Dana, Bowling Green grad (BSBA, BA), running month-end close at Buckeye.",
    ],
)
def test_short_forms_spelled_out_and_the_profile_s_own_title_pass(text: str, controller: Facts) -> None:
    """A profile's short form written out (CSCP, NN/g), a school's initials with its small word
    (HvA), a title with "-qualified" as the profile writes it, degree letters the profile holds."""
    assert failures(text, controller) == {}


@pytest.mark.parametrize(
    ("text", "check", "found"),
    [
        ("Hi Dana, I'm director of operations at Buckeye Cold Storage.", "titles", "director of operations"),
        ("Hi Dana, Ohio State supply chain grad, now at Buckeye in Columbus.", "schools", "Ohio State"),
        ("Hi Dana, Naledi here, BSBA MBA (BGSU), at Buckeye in Columbus.", "degrees", "MBA"),
        ("Hi Dana, I'm a CA(SA) and CIMA member, at Buckeye in Columbus.", "certifications", "CA(SA)"),
    ],
)
def test_a_lower_case_title_a_school_before_grad_degree_letters_and_a_body_s_letters_fail(
    text: str, check: str, found: str, controller: Facts
) -> None:
    """ "director of operations" in lower case, a school named before "grad", degree letters
    listed after the profile's own, and the letters of a body only the listing accepts."""
    failed = failures(text, controller)
    assert check in failed, failed
    assert found in failed[check]
