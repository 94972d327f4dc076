"""The pipeline's job types, their queues and payloads: the only contract between the stages.

```
jobsearch.search ─▶ jobsearch.source (one per source) ─▶ jobsearch.listing_batch (postings, by size)
   [jobsearch-fetch]        [jobsearch-fetch]          ╰─▶ jobsearch.board_read (a full read's end)
                                                               [jobsearch-dedupe]
 ─▶ jobsearch.export_batch (the new or changed listings the person keeps)  [jobsearch-export]
 ─▶ jobsearch.draft (one per new, matching listing) ─▶ jobsearch.export (listing + drafts)
        [jobsearch-draft]                                   [jobsearch-export]
 once the run has drained:
 jobsearch.draft_shortlist (the best listings by fit) ─▶ jobsearch.draft ... as above
        [jobsearch-dedupe]
 jobsearch.close_listings (what the boards took down) ─▶ jobsearch.listing_states (closed, stale)
        [jobsearch-dedupe]                                    [jobsearch-export]
 jobsearch.tracker (render tracker.xlsx; also `jobsearch export`)
        [jobsearch-export]
 after the summary, when the profile has a [digest]: the platform's email.send / webhook.call
        [jobsearch-digest]
 a schedule's firing (`jobsearch schedule add`): jobsearch.scheduled_run, one whole run as above
        [jobsearch-runs]
```
Postings travel in batches (up to `BATCH_POSTINGS`, and `BATCH_BYTES` of JSON): a job per posting
cost more in the platform's bookkeeping than dedupe's work on it. `jobsearch.listing` (one posting)
and `jobsearch.export` (one listing) stay, for other clients and for the drafts.
Each stage is its own service over its own queue (`jobsearch serve STAGE`). A stage's output is
the next stage's job, submitted with a key derived from its input and scoped to its run
(`run_key`), so a redelivered job submits nothing twice, while the next run reads every posting
again: whether a posting is new, changed or seen before is the database's call, never the
platform's duplicate window. Every payload carries the `run_id` of the search it belongs to, so
`jobsearch run` can follow it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import date, datetime
from typing import Annotated, Literal, TypeVar

import msgspec

from jobsearch.fit import Fit
from jobsearch.listing import Listing, MergedListing
from jobsearch.profile import Profile, Source

Stage = Literal["fetch", "dedupe", "draft", "export"]
STAGES: tuple[Stage, ...] = ("fetch", "dedupe", "draft", "export")

# One queue per stage: its own durable consumers, its own service.
QUEUES: dict[Stage, str] = {stage: f"jobsearch-{stage}" for stage in STAGES}

SEARCH = "jobsearch.search"
SOURCE = "jobsearch.source"
LISTING = "jobsearch.listing"
LISTING_BATCH = "jobsearch.listing_batch"
BOARD_READ = "jobsearch.board_read"
EXPORT_BATCH = "jobsearch.export_batch"
DRAFT = "jobsearch.draft"
EXPORT = "jobsearch.export"
TRACKER = "jobsearch.tracker"
CLOSE_LISTINGS = "jobsearch.close_listings"
LISTING_STATES = "jobsearch.listing_states"
DRAFT_SHORTLIST = "jobsearch.draft_shortlist"
SCHEDULED_RUN = "jobsearch.scheduled_run"

# Beside the stages: the runs that schedules fire (`jobsearch serve runs`), one at a time, and
# the digests runs send (`jobsearch serve digest`, on the queue `jobsearch.digest` names).
RUNS_QUEUE = "jobsearch-runs"
Service = Stage | Literal["runs", "digest"]
SERVICES: tuple[Service, ...] = (*STAGES, "runs", "digest")

RunId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
_KEY_LIMIT = 256  # the platform's idempotency keys (`Nats-Msg-Id`)


def run_key(run_id: str, key: str) -> str:
    """`key` scoped to one run (`<run_id>:<key>`), as an idempotency key: the platform's duplicate
    window keeps one run from submitting a job twice, and never hides a posting from the next run.

    A key too long for a `Nats-Msg-Id` is replaced by its digest.
    """
    scoped = f"{run_id}:{key}"
    if len(scoped) <= _KEY_LIMIT:
        return scoped
    return f"{run_id}:sha256-{hashlib.sha256(key.encode()).hexdigest()}"


class _Payload(msgspec.Struct, kw_only=True, frozen=True):
    run_id: RunId


class SearchJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.search`: read every source of the profile."""

    profile: Profile


class SourceJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.source`: read one board, submit one listing job per posting."""

    source: Source
    profile: Profile


class ListingJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.listing`: one fetched posting, for dedupe to merge, filter and pass on."""

    listing: Listing
    profile: Profile


class ListingBatchJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.listing_batch`: fetched postings of one source, for dedupe, with the profile once."""

    source: str
    listings: list[Listing]
    profile: Profile


class BoardReadJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.board_read`: one source was read in full and listed `listed` postings.

    Submitted by the source job after its listing jobs; dedupe records the read, and with the
    postings the run's listing jobs recorded for that source, which postings the board still
    lists. A read that failed or stopped early submits none, so it records nothing.
    """

    source: str
    board: str
    listed: int


Step = Literal["cover_letter", "connection_note"]
STEPS: tuple[Step, ...] = ("cover_letter", "connection_note")


class DraftJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.draft`: write the drafts for one new, matching listing.

    `provider` pins every step to one provider (the review page's "re-draft with"); otherwise the
    service's environment routes each step.
    """

    listing: MergedListing
    profile: Profile
    provider: str | None = None
    steps: list[Step] = msgspec.field(default_factory=lambda: list(STEPS))


def draft_key(run_id: str, listing_id: str) -> str:
    """The draft job's idempotency key: one draft job per merged listing and run."""
    return run_key(run_id, f"draft:{listing_id}")


def draft_job_id(run_id: str, listing_id: str) -> str:
    """The draft job's id, `draft-<listing id>-<run id>`: the ledger runs it at most once even past
    the stream's duplicate window, and a later run (the repair of a failed draft) gets its own."""
    return f"draft-{listing_id}-{run_id}"


def listing_of_draft_job(job_id: str) -> str | None:
    """The listing a draft job id names (`draft_job_id`), or None for another id."""
    if not job_id.startswith("draft-"):
        return None
    listing_id = job_id.removeprefix("draft-").split("-", 1)[0]
    return listing_id or None


class Check(msgspec.Struct, kw_only=True, frozen=True):
    """One deterministic check of a draft's text and its outcome."""

    name: str
    passed: bool
    detail: str = ""


class Draft(msgspec.Struct, kw_only=True, frozen=True):
    """One step's text for one listing, with where it came from and what it cost."""

    step: Step
    text: str
    provider: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    status: Literal["ok", "needs_review"] = "ok"
    checks: list[Check] = []
    created_at: datetime | None = None
    # The providers of the step's chain that failed before `provider` answered, and why
    # ("openai: HTTP 500: ..."): a fallback that was used is reported, never silent.
    fell_over: list[str] = []


class DraftIssue(msgspec.Struct, kw_only=True, frozen=True):
    """Why a listing has no draft yet: its drafting `failed` (every provider of the chain, on the
    job's last attempt or for good) or is `waiting` (the providers asked to be called again later
    than the run waits). The next run drafts it again; so does `jobsearch draft --failed`."""

    kind: Literal["failed", "waiting"]
    reason: str  # in words, for the Review cell: "openai: HTTP 500: overloaded (3 requests)"
    attempts: int = 1  # the draft job's attempts made
    retry_at: datetime | None = None  # when a waiting provider said it can be asked again


class ExportJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.export`: record a listing and its drafts in the state of record (SQLite)."""

    listing: MergedListing
    drafts: list[Draft] = []
    issue: DraftIssue | None = None  # no drafts: why (recorded for the Review cell and the repair)


class ExportBatchJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.export_batch`: listings to record as they now stand (new, merged into, updated),
    with their fit for the run's profile by listing id."""

    listings: list[MergedListing]
    fits: dict[str, Fit] = {}


class CloseListingsJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.close_listings`: once the run has drained, mark the postings its whole reads no
    longer list, and the listings that closed, went stale or reopened (`jobsearch.dedupe.closing`)."""

    stale_after_days: Annotated[int, msgspec.Meta(ge=1)] = 30


class ListingState(msgspec.Struct, kw_only=True, frozen=True):
    """A listing's closed and stale dates (None: open, or seen recently)."""

    id: str
    closed_at: date | None = None  # every posting of it was taken down; the day the last one went
    stale_at: date | None = None  # only aggregators carried it, and none for `stale_after_days`


class ListingStatesJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.listing_states`: listings whose closed or stale date changed in the run."""

    states: list[ListingState]


T = TypeVar("T")
BATCH_POSTINGS = 100
BATCH_BYTES = 160 * 1024  # of JSON, under the platform's 256 KiB a job (the envelope, the profile)
_SIZE = msgspec.json.Encoder()


def in_batches(items: Sequence[T], *, most: int = BATCH_POSTINGS, limit: int = BATCH_BYTES) -> list[list[T]]:
    """`items` cut into batches of at most `most` items and about `limit` bytes of JSON each (an
    item larger than `limit` travels alone), in order."""
    batches: list[list[T]] = []
    batch: list[T] = []
    size = 0
    for item in items:
        item_size = len(_SIZE.encode(item))
        if batch and (len(batch) >= most or size + item_size > limit):
            batches.append(batch)
            batch, size = [], 0
        batch.append(item)
        size += item_size
    if batch:
        batches.append(batch)
    return batches


def batch_key(run_id: str, kind: str, parts: Sequence[str]) -> str:
    """A batch job's idempotency key, from what it carries: the same batch again is a duplicate,
    a batch cut otherwise (after a redelivery) is not."""
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]
    return run_key(run_id, f"{kind}:{digest}")


class DraftShortlistJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.draft_shortlist`: once a run's dedupe has drained, submit the draft jobs of the
    best listings owed one (`[drafting] min_fit`, `max_per_run`), keyed by the run."""

    profile: Profile


class TrackerJob(_Payload, kw_only=True, frozen=True):
    """`jobsearch.tracker`: render the tracker from the state of record (after reading its edits).

    `jobsearch run` submits one when its pipeline has drained, keyed `tracker:<run_id>`.
    """


class ScheduledRunJob(msgspec.Struct, kw_only=True, frozen=True):
    """`jobsearch.scheduled_run`: one whole run of the profile at `profile_path`, fired by the
    schedule `schedule` (`jobsearch schedule add`); the run's id comes from the firing.

    The profile is read when the run starts, so an edit made since the schedule was added counts;
    a profile that has become invalid is recorded as a failed run and told through the digest.
    """

    schedule: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
    profile_path: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
