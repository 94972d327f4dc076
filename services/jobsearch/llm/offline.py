"""The offline provider: a template over the profile and the listing. Needs nothing, costs nothing.

It is the default when no provider is configured and the last link of a sensible fallback chain.
It states only facts from the profile (employers, titles, highlights, skills) and names only the
listing's own title and company, so its drafts pass the checks by construction; it never quotes the
listing's description. The result is a plain first draft for a person to edit: the right shape,
the person's real experience ordered by relevance to the posting, the skills the posting mentions.

It writes the profile's `writing.language` when that is one of `SUPPORTED_LANGUAGES` (the words
are in `jobsearch.llm.template`, a module per language); for any other it refuses, and
`check_offline_language` says so at start. Every value goes into the prose cleaned
(`template.prose`): one line, one stop at a sentence's end, and the listing's title as a role name
("Senior Engineer", not "Senior Engineer (m/w/d) - 100% Remote!!! [Ref#12345]").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from jobsearch.jobs import STEPS, Step
from jobsearch.listing import MergedListing
from jobsearch.llm._transport import Provider
from jobsearch.llm.errors import LlmConfigError, ProviderRejected
from jobsearch.llm.messages import LlmRequest, Reply
from jobsearch.llm.settings import LlmSettings
from jobsearch.llm.template import SUPPORTED_LANGUAGES, Note, Wording, requirements, wording
from jobsearch.llm.template.prose import cell_safe, plain, role_name, sentence
from jobsearch.profile import Profile

__all__ = [
    "MODEL",
    "NOTE_LIMIT",
    "SUPPORTED_LANGUAGES",
    "Offline",
    "check_offline_language",
    "connection_note",
    "cover_letter",
    "matched_skills",
    "offline_in_chain",
    "offline_steps",
]

MODEL = "template-v2"
NOTE_LIMIT = 300  # characters: LinkedIn's limit for an invitation note
_WORD = re.compile(r"[a-z0-9+#.]+")
_BULLET = re.compile(r"^[-*\u2022\u2013]\s+")  # a highlight written as a bullet: "- Led ...", "• Led ..."


class Offline(Provider):
    """Drafts from `request.material`; the prompt text is not read."""

    name = "offline"

    async def complete(self, request: LlmRequest, model: str) -> Reply:
        if request.material is None:
            raise ProviderRejected(self.name, "the offline provider needs the profile and the listing")
        profile, listing = request.material.profile, request.material.listing
        if wording(profile.writing.language) is None:  # a job's own profile, past the start check
            raise ProviderRejected(self.name, _unsupported(profile))
        if request.step == "connection_note":
            text = connection_note(profile, listing)
        else:
            text = cover_letter(profile, listing)
        return Reply(text=text, model=MODEL)


# --- the language ----------------------------------------------------------------------------------


def _unsupported(profile: Profile) -> str:
    return (
        f'writing.language = "{profile.writing.language}": the offline provider writes only '
        f"{', '.join(SUPPORTED_LANGUAGES)}"
    )


def offline_steps(settings: LlmSettings) -> list[Step]:
    """The drafting steps whose provider chain includes the offline provider."""
    return [step for step in STEPS if any(t.provider == "offline" for t in settings.chain(step))]


def offline_in_chain(settings: LlmSettings) -> bool:
    """Whether any step may be drafted by the offline provider (first, or as a fallback)."""
    return bool(offline_steps(settings))


def check_offline_language(profile: Profile, settings: LlmSettings) -> None:
    """Fail at start when the offline provider would draft for a profile in a language it does not write.

    Raises:
        LlmConfigError: (a jetjobs `ConfigError`) drafting is on, a step's chain includes the
            offline provider, and `writing.language` is not one of `SUPPORTED_LANGUAGES`; the
            message names the language, the supported ones and the variables to change.
    """
    if not profile.drafting.enabled or wording(profile.writing.language) is not None:
        return
    steps = offline_steps(settings)
    if not steps:
        return
    variables = ", ".join(
        f"{step.upper()}_{'PROVIDER' if settings.chain(step)[0].provider == 'offline' else 'FALLBACK'}=..."
        for step in steps
    )
    raise LlmConfigError(
        f"{_unsupported(profile)}; set another provider for the steps ({variables}) "
        "or change writing.language"
    )


def _wording(profile: Profile) -> Wording:
    words = wording(profile.writing.language)
    if words is None:
        raise LlmConfigError(_unsupported(profile))
    return words


# --- the drafts ------------------------------------------------------------------------------------


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


def _role(profile: Profile, listing: MergedListing) -> str | None:
    return role_name(
        listing.title, company=listing.company, places=listing.locations, casings=profile.person.skills
    )


def _signature(profile: Profile) -> str:
    """The profile's signature, line by line (a signature may have several), else the name."""
    lines = [plain(line) for line in (profile.writing.signature or "").splitlines()]
    return "\n".join(line for line in lines if line) or plain(profile.person.name)


