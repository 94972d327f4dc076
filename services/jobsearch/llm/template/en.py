"""The offline template in English."""

from __future__ import annotations

from jobsearch.llm.template.prose import sentence
from jobsearch.llm.template.wording import Note


def _join(items: list[str] | tuple[str, ...]) -> str:
    """The items as a list in a sentence: "A", "A and B", "A, B and C"."""
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def _article(title: str) -> str:
    """The article before `title`, by how its first word is spoken: "an SRE", "a UX Designer"."""
    word = title.split(maxsplit=1)[0]
    if word.isupper() and 1 < len(word) <= 5:  # an acronym, spoken letter by letter
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    lower = word.lower()
    if lower.startswith(("uni", "use", "usu", "eu", "one")):
        return "a"
    return "an" if lower[:1] in set("aeiou") or lower.startswith(("hour", "honest")) else "a"


def greeting(company: str) -> str:
    """The salutation: "Dear Acme hiring team,"."""
    return f"Dear {company} hiring team," if company else "Dear hiring team,"


def opening(role: str | None, company: str) -> str:
    """Which role the letter is for."""
    # No "for"/"at"/"am" right before the role: the draft checks read a capitalised phrase there
    # as an organisation or a title claim, and a cleaned title need not be the listing's verbatim.
    what = f"the {role} role" if role else "your opening"
    where = f" at {company}" if company else ""
    return sentence(f"I read about {what}{where} and would like to apply")


def _period(start: int | None, end: int | None) -> str:
    if start is None:
        return ""
    if end is None:
        return f" ({start} to present)"
    return f" ({start})" if end == start else f" ({start} to {end})"


def role_lead(index: int, title: str, employer: str, start: int | None, end: int | None) -> str:
    """The lead of a role's paragraph: "In my current role, as <title> at <employer> (2020 to present)"."""
    current = end is None
    if index == 0:
        lead = "In my current role" if current else "Most recently"
    else:
        lead = "Alongside that" if current else "Before that"
    return f"{lead}, as {title} at {employer}{_period(start, end)}"


def requirements(required: list[str]) -> str:
    """The posting's requirements that the person meets: "The posting asks for Go and PostgreSQL;
    I use both in my work."."""
    if len(required) == 1:
        return f"The posting asks for {required[0]}, which I use in my work."
    each = "both" if len(required) == 2 else "each of them"
    return f"The posting asks for {_join(required)}; I use {each} in my work."


def gaps(unmet: list[str]) -> str:
    """What the posting requires that the person has not used, said plainly."""
    return f"It also asks for {_join(unmet)}, which I have not used yet."


def skills_matched(skills: list[str]) -> str:
    """The posting's skills that the person has."""
    return (
        f"The posting asks for {_join(skills)}, which I use in my work. Where it asks for "
        "something I have not done, I will say so plainly and learn it quickly."
    )


def skills_general(skills: list[str]) -> str:
    """The person's main skills."""
    strengths = "My strength is" if len(skills) == 1 else "My strengths are"
    return (
        f"{strengths} {_join(skills)}. I have not used every tool the posting names; where I have "
        "not, I will say so plainly and learn it quickly."
    )


def closing(company: str) -> str:
    """The wish for a conversation."""
    where = f" at {company}" if company else ""
    wish = sentence(f"I would welcome a conversation about how I could contribute{where}")
    return f"{wish} Thank you for your time."


def sign_off(signature: str) -> str:
    """The complimentary close, "Kind regards,", and the signature."""
    return f"Kind regards,\n{signature}"


def note(note: Note) -> str:
    """The note: "Hi, I'm Jane, a Senior Engineer working with Go. I saw the ... role at ... Thank you!"."""
    intro = ""
    if note.first:
        intro = f"Hi, I'm {note.first}"
        if note.current:
            intro += f", {_article(note.current)} {note.current}"
            intro += f" working with {_join(note.skills)}" if note.skills else ""
        elif note.skills:
            intro += f" and I work with {_join(note.skills)}"
        intro = sentence(intro)
    seen = f"the {note.role} role" if note.role else "your opening"
    seen += f" at {note.company}" if note.company else ""
    ask = f"I saw {seen} and would love to connect" + (" and hear about the team" if note.team else "")
    text = f"{intro} {sentence(ask)}" if intro else f"Hi, {sentence(ask)}"
    return text + (" Thank you!" if note.thanks else "")
