"""The facts read from a CV, and the check that keeps only those the CV states.

Both readers (the rules in `jobsearch.cv.rules`, a model in `jobsearch.cv.llm_facts`) give a
`CvFacts`; `keep_stated` then drops every value that is not written in the CV's text (compared
without case, spacing or dash differences) and says what it dropped, so a profile written from a
CV holds nothing invented. Dates are parsed here from the CV's own wording ("03/2019", "Mar 2019",
"2019", "present"), never taken from a reader's guess.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Final

import msgspec

_MONTHS: Final = {
    "jan": 1, "january": 1, "januar": 1, "jänner": 1,
    "feb": 2, "february": 2, "februar": 2,
    "mar": 3, "march": 3, "mär": 3, "märz": 3, "maerz": 3,
    "apr": 4, "april": 4,
    "may": 5, "mai": 5,
    "jun": 6, "june": 6, "juni": 6,
    "jul": 7, "july": 7, "juli": 7,
    "aug": 8, "august": 8,
    "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "okt": 10, "oktober": 10,
    "nov": 11, "november": 11,
    "dec": 12, "december": 12, "dez": 12, "dezember": 12,
}  # fmt: skip
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?:19|20)\d\d"
# One date as CVs write it: "March 2019", "Mar. 2019", "03/2019", "3.2019", "2019-03", "2019".
DATE: Final = (
    rf"(?:(?:{_MONTH})\.?\s+{_YEAR}|(?:0?[1-9]|1[0-2])\s*[/.]\s*{_YEAR}|{_YEAR}-(?:0[1-9]|1[0-2])(?!\d)"
    rf"|{_YEAR})(?!\d)"
)
PRESENT: Final = r"(?:present|now|today|current|ongoing|heute|aktuell|jetzt|dato)"
_DATE_PARTS = re.compile(
    rf"(?:(?P<mname>{_MONTH})\.?\s+(?P<y1>{_YEAR})|(?P<mnum>0?[1-9]|1[0-2])\s*[/.]\s*(?P<y2>{_YEAR})"
    rf"|(?P<y3>{_YEAR})-(?P<miso>0[1-9]|1[0-2])|(?P<y4>{_YEAR}))",
    re.IGNORECASE,
)
_PRESENT = re.compile(rf"^{PRESENT}$", re.IGNORECASE)
DASHES: Final = "\u2010\u2011\u2013\u2014"  # hyphen, non-breaking hyphen, en and em dash
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
_DASHES = str.maketrans({**dict.fromkeys(DASHES, "-"), **_QUOTES})


def parse_date(text: str) -> date | None:
    """The first day of the month (or of the year) a CV's date names; None for anything else."""
    match = _DATE_PARTS.fullmatch(text.strip())
    if match is None:
        return None
    year = int(match["y1"] or match["y2"] or match["y3"] or match["y4"])
    month = match["mname"] and _MONTHS[match["mname"].casefold()]
    month = month or int(match["mnum"] or match["miso"] or 1)
    return date(year, month, 1)


def is_present(text: str) -> bool:
    """Whether a range's end says the role goes on ("present", "heute", ...)."""
    return bool(_PRESENT.match(text.strip()))


class Role(msgspec.Struct, kw_only=True, frozen=True):
    """One job the CV lists; `start_text`/`end_text` are its dates as the CV writes them."""

    employer: str
    title: str
    start_text: str | None = None
    end_text: str | None = None  # a date, or "present" and the like for the current role
    location: str | None = None
    highlights: list[str] = []
    source: str = ""  # the CV's line(s) it was read from, for the person to compare

    @property
    def start(self) -> date | None:
        """The start as a date (the 1st of the month the CV names)."""
        return parse_date(self.start_text) if self.start_text else None

    @property
    def end(self) -> date | None:
        """The end as a date; None for a current role or none stated."""
        return parse_date(self.end_text) if self.end_text else None

    @property
    def current(self) -> bool:
        """The CV says the role goes on."""
        return self.end_text is not None and is_present(self.end_text)


