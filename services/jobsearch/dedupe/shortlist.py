"""Which listings a run drafts: once dedupe has drained, the best `max_per_run` by fit at or above
`min_fit` (the profile's `[drafting]`), best first; the others stay owed a draft, ranked and shown.

```
dedupe_listings: state pending, draft owed ─▶ (FIT_PROVIDER set: the best FIT_TOP by local fit
  judged by a model, `jobsearch.fit.judge`; a judgement that passes its check moves the fit)
  ─┬─ fit < min_fit ─▶ below the bar (kept, not drafted)
   ├─ best max_per_run ─▶ a `jobsearch.draft` job each
   └─ the rest ─▶ held back (a later run may draft them)
```
Only listings the person has not moved past `Saved` and that are still open are drafted (the
`listings` table of the same file, which the export stage writes). Drafts owed because drafting
failed are the run owner's, submitted before the search, and do not count toward the cap.

A judged fit goes to the state of record (an export job: the tracker's Fit and Why, the review
page) and stays in `fit_judgements`; dedupe's own `fit` stays the local score, so a later run's
reading of the same posting does not undo the judgement, and a later shortlist reuses it.
"""

from __future__ import annotations

import sqlite3

import msgspec

from jobsearch.batch import BatchWriter
from jobsearch.fit import Fit, Reason
from jobsearch.fit import judge_store as judgements
from jobsearch.fit.judge import Judge, Judging, judged_fit
from jobsearch.jobs import DraftShortlistJob, ExportBatchJob, batch_key, in_batches
from jobsearch.listing import MergedListing
from jobsearch.profile import Drafting

_LISTING = msgspec.json.Decoder(MergedListing)
_REASONS = msgspec.json.Decoder(list[Reason])


class Candidate(msgspec.Struct, kw_only=True, frozen=True):
    """A listing owed a draft, with its owner posting and its local fit."""

    listing: MergedListing
    owner: str
    fit: Fit | None


class Shortlist(msgspec.Struct, kw_only=True, frozen=True):
    """A run's drafting choice: the listings to draft (with their owner posting), best first; and,
    with a judge, what it did and the fits it moved (by listing id)."""

    chosen: list[tuple[MergedListing, str]]
    below_bar: int
    held_back: int
    judging: Judging | None = None
    judged: dict[str, tuple[MergedListing, Fit]] = {}

    def exports(self, run_id: str) -> list[tuple[ExportBatchJob, str]]:
        """The export jobs (with their keys) that give the state of record the judged fits."""
        items = sorted(self.judged.values(), key=lambda item: item[0].id)
        jobs = []
        for batch in in_batches([listing for listing, _ in items]):
            fits = {listing.id: self.judged[listing.id][1] for listing in batch}
            parts = [f"{m.id}@{m.revision}:{fits[m.id].score}" for m in batch]
            jobs.append(
                (ExportBatchJob(run_id=run_id, listings=batch, fits=fits), batch_key(run_id, "judged", parts))
            )
        return jobs


def candidates(db: sqlite3.Connection) -> list[Candidate]:
    """The listings owed a draft that may be drafted, best local fit first (ties: newest)."""
    shown = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'listings'").fetchone()
    join, still_open = (_SHOWN, _OPEN) if shown else ("", "")  # no export stage has opened the file
    rows = db.execute(
        "SELECT d.data, d.draft_owner, d.fit, d.fit_reasons FROM dedupe_listings d"
        f" {join} WHERE d.state = 'pending' AND d.draft_owner IS NOT NULL {still_open}"
        " ORDER BY coalesce(d.fit, -1) DESC, d.first_seen DESC, d.id"
    ).fetchall()
    return [
        Candidate(
            listing=_LISTING.decode(row["data"]),
            owner=str(row["draft_owner"]),
            fit=None
            if row["fit"] is None
            else Fit(
                score=int(row["fit"]),
                reasons=_REASONS.decode(row["fit_reasons"]) if row["fit_reasons"] else [],
            ),
        )
        for row in rows
    ]


def choose(owed: list[Candidate], drafting: Drafting, judged: dict[str, Fit] | None = None) -> Shortlist:
    """The best of `owed` by fit (a judged fit where there is one), cut by the bar and the cap."""
    judged = judged or {}

    def fit_of(candidate: Candidate) -> int | None:
        fit = judged.get(candidate.listing.id, candidate.fit)
        return None if fit is None else fit.score

    ranked = sorted(
        owed, key=lambda c: -(s if (s := fit_of(c)) is not None else -1)
    )  # stable: ties keep their order
    above = [c for c in ranked if (s := fit_of(c)) is None or s >= drafting.min_fit]
    chosen = above[: drafting.max_per_run]
    return Shortlist(
        chosen=[(c.listing, c.owner) for c in chosen],
        below_bar=len(ranked) - len(above),
        held_back=len(above) - len(chosen),
    )


def shortlist(db: sqlite3.Connection, drafting: Drafting) -> Shortlist:
    """The listings owed a draft, cut by the bar and the cap, by local fit (see the module)."""
    return choose(candidates(db), drafting)


async def judged_shortlist(writer: BatchWriter, job: DraftShortlistJob, judge: Judge | None) -> Shortlist:
    """The run's shortlist; with a `judge`, its best `judge.top` by local fit judged first (stored
    judgements reused, the new ones stored), then chosen by the judged fit. Never fails for the
    judgement: a listing no provider judged keeps its local fit."""
    owed = await writer.run_job(candidates)
    drafting = job.profile.drafting
    if judge is None:
        return choose(owed, drafting)
    top = [c for c in owed if c.fit is not None][: judge.top]
    key, chain = judgements.profile_key(job.profile), judge.settings.chain_key
    pairs = [(c.listing.id, c.listing.revision) for c in top]
    reused = await writer.run_job(lambda db: judgements.stored(db, pairs, key, chain))
    asked = [(c.listing, c.fit) for c in top if c.listing.id not in reused and c.fit is not None]
    verdicts = await judge.judge_all(job.profile, asked)
    if verdicts:
        await writer.run_job(
            lambda db: judgements.record(db, verdicts, profile=key, chain=chain, run_id=job.run_id)
        )
    judging = Judging(by=chain, top=len(top))
    judging.count(verdicts, reused=len(reused))
    moved: dict[str, tuple[MergedListing, Fit]] = {}
    for candidate in top:
        assert candidate.fit is not None  # `top` holds only scored listings
        stored = reused.get(candidate.listing.id)
        verdict = next((v for v in verdicts if v.listing_id == candidate.listing.id), None)
        if stored is not None:
            moved[candidate.listing.id] = (
                candidate.listing,
                judged_fit(candidate.fit, stored.score, stored.rationale),
            )
        elif verdict is not None and verdict.outcome == "judged" and verdict.score is not None:
            fit = judged_fit(candidate.fit, verdict.score, verdict.rationale)
            moved[candidate.listing.id] = (candidate.listing, fit)
    chosen = choose(owed, drafting, {listing_id: fit for listing_id, (_, fit) in moved.items()})
    return msgspec.structs.replace(chosen, judging=judging, judged=moved)


# The person's status and the board's closing live in `listings` (the export stage's table in the
# same file); a listing it does not show yet (its export still queued) counts as Saved and open.
_SHOWN = "LEFT JOIN listings l ON l.id = d.id"
_OPEN = "AND coalesce(l.status, 'Saved') = 'Saved' AND l.closed_at IS NULL AND l.stale_at IS NULL"
