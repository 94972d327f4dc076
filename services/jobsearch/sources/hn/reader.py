"""Read one "Who is hiring?" comment the way a person does.

The first line is cut into fields by whatever the writer separated them with (`|`, ` - `, em dashes,
` / `, commas), or read as `Key: value` lines, or as prose ("Acme is hiring a ... in Berlin");
each field is read by what it is (`fields`). The company is the first field that is a name (or
the `Company:` value, or the "at Company" of "Role at Company"); the roles are the title fields
and the lines of their own below (`roles`). Each role keeps its own place, pay and link and
shares the rest of the first line's.
"""

from __future__ import annotations

import re
from typing import Final

from jobsearch.salary import salary_from_text
from jobsearch.sources.hn import fields as f
from jobsearch.sources.hn import skips
from jobsearch.sources.hn import vocab as v
from jobsearch.sources.hn.links import apply_link, is_careers_page
from jobsearch.sources.hn.markup import Line, lines
from jobsearch.sources.hn.posting import Reading, Role
from jobsearch.sources.hn.roles import RolePart, body_roles, role_from, titles_in

MAX_ROLES: Final = 40  # roles read from one comment (the longest real ones list a dozen or two)
_AT: Final = re.compile(r"^(?P<title>.+?)\s+(?:at|@)\s+(?P<company>[A-Z0-9][^,;|()]{0,60}?)\s*$")
_PROSE_START: Final = re.compile(r"(?i:hi\b|hello\b|we(?:'re|\u2019re|\s+are)\b|.{0,80}\bhiring\b)")
_PROSE_COMPANY: Final = re.compile(
    r"^(?i:hi[,!]?\s+)?(?i:we(?:'re|\u2019re|\s+are)\s+)?"
    r"(?P<company>[A-Z0-9][\w&.'\u2019 -]{0,40}?)\s*(?:\([^)]*\))?"
    r"(?:,|\s+(?:is|are)\s+(?:hiring|looking|growing|building)|\s+[\u2014\u2013-]\s)"
)
_WE_ARE: Final = re.compile(
    r"\b(?i:we(?:'re|\u2019re|\s+are))\s+(?P<company>[A-Z][\w&.'\u2019-]*(?:\s+[A-Z][\w&.'\u2019-]*){0,4})"
    r"(?:\s*\([^)]*\))?(?=\s+and\b|,|\.|\s+[\u2014\u2013-]|\s+(?:is|are)\b|\s*\()"
)
_IS_HIRING: Final = re.compile(
    r"\b(?P<company>[A-Z][\w&.'\u2019-]*(?:\s+[A-Z][\w&.'\u2019-]*){0,4})(?:\s*\([^)]*\))?\s+(?:is|are)\s+hiring\b"
)
_PROSE_ROLE: Final = re.compile(
    r"\bhiring(?:\s+for)?[!:.]?\s+(?:an?\s+|our\s+first\s+|one\s+|two\s+|several\s+)?(?P<rest>[A-Z].+)"
)
_KEYED_LINE: Final = re.compile(
    r"^(?:company|employer|roles?|positions?|titles?|location|salary|compensation|pay)\s?:\s", re.I
)
_BODY_TITLE: Final = re.compile(r"^(?:roles?|positions?|titles?|job)\s?:\s+(?P<title>.+)$", re.I)
_BODY_KEY: Final = re.compile(
    r"^(?:locations?|salary|compensation|comp|pay|remote|type|employment|apply|how\s+to\s+apply|e-?mail)\s?:\s",
    re.I,
)
_REGION_IN_TEXT: Final = re.compile(
    r"\b(?:anywhere|remote(?:ly)?|hire)\s+(?:with)?in\s+(?:the\s+)?(?P<region>(?:[A-Z][\w]+|[A-Z]{2,})(?:\s+[A-Z][\w]+)?)"
)
_URL_IN_PARENS: Final = re.compile(
    r"\s*\(\s*(?:https?://|www\.)[^)]*\)|\s*(?:https?://|www\.)\S+"
    r"|\s*\((?:[\w-]+\.)+[a-z]{2,}(?:/[^)]*)?\)"  # "Acme (acme.com)"
)
# "jobs [at] acme [dot] com", "hiring (at) acme.io": an address written so scrapers miss it.
_HIDDEN_EMAIL: Final = re.compile(
    r"\b([\w.+-]+)\s*(?:\[at\]|\(at\)|\{at\}|\s+at\s+(?=[\w-]+\s*(?:\[dot\]|\(dot\)|\s+dot\s+)))\s*"
    r"([\w-]+(?:\s*(?:\[dot\]|\(dot\)|\.|\s+dot\s+)\s*[\w-]+)+)",
    re.I,
)
# "Acme - AI for law firms", "Acme: we build ...": the name before its tagline.
_TAGLINE: Final = re.compile(r"(?:\s+[\u2014\u2013-]\s+|:\s+)\S+\s+\S+.*$")
_BASED_IN: Final = re.compile(
    r"\b(?:based|located|headquartered|offices?|office)\s+in\s+(?P<place>[A-Z][\w.'-]*(?:\s[A-Z][\w.'-]*){0,2}"
    r"(?:,\s*[A-Z][\w.]*(?:\s[A-Z][\w]*)?)?)"
)