class Degree(msgspec.Struct, kw_only=True, frozen=True):
    """One degree or course the CV lists."""

    institution: str
    degree: str | None = None
    field: str | None = None
    year: int | None = None
    source: str = ""


class CvFacts(msgspec.Struct, kw_only=True, frozen=True):
    """Everything read from one CV, and by what ("rules", or "openai gpt-4o-mini")."""

    how: str
    name: str | None = None
    email: str | None = None
    phone: str | None = None
    summary: str | None = None  # the CV's summary section, else the headline under the name
    links: list[str] = []
    skills: list[str] = []
    experience: list[Role] = []
    education: list[Degree] = []
    unread: list[str] = []  # CV lines that look like a role or a degree but could not be split
    dropped: list[str] = []  # values a reader gave that the CV does not state (not written)


def normalised(text: str) -> str:
    """Text as the check compares it: no case, one space for any spacing, one kind of dash."""
    return " ".join(text.translate(_DASHES).casefold().split())


class _Check:
    """Whether a value is written in the CV; what was not is counted in `dropped`."""

    def __init__(self, cv_text: str) -> None:
        self.cv = normalised(cv_text)
        self.dropped: list[str] = []

    def stated(self, value: str | None, what: str) -> bool:
        if value is None:
            return False
        if value.strip() and normalised(value) in self.cv:
            return True
        self.dropped.append(f"{what} {value!r}")
        return False

    def date_text(self, value: str | None, what: str) -> str | None:
        if value is None:
            return None
        if parse_date(value) is None and not is_present(value):
            self.dropped.append(f"{what} {value!r} (not a date)")
            return None
        return value if self.stated(value, what) else None

    def listed(self, values: list[str], what: str) -> list[str]:
        kept: list[str] = []
        for value in values:
            if self.stated(value, what) and normalised(value) not in map(normalised, kept):
                kept.append(value)
        return kept


def keep_stated(facts: CvFacts, cv_text: str) -> CvFacts:
    """`facts` with every value the CV's text does not state removed and listed in `dropped`.

    A role whose employer or title is not in the CV is dropped whole (the role is the employer's);
    a degree whose institution is not, likewise; any other value is dropped alone.
    """
    check = _Check(cv_text)
    roles: list[Role] = []
    for role in facts.experience:
        if not (check.stated(role.employer, "employer") and check.stated(role.title, "title")):
            continue
        roles.append(
            Role(
                employer=role.employer,
                title=role.title,
                start_text=check.date_text(role.start_text, "start"),
                end_text=check.date_text(role.end_text, "end"),
                location=role.location if check.stated(role.location, "location") else None,
                highlights=check.listed(role.highlights, "highlight"),
                source=role.source,
            )
        )
    degrees: list[Degree] = []
    for degree in facts.education:
        if not check.stated(degree.institution, "institution"):
            continue
        year = degree.year if degree.year is not None and check.stated(str(degree.year), "year") else None
        degrees.append(
            Degree(
                institution=degree.institution,
                degree=degree.degree if check.stated(degree.degree, "degree") else None,
                field=degree.field if check.stated(degree.field, "field") else None,
                year=year,
                source=degree.source,
            )
        )
    links = [link for link in facts.links if _link_stated(check, link)]
    return CvFacts(
        how=facts.how,
        name=facts.name if check.stated(facts.name, "name") else None,
        email=facts.email if check.stated(facts.email, "email") else None,
        phone=facts.phone if check.stated(facts.phone, "phone") else None,
        summary=facts.summary if check.stated(facts.summary, "summary") else None,
        links=links,
        skills=check.listed(facts.skills, "skill"),
        experience=roles,
        education=degrees,
        unread=facts.unread,
        dropped=[*facts.dropped, *check.dropped],
    )


def _link_stated(check: _Check, link: str) -> bool:
    """A link is stated when its address is, with or without the scheme the CV left out."""
    if not re.match(r"^https?://\S+$", link):
        check.dropped.append(f"link {link!r}")
        return False
    bare = re.sub(r"^https?://", "", link)
    return check.stated(link if normalised(link) in check.cv else bare, "link")
