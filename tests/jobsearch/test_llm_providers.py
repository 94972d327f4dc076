"""Every provider's real code against a local server speaking its wire format."""

from __future__ import annotations

import traceback
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest

from jobsearch.listing import MergedListing
from jobsearch.llm import (
    AllProvidersFailed,
    BadResponse,
    LlmClient,
    Material,
    ProviderDown,
    QuotaExhausted,
    RateLimited,
    load_llm_settings,
)
from jobsearch.llm._transport import retry_after
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import KEYS, LETTER, Fault, ProviderServer

REMOTE = ["anthropic", "openai", "gemini", "deepseek", "opencode", "ollama"]
Make = Callable[..., AsyncIterator[LlmClient]]


def env_for(providers: ProviderServer, primary: str, fallback: str = "", **extra: str) -> dict[str, str]:
    """An environment routing both steps to `primary` on the local server."""
    names = {primary, *[n for n in fallback.split(",") if n and n != "offline"]}
    env = providers.env(*names) | {"LLM_PROVIDER": primary, "LLM_FALLBACK": fallback}
    return env | {"LLM_MAX_INLINE_WAIT": "5", "LLM_RETRIES": "2"} | extra


async def ask(client: LlmClient, step: str = "cover_letter", **kwargs: Any) -> Any:
    return await client.call_llm(step, "You write a cover letter.", "Write it.", max_tokens=500, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", REMOTE)
async def test_each_provider_answers_in_its_own_wire_format(providers: ProviderServer, provider: str) -> None:
    """Each provider sends its own auth and fields; the text, token counts, model and cost come back."""
    async with LlmClient(load_llm_settings(env_for(providers, provider))) as client:
        completion = await ask(client)
    assert completion.text == LETTER
    assert completion.provider == provider
    assert completion.tokens_in > 0
    assert completion.tokens_out > 0
    assert completion.latency_ms > 0
    if provider == "ollama":
        assert completion.cost_usd == 0
    else:
        assert completion.cost_usd > 0
    [seen] = providers.to(provider)
    assert seen.system == "You write a cover letter."
    assert seen.prompt == "Write it."
    if provider in KEYS:
        assert KEYS[provider] not in seen.path  # Gemini's key rides in a header, never the URL


async def test_429_with_retry_after_is_retried(providers: ProviderServer) -> None:
    """A 429 naming a short retry-after is waited out in-process and the call succeeds."""
    rate_limit = {
        "error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
    }
    providers.fail(
        "openai",
        Fault(429, rate_limit, {"retry-after": "0"}),
        Fault(429, rate_limit, {"retry-after-ms": "10"}),
    )
    async with LlmClient(load_llm_settings(env_for(providers, "openai"))) as client:
        completion = await ask(client)
    assert completion.provider == "openai"
    assert len(providers.to("openai")) == 3


@pytest.mark.parametrize(
    ("provider", "fault"),
    [
        (
            "anthropic",
            Fault(
                529,
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                {"retry-after": "0"},
            ),
        ),
        ("deepseek", Fault(503, {"error": {"message": "Server overloaded"}}, {"retry-after": "0"})),
        (
            "gemini",
            Fault(
                503,
                {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}},
                {"retry-after": "0"},
            ),
        ),
        ("opencode", Fault(500, b"<html>upstream error</html>", {"retry-after": "0"})),
    ],
)
async def test_overload_is_retried_then_succeeds(
    providers: ProviderServer, provider: str, fault: Fault
) -> None:
    """529 (Anthropic), 503 and 500 are transient: retried, and the second answer is used."""
    providers.fail(provider, fault)
    async with LlmClient(load_llm_settings(env_for(providers, provider))) as client:
        completion = await ask(client)
    assert completion.provider == provider
    assert len(providers.to(provider)) == 2


async def test_gemini_retry_info_beyond_the_run_wait_is_a_rate_limit(providers: ProviderServer) -> None:
    """Gemini's RetryInfo of 120 s, longer than LLM_MAX_RUN_WAIT=60: the provider is paused and the
    call, instead of waiting or sending again, reports RateLimited(120) and when to come back."""
    body = {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
                 "violations": [{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "120s"},
            ],
        }
    }  # fmt: skip
    providers.fail("gemini", Fault(429, body))
    async with LlmClient(load_llm_settings(env_for(providers, "gemini", LLM_MAX_RUN_WAIT="60"))) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)
    assert caught.value.transient
    assert caught.value.retry_after == pytest.approx(120, abs=5)
    assert isinstance(caught.value.failures[0], RateLimited)
    assert caught.value.waiting_until == caught.value.failures[0].retry_at
    assert len(providers.to("gemini")) == 1


