"""The fit judgements in the pipeline's SQLite file: one row per listing revision, profile and
provider chain, so that a listing a later run shortlists again is not paid for twice.

```
fit_judgements: (listing_id, revision, profile_key, chain) -> outcome, score, rationale, reason,
                provider, model, tokens, cost, run_id, at
```
Whichever stage judges (dedupe's shortlist) writes it inside its own transaction; the state of
record creates it too (`jobsearch.store.schema`, version 7), so readers find it in any file. Only
a `judged` row is reused; a `dropped` or `failed` one is asked again by the next shortlist.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from jobsearch.profile import Profile

if TYPE_CHECKING:  # the judge imports the provider layer; the state of record needs only the table
    from jobsearch.fit.judge import Verdict

TABLE = """
CREATE TABLE IF NOT EXISTS fit_judgements ( -- version 7: a model's judgement of a listing's fit
    listing_id   TEXT NOT NULL,             -- MergedListing.id (dedupe's shortlist judges it)
    revision     INTEGER NOT NULL,          -- the listing as it was judged
    profile_key  TEXT NOT NULL,             -- the profile's person and search (`profile_key`)
    chain        TEXT NOT NULL,             -- FIT_PROVIDER/FIT_MODEL and the fallbacks asked
    outcome      TEXT NOT NULL,             -- judged | dropped (failed its check) | failed (no answer)
    score        INTEGER,                   -- the model's 0-100
    rationale    TEXT NOT NULL DEFAULT '',
    reason       TEXT NOT NULL DEFAULT '',  -- why dropped or failed
    provider     TEXT NOT NULL DEFAULT '',  -- who answered
    model        TEXT NOT NULL DEFAULT '',
    tokens_in    INTEGER NOT NULL DEFAULT 0,
    tokens_out   INTEGER NOT NULL DEFAULT 0,
    cost_usd     REAL NOT NULL DEFAULT 0,
    run_id       TEXT NOT NULL,
    at           TEXT NOT NULL,
    PRIMARY KEY (listing_id, revision, profile_key, chain)
);
"""


class Stored(msgspec.Struct, kw_only=True, frozen=True):
    """A judgement an earlier run stored that passed its check."""

    score: int
    rationale: str


def profile_key(profile: Profile) -> str:
    """A digest of what a judgement reads of the profile: the person and their search."""
    raw = msgspec.json.encode([profile.person, profile.search])
    return hashlib.sha256(raw).hexdigest()[:24]


def _ensure(db: sqlite3.Connection) -> None:
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fit_judgements'").fetchone():
        return
    db.execute(TABLE)  # one statement: it joins the caller's transaction


def stored(
    db: sqlite3.Connection, listings: Iterable[tuple[str, int]], profile: str, chain: str
) -> dict[str, Stored]:
    """The `judged` rows for these (listing id, revision) pairs, by listing id."""
    _ensure(db)
    found: dict[str, Stored] = {}
    for listing_id, revision in listings:
        row = db.execute(
            "SELECT score, rationale FROM fit_judgements WHERE listing_id = ? AND revision = ?"
            " AND profile_key = ? AND chain = ? AND outcome = 'judged' AND score IS NOT NULL",
            (listing_id, revision, profile, chain),
        ).fetchone()
        if row is not None:
            found[listing_id] = Stored(score=int(row[0]), rationale=str(row[1]))
    return found


def record(
    db: sqlite3.Connection, verdicts: Iterable[Verdict], *, profile: str, chain: str, run_id: str
) -> None:
    """Store this run's verdicts (a listing judged again replaces its row)."""
    _ensure(db)
    at = datetime.now(UTC).isoformat(timespec="seconds")
    db.executemany(
        "INSERT OR REPLACE INTO fit_judgements (listing_id, revision, profile_key, chain, outcome,"
        " score, rationale, reason, provider, model, tokens_in, tokens_out, cost_usd, run_id, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (v.listing_id, v.revision, profile, chain, v.outcome, v.score, v.rationale, v.reason,
             v.provider, v.model, v.tokens_in, v.tokens_out, v.cost_usd, run_id, at)
            for v in verdicts
        ],
    )  # fmt: skip
