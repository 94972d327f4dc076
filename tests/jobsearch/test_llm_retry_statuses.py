"""408 Request Timeout and 409 Conflict are transient for every provider: retried, as the official SDKs do."""

from __future__ import annotations

from typing import Any

import pytest

from jobsearch.llm import AllProvidersFailed, LlmClient, ProviderDown, load_llm_settings
from tests.jobsearch.provider_servers import LETTER, Fault, ProviderServer


def error_body(provider: str, status: int, message: str) -> Any:
    """An error body in the provider's own documented shape."""
    if provider == "anthropic":
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    if provider == "gemini":
        state = {408: "DEADLINE_EXCEEDED", 409: "ABORTED"}[status]
        return {"error": {"code": status, "message": message, "status": state}}
    if provider == "ollama":
        return {"error": message}
    return {"error": {"message": message, "type": "server_error", "code": None}}


def env_for(providers: ProviderServer, provider: str, fallback: str = "") -> dict[str, str]:
    """Both steps routed to `provider` on the local server, two retries."""
    env = providers.env(provider, *[n for n in fallback.split(",") if n])
    return env | {"LLM_PROVIDER": provider, "LLM_FALLBACK": fallback, "LLM_RETRIES": "2"}


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini", "deepseek", "opencode", "ollama"])
async def test_408_then_409_are_retried_and_the_third_answer_is_used(
    providers: ProviderServer, provider: str
) -> None:
    """A 408 (no retry-after: our backoff) then a 409 (retry-after: 0): both retried, the call succeeds."""
    providers.fail(
        provider,
        Fault(408, error_body(provider, 408, "Request timed out")),
        Fault(409, error_body(provider, 409, "Conflict, please retry"), {"retry-after": "0"}),
    )
    async with LlmClient(load_llm_settings(env_for(providers, provider))) as client:
        completion = await client.call_llm("cover_letter", "You write a cover letter.", "Write it.")
    assert completion.provider == provider
    assert completion.text == LETTER
    assert completion.fell_over == []
    assert len(providers.to(provider)) == 3


@pytest.mark.parametrize("status", [408, 409])
async def test_408_and_409_on_every_attempt_is_an_outage_and_falls_over(
    providers: ProviderServer, status: int
) -> None:
    """The same transient answer three times: the provider is down (not a rejection) and the next answers."""
    fault = Fault(status, error_body("openai", status, "try again"), {"retry-after": "0"})
    providers.fail("openai", fault, fault, fault)
    async with LlmClient(load_llm_settings(env_for(providers, "openai", "deepseek"))) as client:
        completion = await client.call_llm("cover_letter", "You write a cover letter.", "Write it.")
    assert completion.provider == "deepseek"
    assert len(providers.to("openai")) == 3
    assert completion.fell_over == [f"openai: HTTP {status}: try again (3 requests)"]


async def test_408_with_no_fallback_is_transient(providers: ProviderServer) -> None:
    """With no provider left, repeated 408s are reported as transient (the job retries later)."""
    fault = Fault(408, error_body("anthropic", 408, "Request timed out"), {"retry-after": "0"})
    providers.fail("anthropic", fault, fault, fault)
    async with LlmClient(load_llm_settings(env_for(providers, "anthropic"))) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await client.call_llm("cover_letter", "You write a cover letter.", "Write it.")
    assert isinstance(caught.value.failures[0], ProviderDown)
    assert caught.value.transient