def read_comment(html: str) -> Reading:
    """The postings of a comment's HTML, or why it has none."""
    seen = lines(html)
    if not seen:
        return Reading(skip="deleted comment")
    plain = "\n".join(line.text for line in seen)
    if (why := skips.not_a_posting(plain)) is not None:
        return Reading(skip=why)
    header, body = _header(seen)
    company, titles, shared = _first_line(header)
    for line in body:  # "Location: Berlin", "Salary: ..." below a first line that says neither
        if not titles and (keyed := _BODY_TITLE.match(line.text)) is not None:
            titles.extend(titles_in(keyed["title"]))
        elif _BODY_KEY.match(line.text):
            said = f.read(line.text, links=line.links)
            if said.kind not in ("place", "where") or not shared.places:
                shared.take(said)
    if not titles and not any(x.kind == "several" for x in header):
        prose = _prose(seen[0].text, seen[0].links)
        if prose is not None:
            company, titles = prose[0] or company, [prose[1]]
    found = body_roles(
        body, listing=seen[0].text.rstrip().endswith(":") or any(x.kind == "several" for x in header)
    )
    known = {t.title.casefold() for t in titles}
    roles = [*titles, *(r for r in found if r.title.casefold() not in known)]
    if not roles or not company:
        return Reading(skip=skips.why_none(plain, seen[0].text))
    roles = roles[:MAX_ROLES]
    return Reading(company=company, roles=[_role(r, shared, seen, plain, roles) for r in roles])


def _header(seen: list[Line]) -> tuple[list[f.Field], list[Line]]:
    """The first line's fields (or the `Key: value` lines at the top), and the lines below."""
    if _KEYED_LINE.match(seen[0].text):
        top = 0
        while top < len(seen) and f.read(seen[top].text).kind != "name" and ":" in seen[top].text[:25]:
            top += 1
        return [f.read(line.text, links=line.links) for line in seen[:top]], seen[top:]
    first = seen[0]
    return [f.read(p, links=_links_in(p, first.links)) for p in split_first_line(first.text)], seen[1:]


def _links_in(text: str, links: list[str]) -> list[str]:
    return [u for u in links if u in text or u[:57] in text]


def split_first_line(text: str) -> list[str]:
    """The first line's fields, cut at the separator its writer used; one field for prose."""
    if "|" in text:
        parts = text.split("|")
    elif re.search(r"\s[\u00b7\u2022]\s", text):  # "Acme · Senior Engineer · Berlin"
        parts = re.split(r"\s[\u00b7\u2022]\s", text)
    elif re.search(r"\s[\u2014\u2013]\s", text):
        parts = re.split(r"\s[\u2014\u2013]\s", text)
    elif (
        len(pieces := f.split_outside(re.compile(r"\s+-\s+"), text)) >= 3
        or len(pieces := f.split_outside(re.compile(r"\s+/\s+"), text)) >= 3
    ):
        parts = pieces
    else:
        parts = f.split_outside(re.compile(r",\s+"), text)
        if len(parts) < 4 or _PROSE_START.match(parts[0]) or f.is_sentence(parts[0]):
            return [text]
        return merge_places([p.strip() for p in parts if p.strip()])
    return [p.strip() for p in parts if p.strip()]


def merge_places(parts: list[str]) -> list[str]:
    """`Zürich`, `Switzerland` cut apart by a comma separator: one place again."""
    out: list[str] = []
    for part in parts:
        area = re.sub(r"\s*\([^)]*\)", "", part)
        if (
            out
            and f.is_place(f"{out[-1]}, {area}")
            and (area in v.STATE_CODES or area.casefold() in v.COUNTRIES)
        ):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


class _Shared:
    """What the first line says for every role of the comment."""

    def __init__(self) -> None:
        self.head = RolePart(title="")
        self.several = False


