"""The offline provider's words, one module per language it writes (`en`, `de`), and how a
profile's `writing.language` picks one.

`language_of("de-DE")`, `("de_AT")`, `("DE")` and `("deu")` are all "de": the primary subtag of a
BCP 47 tag (or a POSIX locale name), case folded, with ISO 639-2 codes read as their two-letter
ones. The cleaning of profile and listing values for prose is `prose`; what a listing requires,
read against the person's skills as the fit score reads it, is `requirements` (the template and
the drafts' prompt lead with it).
"""

from __future__ import annotations

from jobsearch.llm.template import de, en
from jobsearch.llm.template.requirements import Requirements, requirements
from jobsearch.llm.template.wording import Note, Wording

WORDINGS: dict[str, Wording] = {"en": en, "de": de}
SUPPORTED_LANGUAGES: tuple[str, ...] = tuple(WORDINGS)
_ALIASES = {"eng": "en", "deu": "de", "ger": "de"}

__all__ = [
    "SUPPORTED_LANGUAGES",
    "WORDINGS",
    "Note",
    "Requirements",
    "Wording",
    "language_of",
    "requirements",
    "wording",
]


def language_of(code: str) -> str:
    """The primary language of a tag: "de-DE", "de_AT.UTF-8", "DE" -> "de"; "" stays ""."""
    primary = code.strip().replace("_", "-").split("-", 1)[0].split(".", 1)[0].casefold()
    return _ALIASES.get(primary, primary)


def wording(code: str) -> Wording | None:
    """The words for a language tag, or None when the template does not write that language."""
    return WORDINGS.get(language_of(code))
