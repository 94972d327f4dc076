"""The lines `jobsearch run` (and `replay`, `runs RUN`) prints at the end of a run, from its
`RunSummary`: what it found, drafted and cost, what failed, where the tracker is.

What the summary holds, and how a run's numbers become it, is `jobsearch.run.summary`'s; this
module only words it.
"""

from __future__ import annotations

from jobsearch.fit.judge import Judging
from jobsearch.run.summary import OK, EarlierRun, RunSummary

_SHOWN_FAILURES = 10


def format_summary(summary: RunSummary) -> list[str]:
    """The lines printed at the end of a run."""
    verdict = "done" if summary.exit_code == OK else "finished with failures"
    lines = [f"jobsearch {summary.command} {summary.run_id}: {verdict} in {summary.seconds:.1f} s"]
    failed = f", {len(summary.sources_failed)} failed" if summary.sources_failed else ", 0 failed"
    lines.append(f"  sources    {summary.sources_ok} ok{failed}")
    lines.extend(f"               failed: {line}" for line in summary.sources_failed)
    lines.extend(f"               {line}" for line in summary.source_skips)
    lines.append(listings_line(summary))
    if summary.listings_closed or summary.listings_stale or summary.listings_reopened:
        lines.append(closed_line(summary))
    lines.extend(drafts_lines(summary))
    lines.extend(judging_lines(summary.fit_judging))
    before = summary.dead_letters_before
    letters = _plural(before, "dead letter")
    waiting = f"; {before} {letters} from before this run (jetjobs dlq list)" if before else ""
    lines.append(f"  failed     {summary.failed_jobs} jobs{waiting}")
    lines.extend(_failure_lines(summary.failures))
    for earlier in summary.earlier:
        lines.append(earlier_line(earlier))
        lines.extend(_failure_lines(earlier.failures))
    if summary.service_error:
        lines.append(f"  service    {summary.service_error}")
    if summary.tracker_error:
        lines.append(f"  tracker    NOT written: {summary.tracker_error}")
        lines.append("             everything is in the database; `jobsearch export` writes it later")
    elif summary.tracker:
        lines.append(f"  tracker    {summary.tracker} ({summary.tracker_rows} listings)")
    if summary.digest:
        lines.append(f"  digest     {summary.digest}")
    if summary.digest_error:
        lines.append(
            f"  digest     failed: {summary.digest_error} (see `jobsearch runs`; the run is not repeated)"
        )
    return lines


def earlier_line(run: EarlierRun) -> str:
    """`earlier    finished for run R (interrupted): 1,985 listings, 3,970 drafts; ...`: what the
    run's services finished for an earlier run's jobs."""
    ended = {"running": "still running"}.get(run.outcome or "", run.outcome)
    parts = [f"{run.listings:,} listings, {run.drafts:,} drafts"]
    if run.sources:
        parts.append(f"{run.fetched:,} postings from {run.sources} {_plural(run.sources, 'source')}")
    if run.postings:
        parts.append(f"{run.postings:,} postings deduplicated")
    if run.failures:
        parts.append(f"{len(run.failures)} failed")
    return f"  earlier    finished for run {run.run_id}{f' ({ended})' if ended else ''}: " + "; ".join(parts)


def _failure_lines(failures: list[str]) -> list[str]:
    lines = [f"               {line}" for line in failures[:_SHOWN_FAILURES]]
    if len(failures) > _SHOWN_FAILURES:
        lines.append(f"               ... and {len(failures) - _SHOWN_FAILURES} more (jetjobs dlq list)")
    return lines


def _plural(n: int, word: str) -> str:
    return word if n == 1 else f"{word}s"


