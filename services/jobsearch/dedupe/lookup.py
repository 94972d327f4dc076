"""Where the seen-set looks for the listing a new posting belongs to: by index, never by scan.

1. `exact`: a listing with one of the posting's canonical URLs (its own, or a board link in its
   text), if the titles agree.
2. `fuzzy`: the listings of its company (and of an employer an agency's copy names) that share a
   block key (`match.block_keys`: level and a distinctive title word), and those of a company
   whose key begins like one of these (at least `match.RELATED_COMPANY` letters): compared by
   `match.best_match` after the cheap `match.screen`.

When the texts decide, the 4-word runs shared by the company's other listings are boilerplate,
not evidence (`Boilerplate`): a bounded sample of the company's listings, read only then, so the
cost per posting does not grow with the store or the company.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

import msgspec

from jobsearch.dedupe import match
from jobsearch.dedupe.posting import Posting
from jobsearch.reading import normalise

BOILERPLATE_SAMPLE = 8  # listings of a company read to tell its boilerplate from a job's own text

_FEATURES = msgspec.json.Decoder(match.Features)


class Found(NamedTuple):
    """The listing a posting belongs to, how it was found (`url`, `fuzzy`, `employer`) and why."""

    listing_id: str
    how: str
    verdict: match.Verdict


def exact(db: sqlite3.Connection, posting: Posting) -> Found | None:
    """A merged listing with one of this posting's canonical URLs (and a title that agrees)."""
    for url in posting.urls:
        row = db.execute(
            "SELECT u.listing_id, l.features FROM dedupe_urls u "
            "JOIN dedupe_listings l ON l.id = u.listing_id WHERE u.url = ?",
            (url,),
        ).fetchone()
        if row is not None and match.title_agrees(posting.features, _FEATURES.decode(row["features"])):
            return Found(
                row["listing_id"], "url", match.Verdict(same=True, reason=f"the same posting URL {url}")
            )
    return None


def fuzzy(db: sqlite3.Connection, posting: Posting) -> Found | None:
    """The best fuzzy match among the listings of the posting's company (or one it names, or one
    whose name begins alike) that share a block key."""
    keys = posting.company_keys
    if not keys:
        return None
    own = keys[0]
    tokens = match.block_keys(posting.features)
    in_tokens = f"t.token IN ({', '.join('?' * len(tokens))})"
    rows = db.execute(
        "SELECT DISTINCT t.listing_id, t.company_key, l.features FROM dedupe_title_tokens t"
        " JOIN dedupe_listings l ON l.id = t.listing_id"
        f" WHERE t.company_key IN ({', '.join('?' * len(keys))}) AND {in_tokens}",
        (*keys, *tokens),
    ).fetchall()
    block: dict[str, str] = {}
    features: dict[str, bytes] = {}
    companies: dict[str, str] = {}
    for r in rows:
        if r["company_key"] == own or r["listing_id"] not in block:
            block[r["listing_id"]] = "fuzzy" if r["company_key"] == own else "employer"
            companies[r["listing_id"]] = r["company_key"]
        features[r["listing_id"]] = r["features"]
    related: set[str] = set()
    for r in _related(db, keys, tokens):
        if r["listing_id"] not in block:
            related.add(r["listing_id"])
            features[r["listing_id"]] = r["features"]
            companies.setdefault(r["listing_id"], r["company_key"])
    candidates = _screened(db, posting, features)
    if not candidates:
        return None
    new = posting.features
    strict = frozenset(
        listing_id
        for listing_id, old in candidates
        if listing_id in related and not _same_company(posting, companies[listing_id], old)
    )
    boilerplate = Boilerplate(db, keys, companies)
    best = match.best_match(new, candidates, strict=strict, boilerplate=boilerplate)
    if best is None:
        return None
    return Found(best[0], block.get(best[0], "fuzzy"), best[1])


def _same_company(posting: Posting, found_under: str, old: match.Features) -> bool:
    """A related candidate (found under the key `found_under`) is of the posting's own company."""
    old_slug = old.slug and found_under == old.company
    own = posting.company_keys[0]
    return any(
        match.same_company(key, posting.features.slug and key == own, found_under, old_slug)
        for key in posting.company_keys
    )


def _related(db: sqlite3.Connection, keys: list[str], tokens: list[str]) -> list[sqlite3.Row]:
    """The block's listings of companies whose key begins like one of `keys`, or that one of
    `keys` begins like ("Hexaplane" / "Hexaplane Software"): ranges and prefixes of the index."""
    clauses: list[str] = []
    values: list[str] = []
    for key in keys:
        if len(key) < match.RELATED_COMPANY:
            continue
        prefixes = [key[:n] for n in range(match.RELATED_COMPANY, len(key))]
        in_prefixes = f"t.company_key IN ({', '.join('?' * len(prefixes))})"
        clauses.append(f"(t.company_key > ? AND t.company_key < ?) OR {in_prefixes}")
        values += [key, key + "\U0010ffff", *prefixes]
    if not clauses:
        return []
    return db.execute(
        "SELECT DISTINCT t.listing_id, t.company_key, l.features FROM dedupe_title_tokens t"
        " JOIN dedupe_listings l ON l.id = t.listing_id"
        f" WHERE ({' OR '.join(clauses)}) AND t.token IN ({', '.join('?' * len(tokens))})",
        (*values, *tokens),
    ).fetchall()


def _screened(
    db: sqlite3.Connection, posting: Posting, features: dict[str, bytes]
) -> list[tuple[str, match.Features]]:
    """The candidates that pass the cheap checks, with their descriptions loaded."""
    passed = {}
    for listing_id, raw in features.items():
        old = _FEATURES.decode(raw)
        if match.screen(posting.features, old) is None:
            passed[listing_id] = old
    if not passed:
        return []
    rows = db.execute(
        f"SELECT id, words FROM dedupe_listings WHERE id IN ({', '.join('?' * len(passed))})",
        list(passed),
    )
    words = {r["id"]: r["words"] for r in rows}
    return [
        (listing_id, msgspec.structs.replace(old, description=words.get(listing_id, "")))
        for listing_id, old in passed.items()
    ]


class Boilerplate:
    """The 4-word runs a company's listings share: its About, benefits and equal-opportunity text.

    Called with a candidate's id: the runs found in a sample of the company's other listings (of
    the posting's company keys and the candidate's), which are not evidence that the posting and
    the candidate are one job. Read lazily, once per company, only when the texts decide.
    """

    def __init__(self, db: sqlite3.Connection, keys: list[str], companies: dict[str, str]) -> None:
        self.db = db
        self.keys = keys
        self.companies = companies  # candidate id: the company key it was found under
        self._texts: dict[str, list[tuple[str, set[normalise.Shingle]]]] = {}

    def __call__(self, candidate_id: str) -> frozenset[normalise.Shingle]:
        keys = dict.fromkeys([*self.keys, self.companies.get(candidate_id, "")])
        found: set[normalise.Shingle] = set()
        for key in keys:
            for listing_id, runs in self._sample(key):
                if listing_id != candidate_id:
                    found |= runs
        return frozenset(found)

    def _sample(self, key: str) -> list[tuple[str, set[normalise.Shingle]]]:
        if not key:
            return []
        if key not in self._texts:
            rows = self.db.execute(
                "SELECT l.id, l.words FROM dedupe_company_keys k"
                " JOIN dedupe_listings l ON l.id = k.listing_id WHERE k.company_key = ? LIMIT ?",
                (key, BOILERPLATE_SAMPLE + 1),
            ).fetchall()
            self._texts[key] = [(r["id"], normalise.shingles(r["words"])) for r in rows]
        return self._texts[key]
