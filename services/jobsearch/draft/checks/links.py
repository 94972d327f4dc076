"""The links a text gives: URLs, bare domains and e-mail addresses, and the key they compare by."""

from __future__ import annotations

import re

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\bhttps?://[^\s<>()\"']+|\bwww\.[^\s<>()\"']+", re.I)
_DOMAIN = re.compile(
    r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|io|net|org|dev|ai|co|xyz|app|info|biz|me|ly|sh|gg|tk)"
    r"\b(?:/[^\s<>()\"']*)?"
)


def links(text: str) -> list[str]:
    """Every e-mail address, URL and bare domain in a text, as written."""
    emails = _EMAIL.findall(text)
    rest = _EMAIL.sub(" ", text)
    urls = _URL.findall(rest)
    rest = _URL.sub(" ", rest)
    return emails + urls + _DOMAIN.findall(rest)


def link_key(link: str) -> str:
    """A link without its scheme, `www.` and trailing punctuation, in lower case."""
    link = link.lower().rstrip(".,;:!?)/")
    link = re.sub(r"^https?://", "", link)
    return link.removeprefix("www.")


def known_link(link: str, known: list[str]) -> bool:
    """Whether a link is one of the known ones, or a shorter form of one (a domain of a known URL)."""
    key = link_key(link)
    return any(key == k or k.startswith(key + "/") for k in known)