def drafts_lines(summary: RunSummary) -> list[str]:
    """The drafts a run wrote, by provider with how many need review; the fallbacks used; the
    listings it could not draft and why.

    ```
      drafts     24 for 12 listings (offline/template-v2 24); 0 tokens, $0.0000; 3 need review (offline 3)
                 24 by offline after openai failed: HTTP 500: overloaded (3 requests)
                 not drafted: 6 listings, failed 6; the next run drafts them again
                   failed: openai: HTTP 500: overloaded (3 requests) (6)
    ```
    """
    lines = []
    if summary.drafts:
        by = ", ".join(f"{u.provider}/{u.model} {u.drafts}" for u in summary.drafts)
        drafts = sum(u.drafts for u in summary.drafts)
        listings = f" for {summary.drafted_listings} listings" if summary.drafted_listings else ""
        line = f"  drafts     {drafts}{listings} ({by}); {summary.tokens:,} tokens, ${summary.cost_usd:.4f}"
        if summary.needs_review:
            review = ", ".join(f"{u.provider} {u.needs_review}" for u in summary.drafts if u.needs_review)
            line += f"; {summary.needs_review} need review ({review})"
        lines.append(line)
    else:
        lines.append("  drafts     0")
    lines.extend(f"             {f.drafts} by {f.provider} after {f.after}" for f in summary.fallbacks)
    if summary.below_bar or summary.held_back:
        lines.append(
            f"             chose the best {summary.shortlisted} by fit; not drafted: {summary.below_bar} "
            f"below the fit bar, {summary.held_back} held back by the cap "
            "(`jobsearch draft LISTING_ID` drafts one)"
        )
    if summary.drafts_owed:
        lines.append(
            f"             {summary.drafts_owed} listings owed a draft by earlier runs were drafted again"
        )
    not_drafted = sum(summary.draft_issues.values())
    if not_drafted:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(summary.draft_issues.items()))
        lines.append(
            f"             not drafted: {not_drafted} listings, {kinds}; the next run drafts them again"
        )
        lines.extend(f"               {why} ({n})" for why, n in list(summary.issue_reasons.items())[:5])
    return lines


def judging_lines(judging: Judging | None) -> list[str]:
    """The fit judgement's line, and why some listings kept their local fit.

    ```
      fit        openai/gpt-4o-mini judged the best 5 by local fit: 4 moved, 1 dropped, 0 failed; 6,900 tokens, $0.0017
                 kept their local fit: 1 dropped (its rationale cited what neither the listing nor the profile says)
                   the rationale quotes 'ten years of COBOL at NASA' (1)
    ```
    """  # noqa: E501 (the example is the line as printed)
    if judging is None:
        return []
    reused = f" ({judging.reused} judged by an earlier run)" if judging.reused else ""
    tokens = judging.tokens_in + judging.tokens_out
    moved = judging.judged + judging.reused
    lines = [
        f"  fit        {judging.by} judged the best {judging.top} by local fit: {moved} moved{reused}, "
        f"{judging.dropped} dropped, {judging.failed} failed; {tokens:,} tokens, ${judging.cost_usd:.4f}"
    ]
    kept = []
    if judging.dropped:
        kept.append(
            f"{judging.dropped} dropped (its rationale cited what neither the listing nor the profile says)"
        )
    if judging.failed:
        kept.append(f"{judging.failed} failed (no provider answered)")
    if kept:
        lines.append(f"             kept their local fit: {'; '.join(kept)}")
    lines.extend(f"               {why} ({n})" for why, n in list(judging.reasons.items())[:3])
    return lines


def timings_lines(summary: RunSummary) -> list[str]:
    """`jobsearch run --timings`: each job type's count, busy time and rate (the ledger's clock)."""
    lines = []
    for job_type, (count, seconds) in summary.timings.items():
        rate = f", {count / seconds:,.0f}/s" if seconds > 0 else ""
        lines.append(f"  timing     {job_type:<22} {count:>7,} jobs in {seconds:6.2f} s{rate}")
    return lines


def closed_line(summary: RunSummary) -> str:
    """`closed     3 taken down by their boards; 1 stale; 1 listed again`."""
    parts = [f"{summary.listings_closed} taken down by their boards"]
    if summary.listings_stale:
        parts.append(f"{summary.listings_stale} stale (no board carried it lately)")
    if summary.listings_reopened:
        parts.append(f"{summary.listings_reopened} listed again")
    return "  closed     " + "; ".join(parts)


def listings_line(summary: RunSummary) -> str:
    """`listings   seen 40 = new 6 + updated 0 + merged 4 + unchanged 0 + filtered 30 (terms 18, ...)`.

    The parts add up to what the boards gave; a posting not accounted for (its job still queued
    when the run was stopped) is named as such, so the sum never silently fails.
    """
    s = summary
    parts = [
        f"new {s.listings_new}",
        f"updated {s.listings_updated}",
        f"merged {s.listings_merged}",
        f"unchanged {s.listings_unchanged}",
        f"filtered {s.listings_filtered}",
    ]
    if s.listings_rejected:
        parts.append(f"rejected {s.listings_rejected}")
    accounted = (
        s.listings_new + s.listings_updated + s.listings_merged + s.listings_unchanged
        + s.listings_filtered + s.listings_rejected
    )  # fmt: skip
    if accounted != s.listings_seen:
        parts.append(f"not recorded {s.listings_seen - accounted}")
    line = f"  listings   seen {s.listings_seen} = " + " + ".join(parts)
    if s.filtered_reasons:
        line += " (" + ", ".join(f"{k} {n}" for k, n in sorted(s.filtered_reasons.items())) + ")"
    return line
