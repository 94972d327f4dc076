"""A provider that names a wait is paused for every call of the service: against the local server
speaking the providers' wire formats, with time driven by a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio
import httpx
import pytest

from jobsearch.listing import MergedListing
from jobsearch.llm import (
    AllProvidersFailed,
    Completion,
    LlmClient,
    Material,
    ProviderDown,
    RateLimited,
    load_llm_settings,
)
from jobsearch.profile import Profile
from tests.jobsearch.manual_clock import ManualClock
from tests.jobsearch.provider_servers import Fault, ProviderServer

SLOW_DOWN = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}


def rate_limit(seconds: int) -> Fault:
    """OpenAI's 429 naming a wait."""
    return Fault(429, SLOW_DOWN, {"retry-after": str(seconds)})


def env_for(providers: ProviderServer, fallback: str = "", **extra: str) -> dict[str, str]:
    """Both steps routed to OpenAI on the local server, then `fallback`."""
    return providers.env("openai") | {"LLM_PROVIDER": "openai", "LLM_FALLBACK": fallback} | extra


async def ask(client: LlmClient, material: Material | None = None, **kwargs: object) -> Completion:
    return await client.call_llm(
        "cover_letter",
        "You write a cover letter.",
        "Write it.",
        max_tokens=500,
        material=material,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def material(profile: Profile, corpus: dict[str, MergedListing]) -> Material:
    """What the offline provider drafts from."""
    return Material(profile=profile, listing=corpus["plain-backend"])


async def test_two_hundred_calls_meet_one_pause_and_all_succeed_after_it(providers: ProviderServer) -> None:
    """200 calls at once, OpenAI answering its first requests 429 `Retry-After: 30`: only the four
    requests in flight when the first 429 came back were sent (OPENAI_CONCURRENCY=4); every call
    then waits for the pause, none sends during it, and all 200 succeed once it ends."""
    providers.fail("openai", *[rate_limit(30)] * 4)
    clock = ManualClock()
    done: list[Completion] = []

    async def call(client: LlmClient) -> None:
        done.append(await ask(client))

    async with LlmClient(load_llm_settings(env_for(providers)), clock=clock) as client:
        async with anyio.create_task_group() as tg:
            for _ in range(200):
                tg.start_soon(call, client)
            await clock.asleep(200)  # every call waits for the pause
            # The 5th request could only go once a slot was free, and the pause began first.
            assert len(providers.to("openai")) == 4
            assert done == []
            [(provider, until)] = client.pauses().items()
            assert provider == "openai"
            expected = datetime.now(UTC) + timedelta(seconds=30)
            assert abs((until - expected).total_seconds()) < 5
            clock.advance(30)
        assert client.pauses() == {}
    assert len(done) == 200
    assert {c.provider for c in done} == {"openai"}
    assert all(c.fell_over == [] for c in done)
    assert len(providers.to("openai")) == 4 + 200
    assert providers.max_in_flight <= 4


async def test_a_pause_longer_than_the_budget_falls_over_without_a_request(
    providers: ProviderServer, material: Material
) -> None:
    """`Retry-After: 120` with LLM_MAX_RUN_WAIT=60: the call that met it goes to the offline
    provider, the next call too without asking OpenAI, a call pinned to OpenAI fails with when
    to come back, and once the pause has ended OpenAI is asked again."""
    providers.fail("openai", rate_limit(120))
    clock = ManualClock()
    env = env_for(providers, "offline", LLM_MAX_RUN_WAIT="60")
    async with LlmClient(load_llm_settings(env), clock=clock) as client:
        first = await ask(client, material)
        assert first.provider == "offline"
        [reason] = first.fell_over
        assert reason.startswith("openai: asked to retry at ")
        assert reason.endswith("(HTTP 429: Rate limit reached; 1 request)")

        second = await ask(client, material)
        assert second.provider == "offline"
        assert second.fell_over[0].endswith("(HTTP 429: Rate limit reached; no request sent)")
        assert len(providers.to("openai")) == 1

        with pytest.raises(AllProvidersFailed) as caught:
            await ask(client, material, provider="openai")
        [failure] = caught.value.failures
        assert isinstance(failure, RateLimited)
        assert caught.value.transient
        assert caught.value.waiting_until == failure.retry_at == client.pauses()["openai"]
        assert caught.value.retry_after == pytest.approx(120)
        assert len(providers.to("openai")) == 1
        assert clock.asked == []  # nothing waited

        clock.advance(120)
        assert client.pauses() == {}
        third = await ask(client, material)
    assert third.provider == "openai"
    assert len(providers.to("openai")) == 2


async def test_the_wait_budget_decides_between_waiting_and_falling_over(
    providers: ProviderServer, material: Material
) -> None:
    """OpenAI paused for 30 s: a call that may wait 60 s waits and gets OpenAI's answer, a call
    that may wait 10 s goes to the offline provider at once, without a request."""
    providers.fail("openai", rate_limit(30))
    clock = ManualClock()
    answers: dict[str, Completion] = {}

    async def call(name: str, budget: float) -> None:
        answers[name] = await ask(client, material, wait_budget=budget)

    async with (
        LlmClient(load_llm_settings(env_for(providers, "offline")), clock=clock) as client,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(call, "patient", 60.0)
        await clock.asleep(1)  # its 429 came back; it waits for the pause
        await call("hurried", 10.0)
        assert answers["hurried"].provider == "offline"
        assert "no request sent" in answers["hurried"].fell_over[0]
        tg.start_soon(call, "patient too", 45.0)
        await clock.asleep(2)
        assert len(providers.to("openai")) == 1
        clock.advance(30)
    assert answers["patient"].provider == answers["patient too"].provider == "openai"
    assert len(providers.to("openai")) == 3


async def test_a_call_queued_behind_a_minute_limit_learns_of_the_pause_at_once(
    providers: ProviderServer, material: Material
) -> None:
    """OPENAI_RPM=1: a call waiting for the minute limit's refill when OpenAI pauses for 30 s, and
    that may wait only 10 s, stops waiting and falls over then, not a minute later."""
    gate = anyio.Event()
    clock = ManualClock()
    providers.fail("openai", rate_limit(30))
    env = env_for(providers, "offline", OPENAI_RPM="1")
    answers: list[Completion] = []
    answered = anyio.Event()

    async def hurried() -> None:
        answers.append(await ask(client, material, wait_budget=10.0))
        answered.set()

    async with (
        httpx.AsyncClient(transport=Gated(gate)) as http,
        LlmClient(load_llm_settings(env), http=http, clock=clock) as client,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(ask, client, material)  # takes the minute's one request; held at the gate
        tg.start_soon(hurried)
        assert await clock.someone_asleep() == pytest.approx(60.0)  # the refill
        gate.set()  # the first request reaches OpenAI and meets the 429
        with anyio.fail_after(10):  # a hang guard: no clock time passes
            await answered.wait()
        tg.cancel_scope.cancel()
    [answer] = answers
    assert answer.provider == "offline"
    assert "no request sent" in answer.fell_over[0]
    assert len(providers.to("openai")) == 1


class Gated(httpx.AsyncBaseTransport):
    """The real network transport, whose requests wait for `gate` before they are sent."""

    def __init__(self, gate: anyio.Event) -> None:
        self.gate = gate
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await self.gate.wait()
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_short_named_wait_is_shared_too(providers: ProviderServer) -> None:
    """A 503 with `Retry-After: 2` (shorter than LLM_MAX_INLINE_WAIT) pauses the provider for the
    other calls as well: the call retries after it, and a second call waits for it instead of
    sending."""
    overloaded = Fault(503, {"error": {"message": "overloaded"}}, {"retry-after": "2"})
    providers.fail("openai", overloaded)
    clock = ManualClock()
    done: list[Completion] = []

    async def call(client: LlmClient) -> None:
        done.append(await ask(client))

    async with (
        LlmClient(load_llm_settings(env_for(providers)), clock=clock) as client,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(call, client)
        assert await clock.someone_asleep() == pytest.approx(2.0)
        tg.start_soon(call, client)
        await clock.asleep(2)
        assert len(providers.to("openai")) == 1
        clock.advance(2)
    assert [c.provider for c in done] == ["openai", "openai"]
    assert len(providers.to("openai")) == 3


def test_waiting_until_is_set_only_when_every_provider_is_paused() -> None:
    """`waiting_until` is the earliest `retry_at` when every failure is a pause; one outage among
    them, and there is nothing to wait for."""
    soon = datetime(2030, 1, 1, 8, 10, 30, tzinfo=UTC)
    later = soon + timedelta(minutes=5)
    paused = [RateLimited("openai", "asked", 30, later), RateLimited("gemini", "asked", 30, soon)]
    assert AllProvidersFailed("cover_letter", paused).waiting_until == soon
    mixed = [*paused, ProviderDown("ollama", "HTTP 503 (3 requests)")]
    assert AllProvidersFailed("cover_letter", mixed).waiting_until is None
    assert AllProvidersFailed("cover_letter", []).waiting_until is None


async def test_no_pause_without_a_named_wait(providers: ProviderServer) -> None:
    """A 429 without `Retry-After` is retried on our backoff and pauses nothing."""
    providers.fail("openai", Fault(429, SLOW_DOWN))
    async with LlmClient(load_llm_settings(env_for(providers))) as client:
        completion = await ask(client)
        assert client.pauses() == {}
    assert completion.provider == "openai"
    assert len(providers.to("openai")) == 2
