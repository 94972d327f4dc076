"""What a language gives the offline template: its sentences, with the values already cleaned.

A language is a module (`en`, `de`) with the functions of `Wording`. The template
(`jobsearch.llm.offline`) chooses what to say and in what order; the language only says it. Every
value it receives is one line of plain text (`prose.plain`), and a role the listing's title did
not name readably is None, for the language's own "the role".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Note:
    """What a connection note says. The template drops the optional parts one by one (`team`,
    `skills`, `thanks`, `current`, `company`, `role`, `first`) until the note fits."""

    first: str | None  # the person's first name
    current: str | None  # their current title
    skills: tuple[str, ...]  # up to two of theirs that the posting mentions
    role: str | None
    company: str
    team: bool = True  # "... and hear about the team"
    thanks: bool = True


class Wording(Protocol):
    """The sentences of one language (a module implements it)."""

    def greeting(self, company: str) -> str:
        """The salutation line, with its comma."""
        ...

    def opening(self, role: str | None, company: str) -> str:
        """The sentence that says which role the letter applies for."""
        ...

    def role_lead(self, index: int, title: str, employer: str, start: int | None, end: int | None) -> str:
        """The start of the paragraph on the person's `index`-th role (0: the most recent), without a
        stop: the template adds ":" and the highlights, or the stop."""
        ...

    def requirements(self, required: list[str]) -> str:
        """The paragraph after the opening: the skills the posting requires that the person has."""
        ...

    def gaps(self, unmet: list[str]) -> str:
        """The sentence that names, plainly, the tools the posting requires that the person has not
        used (it claims none of them)."""
        ...

    def skills_matched(self, skills: list[str]) -> str:
        """The paragraph on the person's skills that the posting mentions, honest about the rest."""
        ...

    def skills_general(self, skills: list[str]) -> str:
        """The paragraph on the person's main skills when the posting mentions none of them."""
        ...

    def closing(self, company: str) -> str:
        """The closing paragraph before the sign-off."""
        ...

    def sign_off(self, signature: str) -> str:
        """The complimentary close and the signature below it."""
        ...

    def note(self, note: Note) -> str:
        """The connection note."""
        ...
