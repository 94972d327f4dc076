"""The draft stage's work for one listing: each step's draft, checked, with its cost.

`Drafter.draft(job)` knows nothing of NATS: it asks the provider layer for each step, runs the
checks, asks once more with the reasons when a draft fails them, and marks a draft that fails
twice `needs_review` (with injected text and unknown links removed), so nothing is dropped.
`handle` turns the provider layer's failures into jetjobs outcomes and submits the export job.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

import msgspec
import structlog

from jetjobs import JobContext, Reject, Retry
from jobsearch.draft.checks import Facts, redact, run_checks
from jobsearch.draft.prompt import build_prompt, max_tokens, retry_note
from jobsearch.jobs import EXPORT, QUEUES, Check, Draft, DraftJob, ExportJob, Step
from jobsearch.llm import AllProvidersFailed, Completion, LlmClient, LlmConfigError, Material

log = structlog.get_logger("jobsearch.draft")


class Drafter:
    """Writes and checks the drafts of one listing through an `LlmClient`."""

    def __init__(self, llm: LlmClient) -> None:
        self.llm = llm

    async def draft(self, job: DraftJob) -> list[Draft]:
        """Every requested step's draft for the job's listing, in the job's order."""
        facts = Facts.of(job.profile, job.listing)
        return [await self.draft_step(step, job, facts) for step in dict.fromkeys(job.steps)]

    async def draft_step(self, step: Step, job: DraftJob, facts: Facts) -> Draft:
        """One step: ask, check, ask again with the reasons once, then store as ok or for review."""
        profile, listing = job.profile, job.listing
        system, prompt = build_prompt(step, profile, listing)
        material = Material(profile=profile, listing=listing)
        budget = max_tokens(step, profile)
        words = profile.writing.cover_letter_words
        calls: list[Completion] = []
        checks: list[Check] = []
        text = ""
        for attempt in range(2):
            extra = "" if attempt == 0 else retry_note([c.detail for c in checks if not c.passed])
            completion = await self.llm.call_llm(
                step, system, prompt + extra, max_tokens=budget, material=material, provider=job.provider
            )
            calls.append(completion)
            text = completion.text.strip()
            checks = run_checks(step, text, facts, words)
            if all(c.passed for c in checks):
                break
        status: Literal["ok", "needs_review"] = "ok" if all(c.passed for c in checks) else "needs_review"
        if status == "needs_review":
            text = redact(text, facts)
        last = calls[-1]
        draft = Draft(
            step=step,
            text=text,
            provider=last.provider,
            model=last.model,
            tokens_in=sum(c.tokens_in for c in calls),
            tokens_out=sum(c.tokens_out for c in calls),
            cost_usd=round(sum(c.cost_usd for c in calls), 8),
            latency_ms=round(sum(c.latency_ms for c in calls), 3),
            status=status,
            checks=checks,
            created_at=datetime.now(UTC),
        )
        log.info(
            "draft.written",
            listing=listing.id,
            step=step,
            provider=draft.provider,
            model=draft.model,
            tokens_in=draft.tokens_in,
            tokens_out=draft.tokens_out,
            cost_usd=draft.cost_usd,
            latency_ms=draft.latency_ms,
            status=status,
            attempts=len(calls),
            failed_checks=[c.name for c in checks if not c.passed],
            fell_over=[f for c in calls for f in c.fell_over],
        )
        return draft


def export_key(job: DraftJob, job_id: str) -> str:
    """The export job's key: one per draft job, so a rerun of the same job submits nothing twice."""
    return f"export:{job.listing.id}:{job_id}"


async def handle(ctx: JobContext, job: DraftJob, drafter: Drafter) -> dict[str, object]:
    """Draft the listing, then submit `jobsearch.export` with the listing and its drafts.

    Raises:
        Retry: every provider failed transiently (the wait a provider named, if any): the job
            gives its worker slot back instead of sleeping in it.
        Reject: the job pins an unknown or unconfigured provider, or every provider refused for
            good (quota, bad key): the job goes to the dead-letter stream with the reason.
    """
    try:
        drafts = await drafter.draft(job)
    except LlmConfigError as exc:
        raise Reject(str(exc)) from None
    except AllProvidersFailed as exc:
        if exc.transient:
            raise Retry(exc.retry_after, reason=str(exc)) from None
        raise Reject(str(exc)) from None
    export = ExportJob(run_id=job.run_id, listing=job.listing, drafts=drafts)
    await ctx.enqueue(EXPORT, export, queue=QUEUES["export"], key=export_key(job, ctx.id))
    return {
        "listing": job.listing.id,
        "drafts": [msgspec.structs.asdict(d) | {"text": None, "checks": None} for d in drafts],
    }
