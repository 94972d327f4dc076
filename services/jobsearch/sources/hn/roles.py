"""The roles a comment names: in its first line's title field, and in lines of their own.

A title field may name several roles ("Backend Engineer, Frontend Engineer", "Backend, Frontend
and Data Engineers"). Below the first line, a role has a line of its own: a bullet, a numbered
line, a row of a preformatted table, a `Title | Place | Pay | Link` line, or "Also hiring a ...".
Each role keeps what its own line says (place, pay, link, where); the comment fills in the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from jobsearch.listing import Salary, Workplace
from jobsearch.sources.hn import fields as f
from jobsearch.sources.hn import vocab as v
from jobsearch.sources.hn.links import apply_link
from jobsearch.sources.hn.markup import Line

_BULLET: Final = re.compile(r"^\s*(?:[-*•·\u2013\u2014>]|\d{1,2}[.)]|\(\d{1,2}\))\s+(?P<rest>.+)$")
_ALSO: Final = re.compile(
    r"(?:^|\b)(?:(?:we(?:'re|\s+are)\s+)?also\s+(?:hiring|looking\s+for|seeking)(?:\s+for)?\s*:?\s*(?:an?\s+)?"
    r"|^also(?:\s+(?:open|available|hiring))?\s*:\s*)(?P<rest>[A-Z].+)$",
    re.I,
)
_ROLE_SEPARATOR: Final = re.compile(
    r"\s*\|\s*|\s+[\u2014\u2013-]\s+|\s{2,}|,\s+|;\s*|\s*\t\s*|:\s+|\s+[\u00b7\u2022]\s+"
)
_TITLE_JOIN: Final = re.compile(r",\s+(?:and\s+)?|\s+and\s+|\s+&\s+|\s*/\s+")
_SINGULAR: Final = re.compile(r"(?<=[a-z])s$")


@dataclass
class RolePart:
    """A role as one line or field names it, with what that line says of it."""

    title: str
    places: list[str] = field(default_factory=list)
    workplace: Workplace | None = None
    region: str | None = None
    employment: str | None = None
    salary: Salary | None = None
    links: list[str] = field(default_factory=list)
    email: str | None = None
    text: str = ""  # the line or field that names it

    def take(self, found: f.Field) -> bool:
        """Keep what a field of the role's line says; False when it says nothing of the role."""
        if found.kind == "pay" and found.salary is not None:
            self.salary = self.salary or found.salary
        elif found.kind == "where":
            self.workplace = self.workplace or found.workplace
            self.region = self.region or found.region
            self.places.extend(found.places)
        elif found.kind == "place":
            self.places.extend(found.places)
        elif found.kind == "region":
            self.region = self.region or found.region
        elif found.kind == "type":
            self.employment = self.employment or found.employment
        elif found.kind == "url":
            self.links.extend(found.links)
        elif found.kind == "email":
            self.email = self.email or found.text
        else:
            return False
        return True

    @property
    def url(self) -> str | None:
        return apply_link(self.links)


def role_from(text: str, links: list[str] | None = None, *, sure: bool = False) -> RolePart | None:
    """The role a line or field names (`Perception Engineer ($150k-$190k)`, `DSP Engineer  SEK
    650k-800k`, `Senior Rust Engineer | €85k | https://...`); None when it names none. `sure`: the
    text is known to be a title (a `Role:` value)."""
    segments = f.split_outside(_ROLE_SEPARATOR, text.strip())
    if not segments:
        return None
    head, *rest = segments
    head = re.sub(
        r"^(?:an?|one|two|three|our(?:\s+first)?)\s+(?=[A-Z])", "", head.strip()
    )  # "- a Senior ..."
    title, inside = _title_and_parens(head)
    if not title or not (sure or f.is_title(title)):
        return None
    role = RolePart(title=title, links=[u for u in links or [] if u], text=text.strip())
    for piece in inside:
        role.take(f.read(piece))
    follows_title = True
    for segment in rest:
        found = f.read(segment, links=[u for u in links or [] if u in segment or u[:57] in segment])
        named, terms = _title_and_parens(segment)
        if follows_title and terms and _short_capitalised(named) and f.read(named).kind == "name":
            role.title = f"{role.title}, {named}"  # "Payments ($165k-$190k)"
            for piece in terms:
                role.take(f.read(piece))
            follows_title = False
            continue
        if role.take(found):
            follows_title = False
        elif follows_title and found.kind == "name" and _short_capitalised(segment):
            role.title = f"{role.title}, {segment.strip()}"  # "Research Scientist, Multimodal"
    if kind := f.employment(role.title):
        role.employment = role.employment or kind
    return role