def _first_line(header: list[f.Field]) -> tuple[str, list[RolePart], RolePart]:
    """The company, the roles the title fields name, and the fields every role shares."""
    shared = _Shared()
    company = next((x.text for x in header if x.kind == "company"), "")
    titles: list[RolePart] = []
    names: list[tuple[int, f.Field]] = []
    for n, found in enumerate(header):
        at = _AT.match(found.text) if found.kind in ("title", "name", "sentence") else None
        if at is not None and f.is_title(at["title"]) and not company:
            company = at["company"].strip()
            titles.extend(titles_in(at["title"]))
        elif found.kind == "title":
            titles.extend(titles_in(found.text))
        elif found.kind == "several":
            shared.several = True
            if (listed := re.match(r"^[^:]{1,40}:\s+(?P<titles>.+)$", found.text)) is not None:
                titles.extend(titles_in(listed["titles"]))  # "Engineering roles: A Engineer, B Engineer"
        elif found.kind in ("name", "funding") or (n == 0 and found.kind in ("sentence", "visa", "other")):
            names.append((n, found))
        else:
            shared.head.take(found)
    if not company and names:
        n, first = names.pop(0)
        company = first.text
    elif not company and titles and header and header[0].kind == "title" and len(titles) > 1:
        company = ""
    # A short capitalised name after the company, read by nothing else, is a place ("Boise").
    for _, rest in names:
        if rest.kind == "name" and re.fullmatch(r"(?:[A-ZÀ-Ý][\w'.-]*\s?){1,3}", rest.text) and titles:
            shared.head.places.append(rest.text)
    return _company(company), titles, shared.head


def _company(text: str) -> str:
    text = _TAGLINE.sub("", _URL_IN_PARENS.sub("", text))
    text = re.sub(r"\s+(?:is|are)\s+hiring.*$", "", text, flags=re.I)
    return text.strip(" ,.;:-\u2013\u2014!")


def _prose(text: str, links: list[str]) -> tuple[str, RolePart] | None:
    """ "Acme is hiring a Flight Software Engineer in Seattle, WA (onsite)": the company and role."""
    named = _WE_ARE.search(text) or _IS_HIRING.search(text) or _PROSE_COMPANY.match(text)
    hiring = _PROSE_ROLE.search(text)
    if hiring is None:
        return None
    sentence = re.split(r"(?<=[.!?])\s+", hiring["rest"], maxsplit=1)[0].rstrip(".!")
    sentence = re.sub(r"\s+(?:in|based\s+in)\s+(?=[A-Z])", ", ", sentence)
    role = role_from(", ".join(merge_places(f.split_outside(re.compile(r",\s+"), sentence))), links)
    if role is None:
        return None
    if role.salary is None:
        role.salary = salary_from_text(text)
    return (_company(named["company"]) if named else ""), role


def _role(part: RolePart, shared: RolePart, seen: list[Line], plain: str, roles: list[RolePart]) -> Role:
    """One role: its own fields, else the first line's, else the comment's."""
    own_links = {u for r in roles for u in r.links if not is_careers_page(u)}
    comment_links = [u for line in seen for u in line.links if u not in own_links or u in shared.links]
    bare = [u for m in v.URL.finditer(plain) if (u := m.group(0).rstrip(".,)")) not in own_links]
    workplace = part.workplace or shared.workplace
    region = part.region or shared.region
    if workplace == "remote" and region is None and (found := _REGION_IN_TEXT.search(plain)) is not None:
        region = found["region"]
    email = v.EMAIL.search(plain)
    hidden = _HIDDEN_EMAIL.search(plain) if email is None else None
    address = email.group(0) if email else _address(hidden) if hidden else None
    places = list(dict.fromkeys(part.places or shared.places))
    if not places and workplace != "remote" and (based := _BASED_IN.search(plain)) is not None:
        places = f.places_in(based["place"])
    return Role(
        title=part.title,
        places=places,
        workplace=workplace,
        region=region,
        employment=part.employment or shared.employment,
        salary=part.salary or shared.salary,
        url=part.url or shared.url or apply_link([*comment_links, *bare]),
        email=part.email or shared.email or address,
        own_text=part.text,
    )


def _address(hidden: re.Match[str]) -> str:
    domain = re.sub(r"\s*(?:\[dot\]|\(dot\)|\s+dot\s+|\.)\s*", ".", hidden.group(2), flags=re.I)
    return f"{hidden.group(1)}@{domain}"