@pytest.mark.parametrize(
    ("provider", "fault"),
    [
        (
            "openai",
            Fault(
                429,
                {
                    "error": {
                        "message": "You exceeded your current quota",
                        "type": "insufficient_quota",
                        "code": "insufficient_quota",
                    }
                },
            ),
        ),
        ("deepseek", Fault(402, {"error": {"message": "Insufficient Balance", "type": "unknown_error"}})),
        (
            "anthropic",
            Fault(
                400,
                {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "Your credit balance is too low to access the Anthropic API.",
                    },
                },
            ),
        ),
        (
            "anthropic",
            Fault(
                429,
                {
                    "type": "error",
                    "error": {
                        "type": "rate_limit_error",
                        "message": "You have reached your specified API usage limits.",
                        "details": {"error_code": "enforced_spend_limit_reached"},
                    },
                },
            ),
        ),
        (
            "gemini",
            Fault(
                429,
                {
                    "error": {
                        "code": 429,
                        "message": "quota",
                        "status": "RESOURCE_EXHAUSTED",
                        "details": [
                            {
                                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                                "violations": [
                                    {"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}
                                ],
                            }
                        ],
                    }
                },
            ),
        ),
    ],
)
async def test_quota_is_never_retried_and_falls_over(
    providers: ProviderServer, provider: str, fault: Fault
) -> None:
    """Out of money or daily quota: one request only, then the next provider of the chain answers."""
    providers.fail(provider, fault)
    async with LlmClient(load_llm_settings(env_for(providers, provider, "ollama,offline"))) as client:
        completion = await ask(client)
    assert len(providers.to(provider)) == 1
    assert completion.provider == "ollama"
    assert "QuotaExhausted" not in completion.fell_over[0]  # a reason, not a class name
    assert completion.fell_over[0].startswith(f"{provider}: HTTP")


async def test_quota_error_type(providers: ProviderServer) -> None:
    """With no fallback, the failure is reported as quota, not as transient."""
    providers.fail("deepseek", Fault(402, {"error": {"message": "Insufficient Balance"}}))
    async with LlmClient(load_llm_settings(env_for(providers, "deepseek"))) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)
    assert isinstance(caught.value.failures[0], QuotaExhausted)
    assert not caught.value.transient


@pytest.mark.parametrize(
    ("provider", "body"),
    [
        ("openai", b"not json at all"),
        ("openai", {"id": "x", "object": "chat.completion", "choices": []}),
        ("anthropic", {"type": "message", "content": [{"type": "tool_use", "id": "t"}]}),
        ("gemini", {"candidates": [{"finishReason": "SAFETY"}]}),
        ("ollama", {"model": "llama3.2", "done": True}),
    ],
)
async def test_malformed_answers_fall_over(providers: ProviderServer, provider: str, body: Any) -> None:
    """A 200 whose body is not the documented shape is a BadResponse and the chain goes on."""
    providers.fail(provider, Fault(200, body))
    async with LlmClient(load_llm_settings(env_for(providers, provider, "offline"))) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)  # offline needs material: the chain is exhausted
    assert isinstance(caught.value.failures[0], BadResponse)


async def test_outage_after_retries_falls_over(providers: ProviderServer) -> None:
    """503 on every attempt: the provider is reported down and the next provider answers."""
    down = Fault(
        503, {"type": "error", "error": {"type": "api_error", "message": "down"}}, {"retry-after": "0"}
    )
    providers.fail("anthropic", down, down, down)
    async with LlmClient(load_llm_settings(env_for(providers, "anthropic", "deepseek"))) as client:
        completion = await ask(client)
    assert completion.provider == "deepseek"
    assert len(providers.to("anthropic")) == 3
    assert completion.fell_over[0].endswith("(3 requests)")


async def test_unreachable_provider_is_down(providers: ProviderServer) -> None:
    """A connection refused is a transient failure: retried, then ProviderDown."""
    env = env_for(providers, "ollama", LLM_RETRIES="1") | {"OLLAMA_BASE_URL": "http://127.0.0.1:9"}
    async with LlmClient(load_llm_settings(env)) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)
    assert isinstance(caught.value.failures[0], ProviderDown)
    assert caught.value.transient


async def test_keys_never_reach_errors_or_logs(
    providers: ProviderServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A provider echoing the key in its error body: the exception and the log line show it scrubbed."""
    leaked = {
        "error": {"message": f"Incorrect API key provided: {KEYS['openai']}", "code": "invalid_api_key"}
    }
    providers.fail("openai", Fault(401, leaked))
    settings = load_llm_settings(env_for(providers, "openai"))
    assert KEYS["openai"] not in repr(settings)
    async with LlmClient(settings) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client)
    rendered = "".join(traceback.format_exception(caught.value))
    assert "[redacted]" in rendered
    assert KEYS["openai"] not in rendered
    captured = capsys.readouterr()
    assert KEYS["openai"] not in captured.out + captured.err


async def test_concurrency_limit_is_shared_by_every_call(providers: ProviderServer) -> None:
    """OPENAI_CONCURRENCY=2: six concurrent calls never have more than two requests in flight."""
    providers.hold_until_in_flight = 2  # each request waits until a second one arrives (or 2 s)
    env = env_for(providers, "openai", OPENAI_CONCURRENCY="2")
    async with LlmClient(load_llm_settings(env)) as client, anyio.create_task_group() as tg:
        for _ in range(6):
            tg.start_soon(ask, client)
    assert providers.max_in_flight == 2
    assert len(providers.to("openai")) == 6


def test_retry_after_headers() -> None:
    """retry-after-ms wins over retry-after; seconds and HTTP dates both parse; junk is ignored."""
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "7"}) == 7.0
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 -0000"}) == 0.0  # a zoneless date
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


async def test_offline_needs_nothing(profile: Profile, corpus: dict[str, MergedListing]) -> None:
    """With no variable set, both steps go to the offline provider and it drafts from the material."""
    async with LlmClient(load_llm_settings({})) as client:
        material = Material(profile=profile, listing=corpus["plain-backend"])
        letter = await ask(client, material=material)
        note = await ask(client, "connection_note", material=material)
    assert letter.provider == note.provider == "offline"
    assert "Initech" in letter.text
    assert len(note.text) <= 300
    assert letter.cost_usd == 0
