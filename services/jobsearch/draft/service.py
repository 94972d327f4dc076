"""The draft stage's work for one listing: each step's draft, checked, with its cost.

`Drafter.draft(job)` knows nothing of NATS: it asks the provider layer for each step, runs the
checks, asks once more with the reasons (and a fresh fence) when a draft fails them, and marks a
draft that fails twice `needs_review` (with injected text and unknown links removed), so nothing
is dropped. `handle` turns the provider layer's failures into jetjobs outcomes and submits the
export job; a listing whose drafting cannot succeed in this run is reported, never dead-lettered:

| the providers...                                   | the job                    | the listing            |
|----------------------------------------------------|----------------------------|------------------------|
| answered                                           | succeeds, `drafted`        | drafts recorded        |
| failed transiently, attempts left                  | Retry (backoff)            | Saved, as it was       |
| asked to wait, up to `LLM_MAX_RUN_WAIT`            | Retry at the time they named | Saved, as it was     |
| failed on the last attempt, or for good (quota)    | succeeds, `failed`         | issue `failed`         |
| asked to wait longer than the run waits            | succeeds, `waiting`        | issue `waiting`        |

The issue reaches the state of record in an export job with no drafts; the next run drafts the
listing again (`jobsearch.store.drafting`).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec
import structlog

from jetjobs import HandlerOutcome, JobContext, Reject, Retry
from jobsearch.draft.checks import Facts, redact, run_checks
from jobsearch.draft.prompt import build_prompt, max_tokens, retry_note
from jobsearch.jobs import EXPORT, QUEUES, Check, Draft, DraftIssue, DraftJob, ExportJob, Step
from jobsearch.llm import AllProvidersFailed, Completion, LlmClient, LlmConfigError, Material

# What a job keeps back from its timeout when it waits for a paused provider inside a call.
_TIMEOUT_MARGIN = 60.0
# The longest a call waits for a paused provider before the job hands its slot back (a Retry at
# the time the provider named, which the run's terminal shows).
_IN_CALL_WAIT = 30.0

log = structlog.get_logger("jobsearch.draft")


class Drafter:
    """Writes and checks the drafts of one listing through an `LlmClient`."""

    def __init__(self, llm: LlmClient) -> None:
        self.llm = llm

    async def draft(self, job: DraftJob, *, wait_budget: float | None = None) -> list[Draft]:
        """Every requested step's draft for the job's listing, in the job's order.

        `wait_budget` is the most seconds each call may wait for a paused provider.
        """
        facts = Facts.of(job.profile, job.listing)
        return [
            await self.draft_step(step, job, facts, wait_budget=wait_budget)
            for step in dict.fromkeys(job.steps)
        ]

    async def draft_step(
        self, step: Step, job: DraftJob, facts: Facts, *, wait_budget: float | None = None
    ) -> Draft:
        """One step: ask, check, ask again with the reasons once, then store as ok or for review."""
        profile, listing = job.profile, job.listing
        material = Material(profile=profile, listing=listing)
        budget = max_tokens(step, profile)
        words = profile.writing.cover_letter_words
        calls: list[Completion] = []
        checks: list[Check] = []
        text = ""
        for attempt in range(2):
            # Each request gets its own fence nonce: a listing that saw the first cannot close the second.
            system, prompt = build_prompt(step, profile, listing)
            extra = "" if attempt == 0 else retry_note([c.detail for c in checks if not c.passed])
            completion = await self.llm.call_llm(
                step,
                system,
                prompt + extra,
                max_tokens=budget,
                material=material,
                provider=job.provider,
                wait_budget=wait_budget,
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
            fell_over=[_failed(reason) for c in calls for reason in c.fell_over],
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


def _failed(reason: str) -> str:
    """`openai: HTTP 500` as `openai failed: HTTP 500`, for the Provider/model cell."""
    provider, _, why = reason.partition(": ")
    return f"{provider} failed: {why}" if why else reason


def export_key(job: DraftJob, job_id: str) -> str:
    """The export job's key: one per draft job, so a rerun of the same job submits nothing twice."""
    return f"export:{job.listing.id}:{job_id}"


def wait_budget(ctx: JobContext) -> float:
    """How long a call of this job may wait for a paused provider: what the job's timeout leaves,
    at most `_IN_CALL_WAIT`."""
    timeout = ctx.job.timeout
    if timeout is None:
        return _IN_CALL_WAIT
    started = ctx.received_at or time.time()
    return max(0.0, min(_IN_CALL_WAIT, timeout - (time.time() - started) - _TIMEOUT_MARGIN))


def issue_of(exc: AllProvidersFailed, ctx: JobContext, max_run_wait: float) -> DraftIssue | Retry:
    """What a failure of every provider means for the listing: wait and retry within the run, or
    an issue to record (the job's last attempt, a failure no retry fixes, a wait past the run's)."""
    reason = "; ".join(str(f) for f in exc.failures)
    last = ctx.attempt >= ctx.job.max_attempts
    until = exc.waiting_until
    if until is not None:
        wait = (until - datetime.now(UTC)).total_seconds()
        if wait > max_run_wait or last:
            return DraftIssue(kind="waiting", reason=reason, attempts=ctx.attempt, retry_at=until)
        return Retry(max(wait, 0.0), reason=f"waiting: {reason}")
    if exc.transient and not last:
        return Retry(exc.retry_after, reason=str(exc))
    return DraftIssue(kind="failed", reason=reason, attempts=ctx.attempt)


async def handle(ctx: JobContext, job: DraftJob, drafter: Drafter) -> dict[str, Any]:
    """Draft the listing, then submit `jobsearch.export` with the listing and its drafts, or, when
    no provider could draft it, with why (see the module's table).

    Raises:
        Retry: every provider failed transiently (the wait a provider named, if any) and attempts
            are left: the job gives its worker slot back instead of sleeping in it.
        Reject: the job pins an unknown or unconfigured provider (the review page's re-draft).
    """
    issue: DraftIssue | None = None
    drafts: list[Draft] = []
    try:
        drafts = await drafter.draft(job, wait_budget=wait_budget(ctx))
    except LlmConfigError as exc:
        raise Reject(str(exc)) from None
    except AllProvidersFailed as exc:
        outcome = issue_of(exc, ctx, drafter.llm.settings.max_run_wait)
        if isinstance(outcome, Retry):
            raise outcome from None
        issue = outcome
    except HandlerOutcome:
        raise
    except Exception as exc:
        if ctx.attempt < ctx.job.max_attempts:
            raise
        log.exception("draft.failed", listing=job.listing.id, attempt=ctx.attempt)
        issue = DraftIssue(kind="failed", reason=f"{type(exc).__name__}: {exc}", attempts=ctx.attempt)
    export = ExportJob(run_id=job.run_id, listing=job.listing, drafts=drafts, issue=issue)
    await ctx.enqueue(EXPORT, export, queue=QUEUES["export"], key=export_key(job, ctx.id))
    if issue is not None:
        log.warning("draft.not_written", listing=job.listing.id, kind=issue.kind, reason=issue.reason)
        return {
            "listing": job.listing.id,
            "outcome": issue.kind,
            "reason": issue.reason,
            "attempts": issue.attempts,
            "retry_at": issue.retry_at.isoformat(timespec="seconds") if issue.retry_at else None,
        }
    return {
        "listing": job.listing.id,
        "outcome": "drafted",
        "drafts": [msgspec.structs.asdict(d) | {"text": None, "checks": None} for d in drafts],
    }
