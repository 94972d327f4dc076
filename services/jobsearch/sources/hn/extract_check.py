"""The check of a model's reading of a "Who is hiring?" comment: every field it gives must be in
the comment, and what a field means is read by the rules, never taken from the model.

A posting the model gives is dropped, with the reason, when

- it has no company or no title, or a "title" of more than `TITLE_WORDS` words (a sentence);
- its company, title or a place is not in the comment's visible text (compared without regard to
  case or spacing, curly quotes and dashes made plain);
- its workplace, employment type or pay is not words of the comment;
- its apply link is not a link the comment has (an `<a href>` target or a URL in its text), or its
  e-mail address is not one the comment's text or a `mailto:` link gives.

What passes is read as the rules read a field: the workplace words by the reader's vocabulary
(`fields.read_where`: "REMOTE (US)" is remote, limited to the US), the employment words by
`fields.employment`, the pay by the salary parser (`salary_from_text`) from the comment's own words:
a figure the model wrote is never used. The company, title and places keep the comment's spelling,
and the apply link kept is the comment's own.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

import msgspec

from jobsearch.llm.fence import json_answer
from jobsearch.salary import salary_from_text
from jobsearch.sources import text as plain
from jobsearch.sources.hn import fields as f
from jobsearch.sources.hn import vocab as v
from jobsearch.sources.hn.markup import lines
from jobsearch.sources.hn.posting import Role

TITLE_WORDS: Final = 12  # a title longer than this is a sentence the model copied
COMPANY_WORDS: Final = 8
MOST_POSTINGS: Final = 40  # postings kept from one answer (the reader's own cap on roles)
_PLAIN: Final = str.maketrans("\u2019\u2018\u201c\u201d\u2013\u2014\u00a0", "''\"\"-- ")
_EDGES: Final = " \t.,;:!?()[]{}\"'<>*"
_NAME_EDGES: Final = " \t,;:!?\"'*"  # a title's or a name's parentheses and full stop are its own


class Posting(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=False):
    """One posting as the model is asked to give it: each value copied from the comment."""

    company: str | None = None
    title: str | None = None
    places: list[str] | str | None = None
    workplace: str | None = None
    employment: str | None = None
    pay: str | None = None
    apply: str | None = None


class _Answer(msgspec.Struct, frozen=True, forbid_unknown_fields=False):
    postings: list[Posting] = []


_DECODER: Final = msgspec.json.Decoder(_Answer)


def read_answer(answer: str) -> list[Posting]:
    """The postings in a model's answer (one JSON object, perhaps in a code block).

    Raises:
        UnreadableAnswer: no JSON object of that shape is in it.
    """
    return json_answer(answer, _DECODER, "a list of postings").postings


def fold(text: str) -> str:
    """Text as compared: NFKC, case folded, quotes and dashes made plain, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().translate(_PLAIN).split())


@dataclass(frozen=True)
class Comment:
    """A comment as the model sees it and as its answer is checked: the visible text and links."""

    text: str
    links: list[str] = field(default_factory=list)

    @cached_property
    def folded(self) -> str:
        """The text as compared."""
        return fold(self.text)


def comment_of(html: str) -> Comment:
    """The comment's visible text and every link it has (`<a href>` targets, then bare URLs)."""
    text, _ = plain.visible_text(html)
    hrefs = [u for line in lines(html) for u in line.links]
    bare = [m.group(0).rstrip(".,;:)") for m in v.URL.finditer(text)]
    whole = [u for u in bare if not u.endswith("...")]  # HN cuts a long link's text short
    return Comment(text=text, links=list(dict.fromkeys([*hrefs, *whole])))


def _said(value: str, comment: Comment) -> bool:
    """Whether the comment says the value, as whole words ("SRE" is not the "sre" of "measures")."""
    cut = fold(value).strip(_EDGES)
    return bool(cut) and re.search(rf"(?<!\w){re.escape(cut)}(?!\w)", comment.folded) is not None


def _as_written(value: str, comment: Comment) -> str:
    """The value as the comment spells it ("lisbon" -> "Lisbon"), else as given (found by `fold`)."""
    words = [re.escape(w) for w in value.split()]
    found = re.search(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", comment.text, re.I) if words else None
    return " ".join(found.group(0).split()) if found else value


def _url_key(url: str) -> str:
    url = re.sub(r"^(?:https?://)?(?:www\.)?", "", url.strip(), flags=re.I)
    return url.rstrip("/.,;:)").casefold()


def _apply(value: str, comment: Comment) -> tuple[str | None, str | None, str | None]:
    """(link, e-mail address, problem): the comment's own link or address the value names."""
    value = value.strip().strip(_EDGES.replace("/", ""))
    address = value[len("mailto:") :] if value.casefold().startswith("mailto:") else value
    if v.EMAIL.fullmatch(address):
        mailtos = {fold(u[len("mailto:") :]) for u in comment.links if u.casefold().startswith("mailto:")}
        if _said(address, comment) or fold(address) in mailtos:
            return None, address, None
        return None, None, "apply address not in the comment"
    key = _url_key(value)
    for link in comment.links:
        if not link.casefold().startswith("mailto:") and key and _url_key(link) == key:
            if "news.ycombinator.com" in key:
                return None, None, None  # the comment's own back-link is no way to apply
            return link, None, None
    return None, None, "apply link not in the comment"


def _misshapen(company: str, title: str) -> str | None:
    """Why the company and title are no name and no title, if they are not."""
    if not company:
        return "no company"
    if not title:
        return "no title"
    if len(title.split()) > TITLE_WORDS or len(title) > 200:
        return "title is a sentence"
    if len(company.split()) > COMPANY_WORDS or len(company) > 120:
        return "company is a sentence"
    return None


def check_posting(posting: Posting, comment: Comment) -> tuple[str, Role] | str:
    """The posting's company and role when every field passes; else why it is dropped."""
    company = " ".join((posting.company or "").split()).strip(_NAME_EDGES)
    title = " ".join((posting.title or "").split()).strip(_NAME_EDGES)
    if (misshapen := _misshapen(company, title)) is not None:
        return misshapen
    places = [posting.places] if isinstance(posting.places, str) else posting.places or []
    places = [p for p in (" ".join(x.split()).strip(_EDGES) for x in places) if p]
    said = {"company": company, "title": title, **{f"place {n}": p for n, p in enumerate(places)}}
    for name, value in [
        *said.items(),
        ("workplace", posting.workplace or ""),
        ("employment type", posting.employment or ""),
        ("pay", posting.pay or ""),
    ]:
        if value.strip(_EDGES) and not _said(value, comment):
            return f"{name.split()[0]} not in the comment"
    where = f.read_where(posting.workplace) if posting.workplace else None
    workplace = where.workplace if where is not None else None
    link, email, problem = _apply(posting.apply, comment) if posting.apply else (None, None, None)
    if problem is not None:
        return problem
    kept = [_as_written(p, comment) for p in places if fold(p) != fold(posting.workplace or "")]
    role = Role(
        title=_as_written(title, comment),
        places=list(dict.fromkeys(kept)),
        workplace=workplace,
        region=where.region if where is not None and workplace == "remote" else None,
        employment=f.employment(posting.employment) if posting.employment else None,
        salary=salary_from_text(posting.pay) if posting.pay else None,
        url=link,
        email=email,
    )
    return _as_written(company, comment), role
