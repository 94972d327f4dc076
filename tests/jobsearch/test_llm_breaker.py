"""A provider that keeps failing is skipped for a while: against the local server speaking the
providers' wire formats, down (503) or hanging past LLM_TIMEOUT, with the breaker's time driven
by a clock the test moves."""

from __future__ import annotations

import anyio
import pytest

from jobsearch.listing import MergedListing
from jobsearch.llm import AllProvidersFailed, Completion, LlmClient, Material, ProviderDown, load_llm_settings
from jobsearch.llm.breaker import COOLDOWN, THRESHOLD
from jobsearch.profile import Profile
from tests.jobsearch.manual_clock import ManualClock
from tests.jobsearch.provider_servers import ProviderServer


async def ask(client: LlmClient, material: Material | None = None) -> Completion:
    return await client.call_llm("cover_letter", "You write a cover letter.", "Write it.", material=material)


@pytest.fixture
def material(profile: Profile, corpus: dict[str, MergedListing]) -> Material:
    return Material(profile=profile, listing=corpus["plain-backend"])


async def test_a_provider_down_three_calls_in_a_row_is_skipped_until_its_cooldown_ends(
    providers: ProviderServer, material: Material
) -> None:
    """Three calls meet a 503 outage, each with its request; the fourth is not sent (it fails at
    once with why, or falls over to the offline template); after the cooldown the provider is
    asked again, answers, and the breaker closes."""
    providers.down.add("openai")
    env = providers.env("openai") | {"LLM_PROVIDER": "openai", "LLM_RETRIES": "0"}
    clock = ManualClock()
    async with LlmClient(load_llm_settings(env), clock=clock) as client:
        for _ in range(THRESHOLD):
            with pytest.raises(AllProvidersFailed):
                await ask(client)
        assert len(providers.to("openai")) == THRESHOLD
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)
        [skipped] = caught.value.failures
        assert isinstance(skipped, ProviderDown)
        assert caught.value.transient
        assert skipped.message.startswith("HTTP 503")
        assert skipped.message.endswith(
            f"(not asked for {COOLDOWN:g} s after {THRESHOLD} calls in a row failed; no request sent)"
        )
        assert len(providers.to("openai")) == THRESHOLD

        fallback = env | {"LLM_FALLBACK": "offline"}
        async with LlmClient(load_llm_settings(fallback), clock=clock) as other:
            for _ in range(THRESHOLD):
                assert (await ask(other, material)).provider == "offline"
            written = await ask(other, material)  # its own breaker: one per service
            assert written.provider == "offline"
            assert written.fell_over[0].endswith("no request sent)")
        assert len(providers.to("openai")) == 2 * THRESHOLD

        providers.down.clear()
        clock.advance(COOLDOWN)
        assert (await ask(client)).provider == "openai"
        assert len(providers.to("openai")) == 2 * THRESHOLD + 1
        assert (await ask(client)).provider == "openai"


async def test_a_provider_that_hangs_costs_one_round_of_timeouts_not_one_per_call(
    providers: ProviderServer,
) -> None:
    """OpenAI answers after 5 s, LLM_TIMEOUT is 0.2 s: the four calls in flight time out; the 40
    after them fail at once without a request, so an outage is recorded in seconds."""
    providers.hang["openai"] = 5.0
    env = providers.env("openai") | {
        "LLM_PROVIDER": "openai",
        "LLM_RETRIES": "0",
        "LLM_TIMEOUT": "0.2",
        "OPENAI_CONCURRENCY": "4",
    }
    reasons: list[str] = []

    async def call(client: LlmClient) -> None:
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)
        reasons.append(str(caught.value))

    async with LlmClient(load_llm_settings(env)) as client:
        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(call, client)
        async with anyio.create_task_group() as tg:
            for _ in range(40):
                tg.start_soon(call, client)
    assert len(providers.to("openai")) == 4
    assert sum("no answer within 0.2s" in reason for reason in reasons) == 44
    assert sum("no request sent" in reason for reason in reasons) == 40