def _title_and_parens(text: str) -> tuple[str, list[str]]:
    """A title without the parentheses that hold its pay, place or terms (kept when they are part
    of the name: "(React/TypeScript)", "(m/w/d)")."""
    inside: list[str] = []
    title = text
    for group in re.finditer(r"\(([^()]*)\)", text):
        pieces = [p for p in re.split(r",\s*|;\s*", group.group(1)) if p.strip()]
        read = [f.read(p) for p in pieces]
        if (
            read
            and any(r.kind in ("pay", "where", "place", "type", "region") for r in read)
            and all(r.kind in ("pay", "where", "place", "type", "region", "name", "other") for r in read)
        ):
            inside.extend(pieces)
            title = title.replace(group.group(0), " ")
    return re.sub(r"\s+", " ", title).strip(" ,-\u2013\u2014:"), inside


def _short_capitalised(text: str) -> bool:
    words = text.split()
    return 0 < len(words) <= 3 and all(w[:1].isupper() for w in words) and not re.search(r"\d", text)


def titles_in(text: str) -> list[RolePart]:
    """The roles one title field names: one, several joined ("A Engineer, B Engineer"), or a
    shared head noun ("Backend, Frontend and Data Engineers")."""
    text = re.sub(r"^(?:now\s+)?hiring(?:\s+for)?\s*:\s*", "", text.strip(), flags=re.I)
    parts = [p.strip() for p in f.split_outside(_TITLE_JOIN, text) if p.strip()]
    roles = [role_from(p, sure=True) for p in parts]
    if len(parts) > 1 and all(v.ROLE.search(_title_and_parens(p)[0]) for p in parts):
        return [r for r in roles if r is not None]
    last = parts[-1] if parts else ""
    head = v.ROLE.search(last)
    plural = head is not None and last[head.start() :].split()[0].endswith("s")
    if (
        len(parts) > 1
        and (plural or len(parts) > 2)
        and head
        and all(len(p.split()) <= 2 and not v.ROLE.search(p) for p in parts[:-1])
    ):  # "Backend, Frontend and Data Engineers"; not "Research and Development Engineer"
        noun = _SINGULAR.sub("", last[head.start() :].split()[0])
        shared = [RolePart(title=f"{p} {noun}") for p in parts[:-1]]
        final = role_from(_SINGULAR.sub("", last.split(" (")[0]), sure=True)
        return [*shared, *([final] if final else [])]
    single = role_from(text, sure=True)
    return [single] if single else []


def body_roles(lines: list[Line], *, listing: bool = False) -> list[RolePart]:
    """The roles named on lines of their own below the first line; `listing`: the first line
    announced a list of roles ("Multiple roles", "Open roles:"), so a line that starts with a
    title is a role."""
    roles: list[RolePart] = []
    for line in lines:
        text = line.text.strip()
        if line.pre:
            cells = [c for c in re.split(r"\s{2,}|\t", text) if c.strip()]
            role = role_from("  ".join(cells), line.links) if cells else None
        elif (bullet := _BULLET.match(text)) is not None:
            role = role_from(bullet["rest"], line.links)
        elif (also := _ALSO.search(text)) is not None:
            rest = re.sub(
                r"\s+(?:at|on|for|in)\s+(?:the|our)\s+.*?(?=\s+[\u2014\u2013-]\s+|[,(]|$)", "", also["rest"]
            )
            role = role_from(rest.rstrip("."), line.links)  # "an Android engineer at the same level"
        elif "|" in text or (listing and len(text.split()) <= 10):
            role = role_from(text, line.links)
        else:
            role = None
        listing = text.endswith(":") or (listing and role is not None)
        if role is not None:
            roles.append(role)
    return roles
