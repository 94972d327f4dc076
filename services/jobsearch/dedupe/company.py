"""Who the employer is: the company a recruiter's copy names, and a display name over a slug.

Two things a board's company field gets wrong:
- An agency or aggregator posts under its own name ("Talentbridge Recruiting") while the text
  names the employer ("Our client, Kestrel Health, ..."). `named_employers` reads the employer's
  name from the phrases recruiters use, so dedupe can compare the copy with the employer's own
  posting. Only those phrases count: a capitalised word anywhere in a text is not an employer.
- Lever and Ashby give no company name, only the board's slug ("kestrelhealth"); Greenhouse
  falls back to its token. `display_name` prefers a real name from another posting of the job,
  then the slug's words as the postings' text writes them ("Kestrel Health"), then the slug
  made readable.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from jobsearch.listing import Listing
from jobsearch.reading import normalise

# "Our client, Kestrel Health, is ...", "on behalf of Kestrel Health", "hiring for Kestrel Health",
# an aggregator's "Company: Kestrel Health" line. A name is on one line.
_NAME = (
    r"((?:[A-Z0-9][\w&'\u2019.\-]*)(?:[ \t]+(?:&[ \t]+|and[ \t]+|of[ \t]+)?[A-Z0-9][\w&'\u2019.\-]*){0,3})"
)
_RECRUITER_PHRASES = re.compile(
    r"(?i:\bour\s+client,?\s+|\bon\s+behalf\s+of\s+(?:our\s+client,?\s+)?|\bhiring\s+for\s+|"
    r"\brecruiting\s+for\s+|\bclient:\s*|\bfor\s+our\s+client,?\s+|\bpartner(?:ed|ing)\s+with\s+|"
    r"\bin\s+partnership\s+with\s+|\bretained\s+by\s+|"
    r"\bunser\s+(?:kunde|mandant),?\s+(?:die\s+|der\s+)?|\bim\s+auftrag\s+(?:von|unseres\s+kunden)\s+)"
    + _NAME
)
_LABELLED = re.compile(r"^[ \t]*(?i:company|employer|hiring[ \t]+company):[ \t]*" + _NAME, re.MULTILINE)
# A capitalised word that starts a sentence after the name, not part of it ("Kestrel Health We").
_STOP_WORDS = frozenset({"is", "are", "we", "the", "a", "an", "in", "as", "to", "who", "which", "seeks"})
# Slug-like names: what a board's URL token looks like, not what a company calls itself.
_SLUG = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_SLUG_BOARDS = frozenset({"lever", "ashby", "greenhouse"})
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ0-9&'\u2019]+")


def named_employers(listing: Listing, *, chars: int = 3000) -> list[str]:
    """The company keys of the employers a recruiter's copy names in its text (often none)."""
    found: list[str] = []
    text = listing.description[:chars]
    labelled = _LABELLED.finditer(text) if ":" in text else iter(())
    for match in itertools.chain(_RECRUITER_PHRASES.finditer(text), labelled):
        words = match.group(1).split()
        while words and words[-1].casefold().strip(".,") in _STOP_WORDS:
            words.pop()
        key = normalise.company_key(" ".join(words).strip(".,;:"))
        if len(key) >= 3 and key not in found:
            found.append(key)
    return found


def is_slug(board: str, name: str) -> bool:
    """`name` is a board's URL token standing in for the company's name ("kestrelhealth")."""
    return board in _SLUG_BOARDS and bool(_SLUG.match(name))


def display_name(postings: Iterable[Listing]) -> str:
    """The company's name to show for one job's postings (the primary posting first)."""
    postings = list(postings)
    for p in postings:
        if p.company and not is_slug(p.board, p.company):
            return p.company
    slug = next((p.company for p in postings if p.company), "")
    if not slug:
        return ""
    key = normalise.company_key(slug)
    for p in postings:
        written = _written_in(key, p.description)
        if written:
            return written
    return " ".join(part.capitalize() for part in re.split(r"[-_]+", slug) if part)


def _written_in(key: str, text: str, *, chars: int = 4000) -> str | None:
    """The words of `text` that spell the company key `key` ("Kestrel Health" for kestrelhealth)."""
    words = _WORD.findall(text[:chars])
    for start, first in enumerate(words):
        if not first[:1].isupper() or not key.startswith(normalise.company_key(first)[:1] or "\0"):
            continue
        for width in range(1, 5):
            chunk = words[start : start + width]
            joined = normalise.company_key(" ".join(chunk))
            if joined == key and all(w[:1].isupper() or w == "&" for w in chunk):
                return " ".join(chunk)
            if not key.startswith(joined):
                break
    return None
