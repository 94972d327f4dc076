"""Drafts the review page asks for: "Draft this" and "Re-draft with another provider".

Each is a `jobsearch.draft` job submitted through jetjobs like any other client's (the id
`draft-<listing>-review-<id>`, so a draft job that dies is recognised as the listing's by the run
that records dead drafts). The page follows it in the platform's ledger until its draft lands in
the state of record (through the export stage) or it ends without one, and then says why:

| the job                                   | the page says                                          |
|-------------------------------------------|--------------------------------------------------------|
| queued, running, retrying                 | its state (and the last attempt's error, if any)       |
| succeeded, the draft recorded             | landed (and, when it needs review, the checks that failed) |
| succeeded, every provider failed          | failed: the provider's error                           |
| dead (e.g. a provider that is not configured) | dead: the job's error                              |

Only configured providers are offered (`configured_providers`): a provider whose key is missing
would only die with "not configured".
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from jetjobs import Ledger, Publisher, StatusRecord, new_job_id
from jobsearch.jobs import DRAFT, QUEUES, DraftJob, draft_job_id, draft_key
from jobsearch.listing import MergedListing
from jobsearch.llm import PROVIDERS, LlmConfigError, load_llm_settings
from jobsearch.llm.settings import KEY_VARIABLES
from jobsearch.profile import Profile
from jobsearch.store import ListingDetail

PENDING_STATES = frozenset({"submitted", "queued", "running", "failed"})  # `failed`: a retry is due


def configured_providers(env: Mapping[str, str]) -> list[str]:
    """The providers a pinned draft job can use with this environment: those with their key set,
    the offline template, and Ollama when it is routed or its address is set."""
    try:
        settings = load_llm_settings(env)
    except LlmConfigError:
        # The draft service would not start with this environment either; offer what has a key.
        names = [p for p in PROVIDERS if KEY_VARIABLES[p] and env.get(KEY_VARIABLES[p] or "", "").strip()]
        return [*names, "offline"]
    routed = {target.provider for chain in settings.routes.values() for target in chain}
    return [
        name
        for name in PROVIDERS
        if name in settings.providers
        and (name != "ollama" or "ollama" in routed or env.get("OLLAMA_BASE_URL"))
    ]


class PageJob(msgspec.Struct, kw_only=True, frozen=True):
    """A draft job this page submitted for a listing."""

    job_id: str
    provider: str  # "" = as the draft service routes each step
    before: int  # the newest draft id of the listing when it was submitted (0: none)
    submitted_at: datetime


class JobView(msgspec.Struct, kw_only=True, frozen=True):
    """What the page shows about a submitted job."""

    what: str  # "Draft" / "Re-draft with openai"
    state: str  # submitted | queued | running | retrying | landed | failed | dead | cancelled
    reason: str = ""
    pending: bool = False  # still worth refreshing for


async def submit(
    publisher: Publisher, profile: Profile, listing: MergedListing, *, provider: str | None, before: int
) -> PageJob:
    """Submit the listing's draft job (pinned to `provider`, or routed as the service's env says)."""
    run_id = f"review-{new_job_id()}"
    job = DraftJob(run_id=run_id, listing=listing, profile=profile, provider=provider)
    prepared = publisher.build(
        DRAFT,
        job,
        queue=QUEUES["draft"],
        key=draft_key(run_id, listing.id),
        job_id=draft_job_id(run_id, listing.id),
    )
    submitted = await publisher.publish(prepared)
    return PageJob(
        job_id=submitted.id, provider=provider or "", before=before, submitted_at=datetime.now(UTC)
    )


def newest_draft(detail: ListingDetail) -> int:
    """The id of the listing's newest draft (0: none)."""
    return max((d.id for d in detail.drafts.values()), default=0)


def job_view(job: PageJob, record: StatusRecord | None, detail: ListingDetail) -> JobView:
    """The job's state, from its ledger entry and the listing as the state of record has it now."""
    what = f"Re-draft with {job.provider}" if job.provider else "Draft"
    if newest_draft(detail) > job.before:
        needs = [d for d in detail.drafts.values() if d.status == "needs_review"]
        reason = f"needs review: {detail.review}" if needs and detail.review else ""
        return JobView(what=what, state="landed", reason=reason)
    if record is None:
        return JobView(what=what, state="submitted", pending=True)
    if record.state in ("dead", "cancelled"):
        return JobView(what=what, state=record.state, reason=record.error or str(record.dead_reason or ""))
    if record.state == "succeeded":
        return _succeeded(what, record)
    state = "retrying" if record.state == "failed" else record.state
    return JobView(what=what, state=state, reason=record.error or "", pending=True)


def _succeeded(what: str, record: StatusRecord) -> JobView:
    """A draft job that ended well: every provider failed (the draft stage's result says why), or
    its drafts are on their way through the export stage."""
    result: dict[str, Any] = record.result if isinstance(record.result, dict) else {}
    outcome = str(result.get("outcome", ""))
    if outcome in ("failed", "waiting"):
        return JobView(what=what, state=outcome, reason=str(result.get("reason", "")))
    return JobView(what=what, state="written", reason="waiting for the export to record it", pending=True)


async def ledger_record(
    publisher: Publisher, ledger: Ledger | None, job_id: str
) -> tuple[StatusRecord | None, Ledger]:
    """The job's ledger entry (and the ledger, opened on first use)."""
    if ledger is None:
        ledger = Ledger(await publisher.topology.status_kv(publisher.js))
    record, _ = await ledger.get(job_id)
    return record, ledger


__all__ = [
    "JobView",
    "PageJob",
    "configured_providers",
    "job_view",
    "ledger_record",
    "newest_draft",
    "submit",
]
