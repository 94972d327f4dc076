"""The offline provider: a template over the profile and the listing. Needs nothing, costs nothing.

It is the default when no provider is configured and the last link of a sensible fallback chain.
It states only facts from the profile (employers, titles, highlights, skills) and names only the
listing's own title and company, so its drafts pass the checks by construction; it never quotes the
listing's description. The result is a plain first draft for a person to edit: the right shape,
the person's real experience ordered by relevance to the posting, the skills the posting mentions.
"""

from __future__ import annotations

import re

from jobsearch.listing import MergedListing
from jobsearch.llm._transport import Provider
from jobsearch.llm.errors import ProviderRejected
from jobsearch.llm.messages import LlmRequest, Reply
from jobsearch.profile import Experience, Profile

MODEL = "template-v1"
NOTE_LIMIT = 300
_WORD = re.compile(r"[a-z0-9+#.]+")


class Offline(Provider):
    """Drafts from `request.material`; the prompt text is not read."""

    name = "offline"

    async def complete(self, request: LlmRequest, model: str) -> Reply:
        if request.material is None:
            raise ProviderRejected(self.name, "the offline provider needs the profile and the listing")
        profile, listing = request.material.profile, request.material.listing
        if request.step == "connection_note":
            text = connection_note(profile, listing)
        else:
            text = cover_letter(profile, listing)
        return Reply(text=text, model=MODEL)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def matched_skills(profile: Profile, listing: MergedListing) -> list[str]:
    """The person's skills that the posting's title or text mentions, in the profile's order."""
    text = f" {listing.title} {listing.description} ".lower()
    found = []
    for skill in profile.person.skills:
        if re.search(rf"(?<![a-z0-9]){re.escape(skill.lower())}(?![a-z0-9])", text):
            found.append(skill)
    return found


def _period(role: Experience) -> str:
    if role.start is None:
        return ""
    end = "present" if role.end is None else str(role.end.year)
    return f" ({role.start.year} to {end})"


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def cover_letter(profile: Profile, listing: MergedListing) -> str:
    """A cover letter of about the profile's length, from the profile's facts only."""
    person, writing = profile.person, profile.writing
    company = listing.company.strip()
    at_company = f" at {company}" if company else ""
    listing_words = _words(f"{listing.title} {listing.description}")
    budget = writing.cover_letter_words
    paragraphs = [
        f"Dear {company} hiring team," if company else "Dear hiring team,",
        f"I am writing to apply for the {listing.title} role{at_company}."
        + (f" {person.summary.strip()}" if person.summary.strip() else ""),
    ]
    # The most recent roles, in the profile's order (newest first); within a role, the
    # highlights that share most words with the posting come first.
    used = sum(len(p.split()) for p in paragraphs)
    for index, role in enumerate(person.experience[:3]):
        lead = "Before that" if index else "In my current role" if role.end is None else "Most recently"
        bullets: list[str] = []
        for highlight in sorted(role.highlights, key=lambda h: len(_words(h) & listing_words), reverse=True):
            if used + len(highlight.split()) > budget * 0.8 and bullets:
                break
            bullets.append(f"- {highlight.strip()}")
            used += len(highlight.split())
        block = f"{lead}, as {role.title} at {role.employer}{_period(role)}"
        paragraphs.append(block + (":\n" + "\n".join(bullets) if bullets else "."))
        used += 10
        if used > budget * 0.8:
            break
    skills = matched_skills(profile, listing)
    if skills:
        paragraphs.append(
            f"The posting asks for {_join(skills[:6])}, which I use in my work. Where it asks for "
            "something I have not done, I will say so plainly and learn it quickly."
        )
    elif person.skills:
        paragraphs.append(
            f"My strengths are {_join(person.skills[:5])}. I have not used every tool the posting "
            "names; where I have not, I will say so plainly and learn it quickly."
        )
    paragraphs.append(
        f"I would welcome a conversation about how I could contribute{at_company}. Thank you for your time."
    )
    paragraphs.append(f"Kind regards,\n{writing.signature or person.name}")
    return "\n\n".join(paragraphs)


def connection_note(profile: Profile, listing: MergedListing) -> str:
    """A short note (at most 300 characters) asking a person at the company to connect."""
    person = profile.person
    first = person.name.split()[0]
    current = person.experience[0].title if person.experience else None
    skills = matched_skills(profile, listing)[:2]
    company = listing.company.strip()
    role = f"the {listing.title} role" + (f" at {company}" if company else "")
    parts = [
        f"Hi, I'm {first}"
        + (f", a {current}" if current else "")
        + (f" working with {_join(skills)}" if skills else "")
        + ".",
        f"I saw {role} and would love to connect and hear about the team.",
        "Thank you!",
    ]
    note = " ".join(parts)
    if len(note) > NOTE_LIMIT:
        note = f"Hi, I'm {first}. I saw {role} and would love to connect. Thank you!"
    if len(note) > NOTE_LIMIT:
        note = f"Hi, I'm {first}. I saw your opening and would love to connect. Thank you!"[:NOTE_LIMIT]
    return note
