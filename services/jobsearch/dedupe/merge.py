"""A merged listing is the union of its postings: every source, and the best of every field.

`union` builds the merged listing from all of its postings each time one joins or changes, so
what the person sees never depends on which board happened to be read first:
- the primary posting (whose URL and title the listing shows) is the company's own board where
  there is one (that is where the person applies), else the first seen;
- the company's display name over a board's slug (`company.display_name`);
- the salary that states pay best (a board's field over the text, a range over one figure);
- every place, once; the earliest posted date; the longest description; where the job is done
  (the primary's, else any posting's) and the employment type and department likewise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from jobsearch.dedupe import company
from jobsearch.listing import Listing, MergedListing, SourceRef
from jobsearch.reading import normalise
from jobsearch.salary import best_salary

# The company's own boards rank before aggregators as the primary posting.
_OWN_BOARDS = ("greenhouse", "lever", "ashby", "workable", "smartrecruiters")


def merged_id(posting_key: str) -> str:
    """The merged listing's id: derived from the key of the posting that created it (stable)."""
    return "m" + hashlib.sha256(posting_key.encode()).hexdigest()[:20]


def source_of(listing: Listing) -> SourceRef:
    """The listing's reference in a merged listing's `sources`."""
    return SourceRef(
        board=listing.board,
        source=listing.source,
        external_id=listing.external_id,
        url=listing.url,
        posted_at=listing.posted_at,
    )


def _rank(listing: Listing) -> int:
    return 0 if listing.board in _OWN_BOARDS else 1


def union(
    postings: Sequence[Listing],
    *,
    listing_id: str,
    first_seen: datetime,
    revision: int = 1,
    updated_at: datetime | None = None,
) -> MergedListing:
    """The merged listing of one job's postings (oldest first; at least one).

    Raises:
        ValueError: `postings` is empty.
    """
    if not postings:
        raise ValueError("a merged listing needs at least one posting")
    ordered = sorted(postings, key=_rank)  # stable: among equals, the first seen stays first
    primary = ordered[0]
    places: dict[str, str] = {}  # one place once, in its fullest spelling ("Berlin, Germany")
    for p in ordered:
        for place in p.locations:
            key = _place_key(place)
            if len(place) > len(places.get(key, "")):
                places[key] = place
    dates = [p.posted_at for p in postings if p.posted_at is not None]
    remotes = [p.remote for p in ordered if p.remote is not None]
    return MergedListing(
        id=listing_id,
        title=primary.title,
        company=company.display_name(ordered),
        url=primary.url,
        locations=list(places.values()),
        remote=any(remotes) if remotes else None,
        workplace=next((p.workplace for p in ordered if p.workplace), None),
        employment_type=next((p.employment_type for p in ordered if p.employment_type), None),
        salary=best_salary(p.salary for p in ordered),
        posted_at=min(dates) if dates else None,
        description=max((p.description for p in ordered), key=len),
        department=next((p.department for p in ordered if p.department), None),
        sources=[source_of(p) for p in ordered],
        first_seen=first_seen,
        revision=revision,
        updated_at=updated_at,
    )


def _place_key(location: str) -> str:
    """One key per place: "Berlin, Germany" and "Berlin" are one place."""
    return normalise.city(location) or normalise.place(location)
