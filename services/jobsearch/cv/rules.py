"""Facts from a CV's text by rules, when no model is configured: the reader of last resort.

No library reads a CV's structure (the CV parsers on PyPI are unmaintained or services), so these
rules are our own, and modest: sections by their usual headings (English and German), the name and
headline from the top lines, email, phone and links by their shapes, a role wherever a line
holds a date range (its employer and title told apart by legal suffixes and job words), a degree
wherever a line names a degree or an institution, skills from the skills section. What they
cannot split they leave in `unread`, for the profile's comments; they never fill in a blank.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from jobsearch.cv.extract import CvText, Line
from jobsearch.cv.facts import DASHES, DATE, PRESENT, CvFacts, Degree, Role

_HEADINGS: Final = {
    "experience": {
        "experience", "work experience", "professional experience", "employment", "employment history",
        "work history", "career", "career history", "berufserfahrung", "berufliche erfahrung",
        "beruflicher werdegang", "werdegang",
    },
    "education": {"education", "academic background", "studies", "ausbildung", "studium", "bildung"},
    "skills": {
        "skills", "technical skills", "core skills", "key skills", "skills tools", "technologies",
        "tech stack", "tools", "competencies", "kenntnisse", "fähigkeiten", "it-kenntnisse",
    },
    "summary": {"summary", "profile", "about", "about me", "professional summary", "profil", "über mich"},
    "other": {
        "languages", "projects", "certifications", "certificates", "interests", "publications",
        "references", "awards", "volunteering", "contact", "hobbies", "sprachen", "projekte",
        "interessen", "personal details", "kontakt",
    },
}  # fmt: skip
_SECTION_OF: Final = {name: section for section, names in _HEADINGS.items() for name in names}
_RANGE = re.compile(
    rf"(?:(?:since|seit)\s+(?P<since>{DATE})"
    rf"|(?P<a>{DATE})\s*(?:[-{DASHES}]|to|bis|until)\s*(?P<b>{DATE}|{PRESENT}))",
    re.IGNORECASE,
)
_SINGLE = re.compile(DATE, re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://[^\s)<>\]|,]+|(?:www\.|github\.com/|linkedin\.com/in/)[^\s)<>\]|,]+")
_PHONE = re.compile(r"(?<![\w+])(?:\+\d|\(\d|0\d)[\d ()./-]{6,}\d")
_NAME_WORD = re.compile("^(?:[A-ZÀ-ÖØ-Þ][\\w'\u2019.-]*|van|von|de|der|den|da|di|du|del|la|le|bin|al)$")
_SPLIT = re.compile(rf"\s+[|·•{DASHES}-]\s+|\s*\|\s*|,\s+|\s+@\s+|\s+at\s+|\s+bei\s+")
_SEPARATORS = f" ,|·-{DASHES}"
_ROLE_WORDS: Final = frozenset(
    {
        "engineer", "developer", "programmer", "manager", "analyst", "designer", "consultant", "scientist",
        "architect", "lead", "head", "director", "intern", "internship", "specialist", "administrator",
        "officer", "teacher", "nurse", "researcher", "assistant", "associate", "coordinator", "owner",
        "founder", "cto", "ceo", "cfo", "coo", "vp", "president", "editor", "writer", "accountant",
        "technician", "sre", "devops", "tester", "qa", "advisor", "trainee", "student", "werkstudent",
        "entwickler", "ingenieur", "berater", "leiter", "referent", "praktikant", "mitarbeiter",
        "sachbearbeiter",
    }
)  # fmt: skip
_LEGAL_WORDS: Final = frozenset(
    {
        "gmbh", "ag", "inc", "inc.", "ltd", "ltd.", "llc", "plc", "se", "sa", "s.a.", "bv", "b.v.", "kg",
        "co", "co.", "corp", "corp.", "corporation", "company", "group", "gbr", "ug", "e.v.", "oy", "ab",
        "as", "a/s", "srl", "s.r.l.", "spa", "pty", "limited", "holding", "labs",
    }
)  # fmt: skip
_INSTITUTION = re.compile(
    r"universit|college|school|institut|hochschule|academ|akademie|polytechn|politecnico|école|"
    r"\bTU\b|\bETH\b|\bEPFL\b|\bMIT\b|\bUCL\b",
    re.IGNORECASE,
)
_DEGREE = re.compile(
    r"\b(?:Ph\.?\s?D\.?|Dr\.|M\.\s?Sc\.?|B\.\s?Sc\.?|MSc|BSc|M\.\s?A\.|B\.\s?A\.|MA|BA|M\.?\s?Eng\.?|"
    r"B\.?\s?Eng\.?|MBA|Dipl\.-?\s?\w+\.?|(?i:diplom\w*|bachelor(?:'s)?(?: of (?:science|arts|engineering))?"
    r"|master(?:'s)?(?: of (?:science|arts|engineering|business administration))?|doctor(?:ate)?"
    r"(?: of philosophy)?|abitur|diploma|a-levels?))(?!\w)"
)
_SKILL_SPLIT = re.compile(r"\s*[,;|•·]\s*|\s+-\s+")


def read_facts(cv: CvText) -> CvFacts:
    """Read the person, roles, degrees and skills from the CV's lines by rules."""
    sections = dict(_sections(cv.lines))
    top = sections.get("top", [])
    name, headline = _name_and_headline(top)
    text = cv.text
    summary_lines = [line.text for line in sections.get("summary", []) if not line.heading]
    roles, unread = _roles(sections.get("experience", []))
    degrees, unread_degrees = _degrees(sections.get("education", []))
    email = _EMAIL.search(text)
    return CvFacts(
        how="rules",
        name=name,
        email=email.group(0) if email else None,
        phone=_phone(top or cv.lines[:8]),
        summary=" ".join(summary_lines)[:2000] or headline,
        links=_links(text),
        skills=_skills(sections.get("skills", [])),
        experience=roles,
        education=degrees,
        unread=unread + unread_degrees,
    )


