"""The per-provider minute limits (`<PROVIDER>_RPM`, `<PROVIDER>_TPM`), driven by a clock the test moves."""

from __future__ import annotations

import anyio
import pytest

from jobsearch.llm import LlmClient, load_llm_settings
from jobsearch.llm.limits import ProviderLimits, TokenBucket
from tests.jobsearch.manual_clock import ManualClock
from tests.jobsearch.provider_servers import ProviderServer


async def settle() -> None:
    """Let every task run until it blocks (on the clock, a lock or I/O)."""
    await anyio.wait_all_tasks_blocked()


async def test_requests_a_minute_the_third_call_waits_for_the_refill() -> None:
    """RPM=2: two requests go at once; the third waits 30 s of clock time (one request's refill), not less."""
    clock = ManualClock()
    limits = ProviderLimits(concurrency=4, requests_per_minute=2, tokens_per_minute=None, clock=clock)
    sent: list[int] = []

    async def call(n: int) -> None:
        async with limits.slot(estimated_tokens=100):
            sent.append(n)

    async with anyio.create_task_group() as tg:
        for n in range(3):
            tg.start_soon(call, n)
        wait = await clock.someone_asleep()
        assert sent == [0, 1]
        assert wait == pytest.approx(30.0)

        clock.advance(29.0)
        await settle()
        assert sent == [0, 1]  # 29 s refill 0.97 of a request: not enough
        assert clock.sleeping == 1

        clock.advance(1.0)
    assert sent == [0, 1, 2]


@pytest.mark.parametrize("rpm", [7, 9, 31])
async def test_refill_rounding_costs_no_extra_wake_up(rpm: int) -> None:
    """RPM=7: 60/7 s is not exact in binary; the waiter goes when that time is reached, in one sleep."""
    clock = ManualClock()
    bucket = TokenBucket(rpm, clock)
    for _ in range(rpm):
        await bucket.take(1)
    async with anyio.create_task_group() as tg:
        tg.start_soon(bucket.take, 1)
        wait = await clock.someone_asleep()
        assert wait == pytest.approx(60 / rpm)
        clock.advance(wait)
    assert clock.asked == [wait]


async def test_tokens_a_minute_reserve_the_estimate() -> None:
    """TPM=1000: 600 then 600 tokens; the second waits for 200 tokens at 1000/60 a second (12 s)."""
    clock = ManualClock()
    limits = ProviderLimits(concurrency=4, requests_per_minute=None, tokens_per_minute=1000, clock=clock)
    sent: list[int] = []

    async def call(n: int) -> None:
        async with limits.slot(estimated_tokens=600):
            sent.append(n)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, 0)
        tg.start_soon(call, 1)
        assert await clock.someone_asleep() == pytest.approx(12.0)
        assert sent == [0]
        clock.advance(12.0)
    assert sent == [0, 1]


async def test_bucket_never_banks_more_than_a_minute() -> None:
    """After ten idle minutes an RPM=2 bucket holds two requests, not twenty: the third still waits."""
    clock = ManualClock()
    bucket = TokenBucket(2, clock)
    await bucket.take(1)
    clock.advance(600.0)
    await bucket.take(1)
    await bucket.take(1)
    async with anyio.create_task_group() as tg:
        tg.start_soon(bucket.take, 1)
        assert await clock.someone_asleep() == pytest.approx(30.0)
        clock.advance(30.0)


async def test_a_request_larger_than_the_bucket_waits_for_a_full_bucket_not_forever() -> None:
    """TPM=1000 and a 5000-token estimate: it goes when the bucket is full again, instead of never."""
    clock = ManualClock()
    bucket = TokenBucket(1000, clock)
    await bucket.take(400)
    async with anyio.create_task_group() as tg:
        tg.start_soon(bucket.take, 5000)
        assert await clock.someone_asleep() == pytest.approx(24.0)  # 400 tokens at 1000/60 a second
        clock.advance(24.0)


async def test_waiters_are_served_in_order() -> None:
    """With RPM=1 three callers queue: each goes one refill after the one before, first come first served."""
    clock = ManualClock()
    bucket = TokenBucket(1, clock)
    served: list[int] = []

    async def take(n: int) -> None:
        await bucket.take(1)
        served.append(n)

    async with anyio.create_task_group() as tg:
        for n in range(3):
            tg.start_soon(take, n)
            await settle()  # n is queued on the bucket before n + 1 arrives
        await clock.someone_asleep()
        assert served == [0]
        clock.advance(60.0)
        await settle()
        assert served == [0, 1]
        clock.advance(60.0)
    assert served == [0, 1, 2]


async def test_client_rpm_holds_the_third_request_back_from_the_provider(providers: ProviderServer) -> None:
    """OPENAI_RPM=2 through LlmClient: the provider sees two requests, the third only after the refill."""
    env = providers.env("openai") | {"LLM_PROVIDER": "openai", "OPENAI_RPM": "2"}
    clock = ManualClock()
    done: list[str] = []
    two_done = anyio.Event()

    async def ask(client: LlmClient) -> None:
        completion = await client.call_llm("cover_letter", "You write a cover letter.", "Write it.")
        done.append(completion.provider)
        if len(done) == 2:
            two_done.set()

    async with LlmClient(load_llm_settings(env), clock=clock) as client, anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(ask, client)
        assert await clock.someone_asleep() == pytest.approx(30.0)
        with anyio.fail_after(10):  # hang guard: the two admitted calls finish on their own
            await two_done.wait()
        assert len(done) == 2
        assert len(providers.to("openai")) == 2
        clock.advance(30.0)
    assert done == ["openai"] * 3
    assert len(providers.to("openai")) == 3


async def test_client_tpm_reserves_prompt_and_budget(providers: ProviderServer) -> None:
    """OPENAI_TPM=1200 and calls of (34 chars / 4 + 500) = 508 tokens: two go, the third waits 16.2 s."""
    env = providers.env("openai") | {"LLM_PROVIDER": "openai", "OPENAI_TPM": "1200"}
    clock = ManualClock()
    done: list[str] = []

    async def ask(client: LlmClient) -> None:
        completion = await client.call_llm(
            "cover_letter", "You write a cover letter.", "Write it.", max_tokens=500
        )
        done.append(completion.provider)

    async with LlmClient(load_llm_settings(env), clock=clock) as client, anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(ask, client)
        # 1200 - 2 * 508 = 184 left; 508 - 184 = 324 more at 20 tokens a second.
        assert await clock.someone_asleep() == pytest.approx(16.2)
        clock.advance(16.2)
    assert done == ["openai"] * 3
    assert len(providers.to("openai")) == 3
