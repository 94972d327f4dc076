"""The person's decisions, read from the status history, and the fit weights learned from them.

```python
learned = learned_for(conn, profile)   # Learned, or None: fewer than 20 decisions (or reset)
fit = score(profile, listing, today, learned)
forget(conn, profile)                  # `jobsearch fit reset`: the decisions so far count no more
```
A **decision** is a listing whose status the person set (the tracker's read-back, `jobsearch
mark`, the review page: every `status_history` row not the pipeline's) to Applied, Screen,
Interview or Offer (wanted) or Dismissed (not for them). Rejected and Withdrawn are what came
after, not a verdict on the listing: one applied to and then rejected stays wanted, one only ever
Withdrawn is no decision. Set back to Saved or Drafted, it is no decision either (`label_of`).

The weights are learned (`jobsearch.fit.learn`) from each decided listing's components as the
profile scores it on the day of the decision, and kept in `fit_learning`, one row per person
(the profile's `[person] name`), with what they were learned from: the newest decision row and
the profile. `learned_for` learns again when either changed, so a later scoring uses every
decision made so far. `forget` records the newest status row at the reset: only decisions made
after it teach the score again.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import datetime

import msgspec
import structlog

from jobsearch.db import immediate
from jobsearch.fit.learn import MIN_DECISIONS, Example, Learned, learn
from jobsearch.fit.score import contributions
from jobsearch.listing import MergedListing, Salary
from jobsearch.profile import Profile
from jobsearch.store.clock import utcnow

log = structlog.get_logger("jobsearch.fit")

WANTED = frozenset({"Applied", "Screen", "Interview", "Offer"})
UNWANTED = frozenset({"Dismissed"})
UNDONE = frozenset({"Saved", "Drafted"})  # a decision taken back
_LEARNED = msgspec.json.Decoder(Learned)
_STRINGS = msgspec.json.Decoder(list[str])
_SALARY = msgspec.json.Decoder(Salary)
_ENCODE = msgspec.json.Encoder()


class Decision(msgspec.Struct, kw_only=True, frozen=True):
    """One listing the person decided on: wanted or not, and when they last said so."""

    listing_id: str
    wanted: bool
    at: datetime


class LearningState(msgspec.Struct, kw_only=True, frozen=True):
    """What `jobsearch fit show` prints: the weights in use, and the decisions counted."""

    person: str
    learned: Learned | None
    decisions: int  # decisions counted now (after the last reset)
    needed: int = MIN_DECISIONS
    reset_at: str | None = None


def label_of(statuses: Sequence[str]) -> bool | None:
    """The label of a listing whose person-set statuses were `statuses`, oldest first: True
    wanted, False dismissed, None no decision (see the module)."""
    label: bool | None = None
    for status in statuses:
        if status in WANTED:
            label = True
        elif status in UNWANTED:
            label = False
        elif status in UNDONE:
            label = None
    return label


def person_key(profile: Profile) -> str:
    """Whose decisions and weights: the profile's person, by name (case and spacing ignored)."""
    return " ".join(profile.person.name.split()).casefold()


def decisions(conn: sqlite3.Connection, *, after: int = 0) -> list[Decision]:
    """Every decision in the status history rows after id `after`, oldest listing first."""
    rows = conn.execute(
        "SELECT id, listing_id, status, changed_at FROM status_history"
        " WHERE source != 'pipeline' AND id > ? ORDER BY listing_id, id",
        (after,),
    ).fetchall()
    by_listing: dict[str, list[sqlite3.Row]] = {}
    for row in rows:
        by_listing.setdefault(row["listing_id"], []).append(row)
    out: list[Decision] = []
    for listing_id, history in by_listing.items():
        label = label_of([r["status"] for r in history])
        if label is None:
            continue
        deciding = [r for r in history if r["status"] in (WANTED if label else UNWANTED)][-1]
        out.append(
            Decision(listing_id=listing_id, wanted=label, at=datetime.fromisoformat(deciding["changed_at"]))
        )
    return sorted(out, key=lambda d: (d.at, d.listing_id))