def _section(line: Line) -> str | None:
    """The section a heading line opens (a known heading only: a role is often a heading too)."""
    if line.item or len(line.text.split()) > 4:
        return None
    return _SECTION_OF.get(" ".join(re.sub(r"[^\w\s-]", " ", line.text.casefold()).split()))


def _sections(lines: list[Line]) -> Iterator[tuple[str, list[Line]]]:
    current, body = "top", []
    found: dict[str, list[Line]] = {}
    for line in lines:
        section = _section(line)
        if section is None:
            body.append(line)
            continue
        found.setdefault(current, []).extend(body)
        current, body = section, []
    found.setdefault(current, []).extend(body)
    yield from found.items()


def _name_and_headline(top: list[Line]) -> tuple[str | None, str | None]:
    for i, line in enumerate(top[:6]):
        label = re.match(r"^(?:name|full name)\s*:\s*(.+)$", line.text, re.IGNORECASE)
        text = label.group(1) if label else line.text
        words = text.split()
        if 2 <= len(words) <= 5 and len(text) <= 80 and all(_NAME_WORD.match(w) for w in words):
            following = top[i + 1].text if i + 1 < len(top) else ""
            return text, following if _headline_like(following) else None
    return None, None


def _headline_like(text: str) -> bool:
    contact = _EMAIL.search(text) or _URL.search(text) or _PHONE.search(text) or _SINGLE.search(text)
    return bool(text) and not contact and len(text.split()) <= 14


def _phone(lines: list[Line]) -> str | None:
    for line in lines:
        for match in _PHONE.finditer(line.text):
            digits = sum(c.isdigit() for c in match.group(0))
            if 8 <= digits <= 15 and not _RANGE.search(match.group(0)):
                return match.group(0).strip()
    return None


def _links(text: str) -> list[str]:
    links: list[str] = []
    for match in _URL.finditer(text):
        link = match.group(0).rstrip(".;:")
        link = link if link.startswith(("http://", "https://")) else f"https://{link}"
        if link not in links:
            links.append(link)
    return links


def _skills(lines: list[Line]) -> list[str]:
    skills: list[str] = []
    for line in lines:
        text = line.text
        label = re.match(r"^([\w &/+-]{1,30}):\s*(.+)$", text)
        if label:  # "Languages: Python, Go": the label is not a skill
            text = label.group(2)
        for piece in _SKILL_SPLIT.split(text):
            skill = piece.strip(" .")
            fits = 1 <= len(skill) <= 40 and len(skill.split()) <= 4 and not skill.isdigit()
            if fits and skill.casefold() not in {s.casefold() for s in skills}:
                skills.append(skill)
    return skills


# --- roles ---------------------------------------------------------------------------------------


def _header_like(line: Line) -> bool:
    """A line that can name a title or an employer: short, no sentence, no bullet."""
    text = line.text
    return not line.item and len(text.split()) <= 8 and not text.endswith(".") and not _RANGE.search(text)


def _role_score(text: str) -> int:
    return sum(w.strip("(),") in _ROLE_WORDS for w in text.casefold().split())


def _employer_score(text: str) -> int:
    return sum(w.strip("(),") in _LEGAL_WORDS for w in text.casefold().split())


def _segments(text: str) -> list[str]:
    return [s.strip(_SEPARATORS) for s in _SPLIT.split(text) if s.strip(_SEPARATORS)]


