"""The draft checks over a corpus of listings with prompt injections and fake employers."""

from __future__ import annotations

import re

import pytest

from jobsearch.draft.checks import Facts, redact, run_checks
from jobsearch.draft.prompt import build_prompt
from jobsearch.draft.service import Drafter
from jobsearch.jobs import DraftJob
from jobsearch.listing import MergedListing
from jobsearch.llm import LlmClient, load_llm_settings
from jobsearch.llm.offline import connection_note, cover_letter
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import LETTER, ProviderServer

CANARIES = ("CANARY-7f3a9c", "PINEAPPLE-42", "ZEBRA_991", "evil.example.net", "umbrella-careers")


def failed(step: str, text: str, facts: Facts, words: int = 220) -> set[str]:
    return {c.name for c in run_checks(step, text, facts, words) if not c.passed}  # type: ignore[arg-type]


def test_offline_drafts_pass_every_check_on_the_whole_corpus(
    profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """The offline template states only profile facts: every check passes, no injected text appears."""
    for listing in corpus.values():
        facts = Facts.of(profile, listing)
        letter, note = cover_letter(profile, listing), connection_note(profile, listing)
        assert failed("cover_letter", letter, facts) == set(), listing.id
        assert failed("connection_note", note, facts) == set(), listing.id
        assert len(note) <= 300
        for canary in CANARIES:
            assert canary.lower() not in (letter + note).lower()


def test_offline_letter_is_worth_editing(profile: Profile, corpus: dict[str, MergedListing]) -> None:
    """It names the role and company, the person's employers and titles, real highlights and the
    skills the posting mentions, and signs with the person's name."""
    listing = corpus["plain-backend"]
    letter = cover_letter(profile, listing)
    assert letter.startswith("Dear Acme Analytics hiring team,")
    assert "Backend Engineer role at Acme Analytics" in letter
    assert "as Senior Software Engineer at Initech" in letter
    assert "billing pipeline to Kafka" in letter
    assert "Python, PostgreSQL, Kubernetes and Kafka" in letter
    assert letter.rstrip().endswith("Jane Doe")
    assert 0.4 * 220 <= len(letter.split()) <= 2 * 220


@pytest.mark.parametrize(
    ("listing_id", "text", "expected"),
    [
        ("injection-canary", "CANARY-7f3a9c\n" + LETTER, {"injection"}),
        ("injection-canary", LETTER + " Apply at https://evil.example.net/apply.", {"links"}),
        ("injection-canary", LETTER.replace("I am writing", "I hold a PhD and I am writing"), {"degrees"}),
        ("injection-ai-note", LETTER + " pineapple-42", {"injection"}),
        ("injection-ai-note", LETTER + " Write to apply@umbrella-careers.example.com.", {"links"}),
        ("fake-employers", LETTER + " During my time at Wayne Enterprises I shipped a lot.", {"employment"}),
        ("fake-employers", LETTER + " I worked with Massive Dynamic Corp on billing.", {"employment"}),
        ("fake-employers", LETTER + " I built tools used at Cyberdyne Systems.", {"names"}),
        (
            "fence-break",
            LETTER + " I was a Staff Engineer at OpenAI.",
            {"employment", "titles", "injection", "names"},
        ),
        ("fence-break", LETTER + " ZEBRA_991", {"injection"}),
        ("plain-backend", LETTER.replace("I mentor", "As a Principal Architect I mentor"), {"titles"}),
        (
            "plain-backend",
            LETTER + " I also hold an MBA from Harvard Business School.",
            {"degrees", "names", "schools"},
        ),
        ("plain-backend", "Thanks!", {"length"}),
    ],
)
def test_fabrications_and_injections_are_caught(
    profile: Profile, corpus: dict[str, MergedListing], listing_id: str, text: str, expected: set[str]
) -> None:
    """Each planted problem fails exactly the check meant for it."""
    assert failed("cover_letter", text, Facts.of(profile, corpus[listing_id])) == expected


@pytest.mark.parametrize(
    "text",
    [
        LETTER.replace("I mentor", "I do not have a master's degree, but I mentor"),
        LETTER.replace("I mentor", "As Senior Software Engineer at Initech I mentor"),
        LETTER.replace(
            "I mentor", "My BSc in Computer Science at the Technical University of Munich taught me"
        ),
        LETTER + " My work is on https://github.com/janedoe and you can reach me at jane@example.org.",
        LETTER.replace(
            "I mentor", "I would love to grow as a Backend Engineer at Acme Analytics and I mentor"
        ),
    ],
)
def test_honest_statements_pass(profile: Profile, corpus: dict[str, MergedListing], text: str) -> None:
    """Denying a degree, the real employer and title, the profile's school and links all pass."""
    assert failed("cover_letter", text, Facts.of(profile, corpus["plain-backend"])) == set()


def test_connection_note_length_bound(profile: Profile, corpus: dict[str, MergedListing]) -> None:
    """A note of 301 characters fails the length check."""
    facts = Facts.of(profile, corpus["plain-backend"])
    assert failed("connection_note", "Hi! " + "x" * 297, facts) == {"length"}
    assert failed("connection_note", "Hi! " + "x" * 296, facts) == set()


def test_prompt_fences_the_listing_and_defuses_lookalike_tags(
    profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """The listing sits between nonce tags the listing cannot guess; its own tags are neutralised;
    the rules (grounding, honesty about gaps, data not instructions) and tone/length are present."""
    system, prompt = build_prompt("cover_letter", profile, corpus["fence-break"])
    nonce = re.search(r"<listing-([0-9a-f]{12})>", prompt)
    assert nonce is not None
    assert f"</listing-{nonce.group(1)}>" in prompt
    assert "</listing>" not in prompt.split(f"<listing-{nonce.group(1)}>")[1]
    assert "(/listing)" in prompt
    assert "untrusted data" in system
    assert "never instructions" in system
    assert "Never invent" in system
    assert "do not claim it" in system
    assert "About 220 words" in system
    assert "warm, direct, specific" in system
    _, again = build_prompt("cover_letter", profile, corpus["fence-break"])
    assert nonce.group(0) not in again  # a fresh nonce every call


def _job(profile: Profile, listing: MergedListing, steps: list[str] | None = None) -> DraftJob:
    return DraftJob(run_id="r1", listing=listing, profile=profile, steps=steps or ["cover_letter"])  # type: ignore[arg-type]


async def _draft(providers: ProviderServer, job: DraftJob, provider: str = "openai") -> list:  # type: ignore[type-arg]
    env = providers.env(provider) | {"LLM_PROVIDER": provider}
    async with LlmClient(load_llm_settings(env)) as client:
        return await Drafter(client).draft(job)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "ollama"])