def learned_for(conn: sqlite3.Connection, profile: Profile) -> Learned | None:
    """The weights learned from the person's decisions for `profile`, learned again first when a
    decision or the profile changed since they were stored; None with fewer than `MIN_DECISIONS`
    (or a file that holds no state of record yet). Writes inside the caller's transaction, or
    its own."""
    try:
        newest = _newest_decision_row(conn)
        row = conn.execute("SELECT * FROM fit_learning WHERE person = ?", (person_key(profile),)).fetchone()
    except sqlite3.OperationalError as exc:  # no state of record in this file (yet)
        if "no such table" in str(exc):
            return None
        raise
    reset_after = int(row["reset_after"]) if row is not None else 0
    fingerprint = f"{newest}|{reset_after}|{_profile_hash(profile)}"
    if row is not None and row["fingerprint"] == fingerprint:
        return _LEARNED.decode(row["learned"]) if row["learned"] else None
    learned = learn(_examples(conn, profile, decisions(conn, after=reset_after)))
    try:
        with _writing(conn):
            # A reset between the read above and here keeps its `reset_after`: the fingerprint
            # then differs, and the next call learns again from the decisions after it.
            conn.execute(
                "INSERT INTO fit_learning (person, learned, fingerprint, reset_after, learned_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (person) DO UPDATE SET learned = excluded.learned,"
                " fingerprint = excluded.fingerprint, learned_at = excluded.learned_at",
                (
                    person_key(profile),
                    _ENCODE.encode(learned).decode() if learned else None,
                    fingerprint,
                    reset_after,
                    utcnow(),
                ),
            )
    except sqlite3.OperationalError as exc:  # a read-only reader: use them, store them next time
        if "readonly" not in str(exc):
            raise
    if learned is not None:
        log.info(
            "fit.learned", decisions=learned.decisions, wanted=learned.wanted, multipliers=learned.multipliers
        )
    return learned


def forget(conn: sqlite3.Connection, profile: Profile) -> int:
    """Forget the weights learned for the profile's person; the decisions made so far count no
    more. Returns how many decisions were forgotten."""
    with _writing(conn):
        row = conn.execute(
            "SELECT reset_after FROM fit_learning WHERE person = ?", (person_key(profile),)
        ).fetchone()
        forgotten = len(decisions(conn, after=int(row["reset_after"]) if row else 0))
        conn.execute(
            "INSERT INTO fit_learning (person, learned, fingerprint, reset_after, learned_at, reset_at)"
            " VALUES (?, NULL, '', ?, NULL, ?) ON CONFLICT (person) DO UPDATE SET learned = NULL,"
            " fingerprint = '', reset_after = excluded.reset_after, learned_at = NULL,"
            " reset_at = excluded.reset_at",
            (person_key(profile), _newest_decision_row(conn), utcnow()),
        )
    return forgotten


def learning_state(conn: sqlite3.Connection, profile: Profile) -> LearningState:
    """The weights now in use for the profile (learned first if owed) and the decisions counted."""
    learned = learned_for(conn, profile)
    row = conn.execute(
        "SELECT reset_after, reset_at FROM fit_learning WHERE person = ?", (person_key(profile),)
    ).fetchone()
    counted = decisions(conn, after=int(row["reset_after"]) if row else 0)
    return LearningState(
        person=profile.person.name,
        learned=learned,
        decisions=len(counted),
        reset_at=row["reset_at"] if row else None,
    )


def _examples(conn: sqlite3.Connection, profile: Profile, decided: list[Decision]) -> list[Example]:
    examples: list[Example] = []
    for decision in decided:
        listing = _listing(conn, decision.listing_id)
        if listing is None:
            continue
        try:
            parts = contributions(profile, listing, decision.at.date())
        except Exception as exc:  # a fault of the score costs one example, never the learning
            log.warning(
                "fit.learn_skipped", listing=decision.listing_id, error=f"{type(exc).__name__}: {exc}"
            )
            continue
        examples.append(Example(parts=parts, wanted=decision.wanted))
    return examples


def _listing(conn: sqlite3.Connection, listing_id: str) -> MergedListing | None:
    """The listing as the state of record shows it: what the fit score reads."""
    row = conn.execute("SELECT * FROM listings WHERE id = ?", (listing_id,)).fetchone()
    if row is None:
        return None
    try:
        return MergedListing(
            id=row["id"],
            title=row["title"],
            company=row["company"],
            url=row["url"],
            locations=_STRINGS.decode(row["locations"]),
            remote=None if row["remote"] is None else bool(row["remote"]),
            employment_type=row["employment_type"],
            salary=_SALARY.decode(row["salary"]) if row["salary"] else None,
            posted_at=datetime.fromisoformat(row["posted_at"]).date() if row["posted_at"] else None,
            description=row["description"],
            department=row["department"],
            workplace=row["workplace"],
        )
    except (msgspec.ValidationError, ValueError) as exc:  # a row another version wrote oddly
        log.warning("fit.learn_skipped", listing=listing_id, error=str(exc))
        return None


def _newest_decision_row(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT max(id) AS newest FROM status_history WHERE source != 'pipeline'").fetchone()
    return int(row["newest"] or 0)


def _profile_hash(profile: Profile) -> str:
    scored = (profile.person, profile.search, profile.fit)
    return hashlib.sha256(_ENCODE.encode(scored)).hexdigest()[:16]


@contextmanager
def _writing(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """The caller's transaction when there is one, else a write transaction of our own."""
    with nullcontext(conn) if conn.in_transaction else immediate(conn) as tx:
        yield tx
