"""A posting's text in the parts that matter for fit: what it requires, what it would like, the rest.

Boards publish plain text with headings ("Requirements", "What you'll bring", "Nice to have",
"Bonus points", "Benefits"); a heading is a short line, often ending in a colon, or a known
phrase. Lines under a requirements heading are `required`; under a nice-to-have heading, or
saying "is a plus" / "nice to have" / "preferred" in the line itself, `nice`; the rest `other`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_REQUIRED = re.compile(
    r"\b(?:requirements?|required|qualifications?|what you(?:'ll)? (?:bring|need|have)|"
    r"you (?:have|bring|are)|"
    r"must[- ]haves?|about you|who you are|what we(?:'re| are) looking for|we(?:'re| are) looking for|"
    r"skills(?: and experience)?|experience|your profile|your background|essential|minimum|"
    r"what you need|what we need|key skills|ideal candidate|dein profil|ihr profil|anforderungen)\b",
    re.IGNORECASE,
)
_NICE = re.compile(
    r"\b(?:nice[- ]to[- ]haves?|bonus(?: points)?|plus(?:es)?|preferred|desirable|good to have|"
    r"would be (?:great|nice|a plus)|is a plus|are a plus|a bonus|ideally|not required|wünschenswert|"
    r"von vorteil)\b",
    re.IGNORECASE,
)
_OTHER = re.compile(
    r"\b(?:benefits|perks|what we offer|we offer|about us|about the (?:company|team|role)|who we are|"
    r"compensation|salary|the role|what you(?:'ll)? do|responsibilities|your (?:role|day)|the team|"
    r"how to apply|our stack|wir bieten|deine aufgaben)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sections:
    """A posting's text by part (each plain text, lines joined by newlines)."""

    required: str
    nice: str
    other: str


def _heading(line: str) -> str | None:
    """The part a heading line opens, or None for a line that is no heading."""
    stripped = line.strip().strip("#*:- ").strip()
    if not stripped or len(stripped.split()) > 7 or stripped.endswith((".", ",", ";")):
        return None
    if _NICE.search(stripped):
        return "nice"
    if _OTHER.search(stripped):
        return "other"
    if _REQUIRED.search(stripped):
        return "required"
    return None


def sections(description: str) -> Sections:
    """Split a posting's text into what it requires, what it would like, and the rest."""
    parts: dict[str, list[str]] = {"required": [], "nice": [], "other": []}
    current = "other"
    for line in description.splitlines():
        heading = _heading(line) if len(line) < 80 else None
        if heading is not None:
            current = heading
            continue
        part = "nice" if current != "other" and _NICE.search(line) else current
        parts[part].append(line)
    return Sections(**{k: "\n".join(v) for k, v in parts.items()})
