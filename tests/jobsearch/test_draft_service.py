"""The draft stage as a jetjobs service on a real nats-server: drafts land as export jobs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Publisher, Reject, Retry, Settings
from jobsearch import draft as draft_stage
from jobsearch.draft.service import Drafter, handle
from jobsearch.jobs import DRAFT, EXPORT, QUEUES, DraftJob, ExportJob
from jobsearch.listing import MergedListing
from jobsearch.llm import LlmClient, load_llm_settings
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import Fault, ProviderServer
from tests.support import Changes, running_worker

CANARIES = ("CANARY-7f3a9c", "PINEAPPLE-42", "ZEBRA_991", "evil.example.net", "umbrella-careers")


class Exports:
    """A stand-in export stage: records every `jobsearch.export` payload it receives."""

    def __init__(self) -> None:
        self.jobs: list[ExportJob] = []
        self._changes = Changes()

    def register(self, app: App) -> None:
        @app.job(EXPORT, payload=ExportJob)
        async def export(ctx: JobContext, job: ExportJob) -> None:
            self.jobs.append(job)
            self._changes.notify()

    async def wait(self, count: int, timeout: float = 60) -> None:
        """Wait until `count` export jobs arrived."""
        await self._changes.wait(lambda: len(self.jobs) >= count, timeout)


def batch(profile: Profile, corpus: dict[str, MergedListing], size: int) -> list[DraftJob]:
    listings = list(corpus.values())
    jobs = []
    for i in range(size):
        base = listings[i % len(listings)]
        listing = msgspec.structs.replace(base, id=f"{base.id}-{i}")
        jobs.append(DraftJob(run_id="run1", listing=listing, profile=profile))
    return jobs


async def run_batch(
    nc: NATS, settings: Settings, env: dict[str, str], jobs: list[DraftJob], on_export: Any = None
) -> Exports:
    drafting = App("draft-test", builtins=False)
    llm = LlmClient(load_llm_settings(env))
    draft_stage.register(drafting, llm=llm)
    exports = Exports()
    exporting = App("export-test", builtins=False)
    exports.register(exporting)
    publisher = Publisher(nc, settings)
    async with (
        llm,
        running_worker(exporting, nc, settings, queues=[QUEUES["export"]]),
        running_worker(drafting, nc, settings, queues=[QUEUES["draft"]], concurrency=4),
    ):
        for job in jobs:
            await publisher.enqueue(DRAFT, job, queue=QUEUES["draft"], key=f"draft:{job.listing.id}")
        if on_export is not None:
            await on_export(exports)
        await exports.wait(len(jobs))
    return exports


@pytest.mark.integration
async def test_offline_batch_lands_as_export_jobs(
    nc: NATS, settings: Settings, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """With nothing configured, every listing of a batch yields one export job with two checked drafts."""
    jobs = batch(profile, corpus, 15)
    exports = await run_batch(nc, settings, {}, jobs)
    assert sorted(e.listing.id for e in exports.jobs) == sorted(j.listing.id for j in jobs)
    for export in exports.jobs:
        assert [d.step for d in export.drafts] == ["cover_letter", "connection_note"]
        for d in export.drafts:
            assert d.provider == "offline"
            assert d.status == "ok"
            assert d.created_at is not None
            assert all(c.passed for c in d.checks)
            assert not any(c.lower() in d.text.lower() for c in CANARIES)


@pytest.mark.integration
async def test_an_outage_mid_batch_falls_over_and_loses_nothing(
    nc: NATS,
    settings: Settings,
    profile: Profile,
    corpus: dict[str, MergedListing],
    providers: ProviderServer,
) -> None:
    """Anthropic goes down after a few listings: the rest fall over to Ollama; every listing lands."""
    env = providers.env("anthropic", "ollama") | {
        "LLM_PROVIDER": "anthropic",
        "LLM_FALLBACK": "ollama,offline",
        "LLM_RETRIES": "1",
    }
    jobs = batch(profile, corpus, 12)

    async def outage(exports: Exports) -> None:
        await exports.wait(3)
        providers.down.add("anthropic")

    exports = await run_batch(nc, settings, env, jobs, outage)
    assert len({e.listing.id for e in exports.jobs}) == 12
    used = {d.provider for e in exports.jobs for d in e.drafts}
    assert {"anthropic", "ollama"} <= used
    for export in exports.jobs:
        assert len(export.drafts) == 2
        for d in export.drafts:
            assert d.tokens_in > 0
            assert d.latency_ms > 0
            assert d.cost_usd > 0 if d.provider == "anthropic" else d.cost_usd == 0
            assert not any(c.lower() in d.text.lower() for c in CANARIES)


@dataclass
class FakeContext:
    """What `handle` uses of a JobContext: the id, the attempt and its limits, and `enqueue`."""

    id: str = "job-1"
    attempt: int = 1
    job: Any = field(default_factory=lambda: SimpleNamespace(timeout=300.0, max_attempts=5))
    received_at: float = 0.0
    enqueued: list[tuple[str, Any, dict[str, Any]]] = field(default_factory=list)

    async def enqueue(self, job_type: str, payload: Any, **kwargs: Any) -> None:
        self.enqueued.append((job_type, payload, kwargs))


async def test_export_key_is_derived_from_the_draft_job(
    profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """The export job goes to jobsearch-export with key export:<listing>:<draft job id>."""
    ctx = FakeContext()
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile, steps=["connection_note"])
    async with LlmClient(load_llm_settings({})) as client:
        await handle(ctx, job, Drafter(client))  # type: ignore[arg-type]
    [(job_type, payload, kwargs)] = ctx.enqueued
    assert job_type == EXPORT
    assert kwargs == {"queue": "jobsearch-export", "key": "export:plain-backend:job-1"}
    assert [d.step for d in payload.drafts] == ["connection_note"]


async def test_a_long_rate_limit_gives_the_slot_back_as_retry(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """Gemini asks for 90 s and nothing else is routed: the job raises Retry(90), not a sleep."""
    retry_info = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "90s"}
    body = {
        "error": {
            "code": 429,
            "message": "slow down",
            "status": "RESOURCE_EXHAUSTED",
            "details": [retry_info],
        }
    }
    providers.fail("gemini", Fault(429, body))
    ctx = FakeContext()
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile)
    env = providers.env("gemini") | {"LLM_PROVIDER": "gemini"}
    async with LlmClient(load_llm_settings(env)) as client:
        with pytest.raises(Retry) as caught:
            await handle(ctx, job, Drafter(client))  # type: ignore[arg-type]
    assert caught.value.delay is not None
    assert 85 <= caught.value.delay <= 90
    assert ctx.enqueued == []


async def test_a_wait_longer_than_the_run_waits_leaves_the_listing_waiting(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """OpenAI asks for an hour and LLM_MAX_RUN_WAIT is 5 minutes: no Retry, no sleep; the export
    job carries the listing with why it waits and until when, for the Review cell and the next run."""
    providers.fail("openai", Fault(429, {"error": {"message": "slow down"}}, {"retry-after": "3600"}))
    ctx = FakeContext()
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile)
    env = providers.env("openai") | {"LLM_PROVIDER": "openai"}
    async with LlmClient(load_llm_settings(env)) as client:
        result = await handle(ctx, job, Drafter(client))  # type: ignore[arg-type]
    assert result["outcome"] == "waiting"
    [(job_type, payload, _)] = ctx.enqueued
    assert job_type == EXPORT
    assert payload.drafts == []
    assert payload.issue.kind == "waiting"
    assert payload.issue.retry_at is not None
    assert "openai" in payload.issue.reason
    assert len(providers.to("openai")) == 1  # the pause: no second request


async def test_the_last_attempt_of_an_outage_records_the_failure_instead_of_dying(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """Attempts left: Retry. The last attempt: the export job carries the failure (attempts made
    and each provider's reason), and the job ends well, so nothing is dead-lettered unseen."""
    env = providers.env("openai") | {"LLM_PROVIDER": "openai", "LLM_RETRIES": "1"}
    providers.down.add("openai")
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile)
    async with LlmClient(load_llm_settings(env)) as client:
        with pytest.raises(Retry):
            await handle(FakeContext(attempt=2), job, Drafter(client))  # type: ignore[arg-type]
        last = FakeContext(attempt=5)
        result = await handle(last, job, Drafter(client))  # type: ignore[arg-type]
    assert result["outcome"] == "failed"
    [(_, payload, _)] = last.enqueued
    assert payload.drafts == []
    assert payload.issue.kind == "failed"
    assert payload.issue.attempts == 5
    assert payload.issue.reason.startswith("openai: HTTP 503")