def _roles(lines: list[Line]) -> tuple[list[Role], list[str]]:
    anchors = [i for i, line in enumerate(lines) if not line.item and _RANGE.search(line.text)]
    roles: list[Role] = []
    unread: list[str] = []
    taken: set[int] = set()  # lines used as a role's title or employer
    for k, i in enumerate(anchors):
        line = lines[i]
        span = _RANGE.search(line.text)
        assert span is not None
        start, end = (span["since"], "present") if span["since"] else (span["a"], span["b"])
        rest = line.text[: span.start()] + " | " + line.text[span.end() :]
        at = re.search(r"\s(?:at|@|bei)\s", rest)
        segments = _segments(rest)
        used = [i]
        floor = anchors[k - 1] + 1 if k else 0
        before = lines[i - 1] if i - 1 >= floor and i - 1 not in taken else None
        # The line above names the title or the employer when this line lacks one.
        if before is not None and _header_like(before) and _completes(segments, before.text):
            segments.insert(0, before.text)
            used.append(i - 1)
        after = i + 1
        limit = anchors[k + 1] if k + 1 < len(anchors) else len(lines)
        while len(segments) < 2 and after < limit and _header_like(lines[after]):
            segments.append(lines[after].text)
            used.append(after)
            after += 1
        taken.update(used)
        picked = _title_and_employer(segments, title_first=at is not None)
        source = " / ".join(lines[j].text for j in sorted(used))
        if picked is None:
            unread.append(source)
            continue
        title, employer, others = picked
        location = next((s for s in others if len(s.split()) <= 3 and not any(c.isdigit() for c in s)), None)
        highlights = _highlights([lines[j] for j in range(i + 1, limit) if j not in used])
        roles.append(
            Role(
                employer=employer,
                title=title,
                start_text=start,
                end_text=end,
                location=location,
                highlights=highlights,
                source=source,
            )
        )
    return roles, unread


def _completes(segments: list[str], text: str) -> bool:
    if len(segments) < 2:
        return True
    lacks_title = not any(map(_role_score, segments))
    lacks_employer = not any(map(_employer_score, segments))
    return (lacks_title and _role_score(text) > 0) or (lacks_employer and _employer_score(text) > 0)


def _title_and_employer(segments: list[str], *, title_first: bool) -> tuple[str, str, list[str]] | None:
    if len(segments) < 2:
        return None
    by_role = max(segments, key=_role_score)
    by_legal = max(segments, key=_employer_score)
    title = by_role if _role_score(by_role) else None
    employer = by_legal if _employer_score(by_legal) and by_legal != title else None
    if title is None and employer is None:
        title, employer = segments[0], segments[1]  # "Title, Employer" and "Title at Employer"
    elif title is None:
        title = next(s for s in segments if s != employer)
    elif employer is None:
        rest = [s for s in segments if s != title]
        employer = rest[0] if title_first or segments.index(title) == 0 else rest[-1]
    assert title is not None
    assert employer is not None
    return title, employer, [s for s in segments if s not in (title, employer)]


def _highlights(body: list[Line]) -> list[str]:
    highlights: list[str] = []
    last_item = False
    for line in body:
        if _section(line) is not None:
            break
        if line.item:
            highlights.append(line.text)
        elif last_item and highlights and not line.text[:1].isupper():
            highlights[-1] += " " + line.text  # a bullet the PDF wrapped onto the next line
            continue
        elif len(line.text.split()) > 6:
            highlights.append(line.text)
        last_item = line.item
    return highlights


# --- education -----------------------------------------------------------------------------------


class _Degrees:
    """The education section's degrees, read line by line: a line naming an institution or a
    degree that the current entry already has starts the next entry."""

    def __init__(self) -> None:
        self.degrees: list[Degree] = []
        self.unread: list[str] = []
        self.current: dict[str, str] = {}
        self.sources: list[str] = []

    def close(self) -> None:
        current, source = self.current, " / ".join(self.sources)
        if "institution" in current:
            year = current.get("year")
            self.degrees.append(
                Degree(
                    institution=current["institution"],
                    degree=current.get("degree"),
                    field=current.get("field"),
                    year=int(year) if year else None,
                    source=source,
                )
            )
        elif current:
            self.unread.append(source)
        self.current, self.sources = {}, []

    def segment(self, segment: str) -> bool:
        """Take one part of a line; False if it is none of institution, degree or field."""
        degree = _DEGREE.search(segment)
        if _INSTITUTION.search(segment) and not degree:
            if "institution" in self.current:
                self.close()
            self.current["institution"] = segment
        elif degree:
            if "degree" in self.current:
                self.close()
            self.current["degree"] = degree.group(0).strip()
            field = re.sub(r"^(?:in|of)\s+", "", segment[degree.end() :].strip(" ,:-"))
            if field:
                self.current["field"] = field
        elif "degree" in self.current and "field" not in self.current and len(segment.split()) <= 5:
            self.current["field"] = segment
        else:
            return False
        return True

    def line(self, line: Line) -> None:
        rest = _SINGLE.sub(" | ", _RANGE.sub(" | ", line.text))
        used = [self.segment(segment) for segment in _segments(rest)]
        dates = list(_SINGLE.finditer(line.text))
        if dates and self.current:
            self.current["year"] = re.findall(r"(?:19|20)\d\d", dates[-1].group(0))[-1]
            used.append(True)
        if any(used) and line.text not in self.sources:
            self.sources.append(line.text)


def _degrees(lines: list[Line]) -> tuple[list[Degree], list[str]]:
    reader = _Degrees()
    for line in lines:
        if not line.item:
            reader.line(line)
    reader.close()
    return reader.degrees, reader.unread