def cover_letter(profile: Profile, listing: MergedListing) -> str:
    """A cover letter of about the profile's length, from the profile's facts only.

    Raises:
        LlmConfigError: the profile's `writing.language` is not one the template writes.
    """
    say = _wording(profile)
    person = profile.person
    company = cell_safe(listing.company)
    summary = plain(person.summary)
    listing_words = _words(f"{listing.title} {listing.description}")
    budget = profile.writing.cover_letter_words
    # What the posting requires that the person meets leads, in place of the profile's summary;
    # what it requires that they have not used is named plainly, never claimed.
    reading = requirements(profile, listing)
    gaps = f" {say.gaps(reading.unmet)}" if reading.unmet else ""
    asked = say.requirements(reading.required[:6]) + gaps if reading.required else ""
    paragraphs = [
        say.greeting(company),
        say.opening(_role(profile, listing), company)
        + (f" {sentence(summary)}" if summary and not asked else ""),
    ]
    if asked:
        paragraphs.append(asked)
    # The most recent roles, in the profile's order (newest first); within a role, the
    # highlights that share most words with the posting come first.
    used = sum(len(p.split()) for p in paragraphs)
    for index, role in enumerate(person.experience[:3]):
        highlights = [h for h in (_BULLET.sub("", plain(h)) for h in role.highlights) if h]
        bullets: list[str] = []
        for highlight in sorted(highlights, key=lambda h: len(_words(h) & listing_words), reverse=True):
            if used + len(highlight.split()) > budget * 0.8 and bullets:
                break
            bullets.append(f"- {highlight}")
            used += len(highlight.split())
        start = role.start.year if role.start else None
        end = role.end.year if role.end else None
        lead = say.role_lead(index, plain(role.title), plain(role.employer), start, end)
        paragraphs.append((lead + ":\n" + "\n".join(bullets)) if bullets else sentence(lead))
        used += 10
        if used > budget * 0.8:
            break
    skills = [plain(s) for s in matched_skills(profile, listing) if plain(s)]
    if asked:
        pass  # the skills were named after the opening
    elif skills:
        paragraphs.append(say.skills_matched(skills[:6]) + gaps)
    elif strengths := [plain(s) for s in person.skills if plain(s)]:
        paragraphs.append(say.skills_general(strengths[:5]) + gaps)
    elif gaps:
        paragraphs.append(gaps.strip())
    paragraphs.append(say.closing(company))
    paragraphs.append(say.sign_off(_signature(profile)))
    return "\n\n".join(paragraphs)


def _shorter(note: Note) -> Iterator[Note]:
    """`note`, then with one optional part after another dropped; the last one names nobody."""
    yield note
    yield (note := replace(note, team=False))
    yield (note := replace(note, skills=note.skills[:1]))
    yield (note := replace(note, skills=()))
    yield (note := replace(note, thanks=False))
    yield (note := replace(note, current=None))
    yield replace(note, company="")  # to someone who works there, the role says more
    yield (note := replace(note, role=None))
    yield (note := replace(note, company=""))
    yield replace(note, first=None)


def connection_note(profile: Profile, listing: MergedListing) -> str:
    """A short note asking a person at the company to connect: at most `NOTE_LIMIT` characters,
    shortened by dropping whole clauses, never by cutting a word.

    Raises:
        LlmConfigError: the profile's `writing.language` is not one the template writes.
    """
    say = _wording(profile)
    person = profile.person
    names = plain(person.name).split()
    full = Note(
        first=names[0] if names else None,
        current=plain(person.experience[0].title) if person.experience else None,
        skills=tuple(plain(s) for s in matched_skills(profile, listing)[:2]),
        role=_role(profile, listing),
        company=cell_safe(listing.company),
    )
    text = ""
    for note in _shorter(full):
        text = say.note(note)
        if len(text) <= NOTE_LIMIT:
            break
    return text
