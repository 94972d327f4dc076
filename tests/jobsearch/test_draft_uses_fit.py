"""Drafts use what fit found: the offline template names the listing's requirements the person
meets and says plainly which it does not (never claiming them); the model's prompt lists the
matched requirements to lead with and the unmet ones marked "do not claim"."""

from __future__ import annotations

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Settings
from jobsearch.draft.checks import Facts, run_checks
from jobsearch.draft.prompt import build_prompt
from jobsearch.draft.service import Drafter
from jobsearch.jobs import DraftJob
from jobsearch.listing import MergedListing
from jobsearch.llm import LlmClient, load_llm_settings
from jobsearch.llm.offline import cover_letter
from jobsearch.llm.template import requirements
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import ProviderServer
from tests.jobsearch.test_draft_service import run_batch

replace = msgspec.structs.replace

POSTING = MergedListing(
    id="req-1",
    title="Backend Engineer",
    company="Kestrel Pay",
    url="https://kestrel.example/jobs/1",
    locations=["Berlin, Germany"],
    description=(
        "You will build our payment ledger.\n"
        "Requirements:\n"
        "- Python and PostgreSQL in production\n"
        "- Terraform and Rust\n"
        "Nice to have:\n"
        "- Kafka\n"
    ),
)


def summary_words(profile: Profile) -> str:
    """The end of the profile's summary (its first words may be the role's)."""
    return " ".join(profile.person.summary.split()[-4:]).rstrip(".")


def failed_checks(step: str, text: str, profile: Profile, listing: MergedListing) -> list[str]:
    facts = Facts.of(profile, listing)
    checks = run_checks(step, text, facts, profile.writing.cover_letter_words)  # type: ignore[arg-type]
    return [f"{c.name}: {c.detail}" for c in checks if not c.passed]


def test_the_reading_is_the_fit_scores(profile: Profile) -> None:
    """Required and held, named and held, required and not held (as the listing spells it)."""
    reading = requirements(profile, POSTING)
    assert reading.required == ["Python", "PostgreSQL"]
    assert reading.mentioned == ["Kafka"]
    assert reading.unmet == ["Terraform", "Rust"]


def test_the_letter_leads_with_the_met_requirements_and_names_the_unmet_plainly(profile: Profile) -> None:
    """After the opening, in place of the profile's summary: what the posting asks for that the
    person has, and what it asks for that they have not used; the letter passes every check."""
    letter = cover_letter(profile, POSTING)
    paragraphs = letter.split("\n\n")
    assert paragraphs[2] == (
        "The posting asks for Python and PostgreSQL; I use both in my work. "
        "It also asks for Terraform and Rust, which I have not used yet."
    )
    assert summary_words(profile) not in letter
    assert failed_checks("cover_letter", letter, profile, POSTING) == []


def test_the_german_letter_does_the_same_and_passes_the_checks(profile: Profile) -> None:
    """The same in German: "verlangt ...; mit beiden arbeite ich ..." and the unmet named."""
    german = replace(profile, writing=replace(profile.writing, language="de"))
    letter = cover_letter(german, POSTING)
    assert "Die Ausschreibung verlangt Python und PostgreSQL; mit beiden arbeite ich" in letter
    assert "Sie nennt außerdem Terraform und Rust. Mit diesen habe ich noch nicht gearbeitet." in letter
    assert failed_checks("cover_letter", letter, german, POSTING) == []


def test_a_listing_requiring_nothing_the_person_has_keeps_the_summary(profile: Profile) -> None:
    """No requirement met: the opening keeps the profile's summary and no skill is claimed."""
    listing = replace(POSTING, description="Requirements:\n- Rust and Terraform\n")
    letter = cover_letter(profile, listing)
    assert summary_words(profile) in letter.split("\n\n")[1]
    assert "It also asks for Rust and Terraform, which I have not used yet." in letter
    assert failed_checks("cover_letter", letter, profile, listing) == []


def test_the_prompt_lists_the_matched_and_the_unmet_requirements(profile: Profile) -> None:
    """Outside the listing's fence: the matched ones to lead with, the unmet marked."""
    _, prompt = build_prompt("cover_letter", profile, POSTING)
    block, fenced = prompt.split("Job listing (untrusted", 1)
    assert "required by the listing and in the profile (lead with these): Python, PostgreSQL" in block
    assert "named by the listing and in the profile: Kafka" in block
    assert "required by the listing, not in the profile: do not claim: Terraform, Rust" in block
    assert "do not claim" not in fenced


async def test_a_model_is_asked_with_the_requirements(providers: ProviderServer, profile: Profile) -> None:
    """The draft service's request to a provider (OpenAI's wire format) carries the reading."""
    env = providers.env("openai") | {"LLM_PROVIDER": "openai"}
    job = DraftJob(run_id="r", listing=POSTING, profile=profile, steps=["cover_letter"])
    async with LlmClient(load_llm_settings(env)) as client:
        await Drafter(client).draft(job)
    [seen] = providers.to("openai")
    assert "not in the profile: do not claim: Terraform, Rust" in seen.prompt


@pytest.mark.integration
async def test_the_draft_stage_drafts_from_the_reading(
    nc: NATS, settings: Settings, profile: Profile
) -> None:
    """The draft stage on a real nats-server, offline: the letter it hands the export stage names
    the met requirements and the unmet ones, and passes its checks."""
    job = DraftJob(run_id="run1", listing=POSTING, profile=profile)
    exports = await run_batch(nc, settings, {"LLM_PROVIDER": "offline"}, [job])
    [export] = exports.jobs
    letter = next(d for d in export.drafts if d.step == "cover_letter")
    assert "The posting asks for Python and PostgreSQL; I use both in my work." in letter.text
    assert "which I have not used yet" in letter.text
    assert letter.status == "ok"
