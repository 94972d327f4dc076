"""What one run added to the state of record: listings, drafts by provider (with their cost, how
many need review, the fallbacks used), and the listings it could not draft."""

from __future__ import annotations

import sqlite3
from collections import Counter

import msgspec

from jobsearch.store.records import Fallback, ProviderUsage, RunNumbers

_STRINGS = msgspec.json.Decoder(list[str])


def run_numbers(conn: sqlite3.Connection, run_id: str, *, drafts_since: str | None = None) -> RunNumbers:
    """What a run added: new and updated listings, drafts by provider with tokens and cost.

    Drafts count by the run id their jobs carry; with `drafts_since` (an ISO time), by when
    they were recorded instead (a replay re-drafts jobs that carry their first run's id).
    """
    new = conn.execute("SELECT count(*) FROM listings WHERE first_run_id = ?", (run_id,)).fetchone()[0]
    updated = conn.execute(
        "SELECT count(*) FROM listings WHERE last_run_id = ? AND first_run_id != ?", (run_id, run_id)
    ).fetchone()[0]
    which, value = ("recorded_at >= ?", drafts_since) if drafts_since else ("run_id = ?", run_id)
    usage = [
        ProviderUsage(
            provider=row["provider"],
            model=row["model"],
            drafts=row["n"],
            tokens_in=row["tin"],
            tokens_out=row["tout"],
            cost_usd=row["cost"],
            needs_review=row["review"],
        )
        for row in conn.execute(
            "SELECT provider, model, count(*) AS n, sum(tokens_in) AS tin, sum(tokens_out) AS tout,"
            " sum(cost_usd) AS cost, sum(status = 'needs_review') AS review"
            f" FROM drafts WHERE origin = 'pipeline' AND {which} GROUP BY provider, model"
            " ORDER BY provider, model",
            (value,),
        )
    ]
    drafted = conn.execute(
        f"SELECT count(DISTINCT listing_id) FROM drafts WHERE origin = 'pipeline' AND {which}", (value,)
    ).fetchone()[0]
    fallbacks: dict[str, Counter[str]] = {}
    for row in conn.execute(
        f"SELECT provider, fell_over FROM drafts WHERE origin = 'pipeline' AND {which} AND fell_over != '[]'",
        (value,),
    ):
        failed = _STRINGS.decode(row["fell_over"])
        fallbacks.setdefault(row["provider"], Counter())["; ".join(failed)] += 1
    issues: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for row in conn.execute("SELECT kind, reason FROM draft_issues WHERE run_id = ?", (run_id,)):
        issues[row["kind"]] += 1
        reasons[f"{row['kind']}: {row['reason']}"] += 1
    return RunNumbers(
        listings_new=new,
        listings_updated=updated,
        drafts=usage,
        needs_review=sum(u.needs_review for u in usage),
        drafted_listings=drafted,
        fallbacks=[
            Fallback(provider=provider, drafts=sum(why.values()), after=why.most_common(1)[0][0])
            for provider, why in sorted(fallbacks.items())
        ],
        draft_issues=dict(issues),
        issue_reasons=dict(reasons.most_common()),
    )