async def test_a_draft_that_fails_its_checks_is_asked_again_with_the_reasons_and_a_fresh_fence(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """The first letter carries a foreign link: the second request names what was wrong and fences
    the listing with another nonce than the first."""
    answers = iter(
        [
            "Dear team, see my work at evil.example.net/portfolio for more. " + "I build services. " * 40,
        ]
    )

    def reply(system: str, prompt: str) -> str:
        return next(answers, "Dear team, " + "I build reliable backend services in Python. " * 25)

    providers.replies["openai"] = reply
    env = providers.env("openai") | {"LLM_PROVIDER": "openai"}
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile, steps=["cover_letter"])
    async with LlmClient(load_llm_settings(env)) as client:
        [draft] = await Drafter(client).draft(job)
    first, second = providers.to("openai")
    nonces = [re.findall(r"<listing-([0-9a-f]+)>", seen.prompt) for seen in (first, second)]
    assert len(nonces[0]) == 1
    assert len(nonces[1]) == 1
    assert nonces[0] != nonces[1]
    assert "failed these checks" not in first.prompt
    assert "failed these checks" in second.prompt
    assert "evil.example.net/portfolio" in second.prompt  # the check names what was wrong
    assert draft.status == "ok"


@pytest.mark.parametrize(("pinned", "message"), [("bard", "choose one of"), ("openai", "OPENAI_API_KEY")])
async def test_pinning_an_unknown_or_unset_provider_rejects_the_job(
    profile: Profile, corpus: dict[str, MergedListing], pinned: str, message: str
) -> None:
    """A job pinned to a provider the service cannot use is rejected with the reason (to the DLQ)."""
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile, provider=pinned)
    async with LlmClient(load_llm_settings({})) as client:
        with pytest.raises(Reject, match=message):
            await handle(FakeContext(), job, Drafter(client))  # type: ignore[arg-type]


async def test_pinning_overrides_the_route(
    providers: ProviderServer, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """DraftJob.provider = "deepseek" sends every step to DeepSeek though the route says offline."""
    job = DraftJob(run_id="r", listing=corpus["plain-backend"], profile=profile, provider="deepseek")
    async with LlmClient(load_llm_settings(providers.env("deepseek"))) as client:
        drafts = await Drafter(client).draft(job)
    assert [d.provider for d in drafts] == ["deepseek", "deepseek"]
    assert len(providers.to("deepseek")) == 2