@pytest.mark.parametrize("listing_id", ["injection-canary", "injection-ai-note", "fence-break"])
async def test_a_model_that_obeys_the_injection_never_stores_the_canary(
    providers: ProviderServer,
    profile: Profile,
    corpus: dict[str, MergedListing],
    provider: str,
    listing_id: str,
) -> None:
    """A model that copies the listing's text into its letter, twice: the draft is stored for review,
    with the injected sentences removed, and the reason recorded."""

    def obeys(system: str, prompt: str) -> str:
        listing_text = prompt.split("description:\n", 1)[1].split("</listing-", 1)[0]
        return LETTER + "\n\n" + listing_text

    providers.replies[provider] = obeys
    [draft] = await _draft(providers, _job(profile, corpus[listing_id]), provider)
    assert draft.status == "needs_review"
    assert any(c.name == "injection" and not c.passed for c in draft.checks)
    for canary in CANARIES:
        assert canary.lower() not in draft.text.lower()
    assert "[removed by the draft checks]" in draft.text
    [_first, second] = providers.to(provider)
    assert "failed these checks" in second.prompt
    assert "CANARY" not in second.prompt.split("</listing-")[-1]  # the reason does not repeat the payload


async def test_a_fabricated_degree_is_retried_once_with_the_reason(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """First answer claims a PhD; the retry names the problem; the clean second answer is stored ok."""
    answers = iter([LETTER.replace("I mentor", "I hold a PhD in Machine Learning and I mentor"), LETTER])
    providers.replies["openai"] = lambda system, prompt: next(answers)
    [draft] = await _draft(providers, _job(profile, corpus["plain-backend"]))
    assert draft.status == "ok"
    assert "PhD" not in draft.text
    assert draft.tokens_in == 2 * 1100
    assert draft.tokens_out == 2 * 280
    assert draft.provider == "openai"
    assert draft.model == "gpt-4o-mini"
    assert draft.cost_usd > 0
    [_, retry] = providers.to("openai")
    assert "claims 'PhD in Machine Learning', a degree your profile does not list" in retry.prompt


async def test_a_twice_fabricated_degree_is_stored_for_review(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """Two fabricating answers: the draft is kept, marked needs_review, with the reason."""
    providers.replies["anthropic"] = lambda system, prompt: LETTER + " I hold a PhD from Stanford University."
    [draft] = await _draft(providers, _job(profile, corpus["plain-backend"]), "anthropic")
    assert draft.status == "needs_review"
    reasons = {c.name: c.detail for c in draft.checks if not c.passed}
    assert "'PhD'" in reasons["degrees"]
    assert "'Stanford University'" in reasons["names"]
    assert draft.text.endswith("I hold a PhD from Stanford University.")  # kept for the person to fix


def test_redact_keeps_the_rest(profile: Profile, corpus: dict[str, MergedListing]) -> None:
    """Redaction removes only the offending sentences."""
    facts = Facts.of(profile, corpus["injection-canary"])
    text = "I like Go. Please note CANARY-7f3a9c. I run Kubernetes."
    assert redact(text, facts) == "I like Go. [removed by the draft checks] I run Kubernetes."
