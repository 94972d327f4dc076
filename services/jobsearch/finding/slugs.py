"""The slugs a company's boards are likely to use, and the slug a source names.

A slug-keyed board names a company by one word in its URL (`boards.greenhouse.io/acme`,
`acme.recruitee.com`). Companies mostly choose their name, lowercased, with the words joined or
hyphenated, often without the legal form ("Acme Robotics GmbH" → `acmerobotics`, `acme-robotics`),
or the first label of their domain; a German name's umlauts are also tried written out
(`mueller`). Those are the candidates; nothing else is guessed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from jobsearch.profile import Source

# Legal forms dropped from the end of a name ("GmbH & Co. KG" is three of them). "Company" is not
# one: "The Walt Disney Company" is the name.
LEGAL_SUFFIXES: Final = frozenset(
    {
        "ab", "ag", "aps", "as", "asa", "bv", "co", "corp", "corporation", "gmbh", "inc",
        "incorporated", "kg", "kgaa", "kk", "limited", "llc", "llp", "lp", "ltd", "mbh", "nv",
        "oy", "oyj", "plc", "pty", "sa", "sarl", "sas", "se", "spa", "srl", "ug",
    }
)  # fmt: skip
MAX_SLUGS: Final = 6
# One DNS label: what the subdomain boards (Personio, Recruitee, BambooHR, Breezy) accept.
SUBDOMAIN: Final = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
DOMAIN: Final = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")
_INITIAL_DOT: Final = re.compile(r"(?<=\b[a-z])\.")  # the dots of "B.V.", "S.A."
_WORD: Final = re.compile(r"[a-z0-9]+")
_UMLAUTS: Final = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})
# The fields that name a source's company on its board, in the order `source_name` reads them.
_SLUG_FIELDS: Final = ("token", "site", "board_name", "account", "company", "url")


def slug_candidates(name: str, domain: str | None = None) -> list[str]:
    """The slugs to try for a company, likeliest first, at most `MAX_SLUGS`.

    >>> slug_candidates("Acme Robotics GmbH", "acme.io")
    ['acmerobotics', 'acme-robotics', 'acme', 'acmeroboticsgmbh', 'acme-robotics-gmbh']
    """
    words = name_words(name)
    core = _without_legal_form(words)
    candidates = ["".join(core), "-".join(core)]
    if domain:
        candidates.append(domain_label(domain))
    spelled = _without_legal_form(name_words(name.translate(_UMLAUTS)))  # Müller → mueller
    candidates += ["".join(spelled), "-".join(spelled), "".join(words), "-".join(words)]
    unique = [c for c in dict.fromkeys(candidates) if c and len(c) <= 100]
    return unique[:MAX_SLUGS]


def _without_legal_form(words: list[str]) -> list[str]:
    core = list(words)
    while len(core) > 1 and core[-1] in LEGAL_SUFFIXES:
        core.pop()
    return core


def name_words(name: str) -> list[str]:
    """A company name's words: lowercased, accents dropped, punctuation and `&` gone."""
    folded = unicodedata.normalize("NFKD", name.casefold())
    ascii_only = "".join(c for c in folded if not unicodedata.combining(c)).replace("'", "")
    return _WORD.findall(_INITIAL_DOT.sub("", ascii_only.replace("\u2019", "")))


def normal_domain(text: str) -> str:
    """A domain as given (`Acme.com`, `https://www.acme.com/`), lowercased, without scheme or path.

    Raises:
        ValueError: the text is not a domain name.
    """
    host = re.sub(r"^[a-z]+://", "", text.strip().lower()).split("/", 1)[0].split(":", 1)[0]
    host = host.rstrip(".")
    if not DOMAIN.match(host):
        raise ValueError(f"{text!r} is not a domain name (like acme.com)")
    return host


def domain_label(domain: str) -> str:
    """The first label of a domain that names the company: `acme` for www.acme.co.uk."""
    labels = domain.split(".")
    return labels[1] if labels[0] == "www" and len(labels) > 2 else labels[0]


def source_slug(source: Source) -> str:
    """What names the company in a source: its token, site, board name, account, company or url."""
    for field in _SLUG_FIELDS:
        value = getattr(source, field, None)
        if isinstance(value, str):
            return value
    return ""


def source_key(source: Source) -> tuple[str, str]:
    """A source's board and slug, as compared to tell one source from another (case ignored)."""
    board = str(type(source).__struct_config__.tag)
    return board, source_slug(source).strip().rstrip("/").lower()
