"""Building a merged listing from its postings: every source kept, the best fields chosen.

The primary posting (whose URL, title and company the merged listing shows) is the company's own
applicant-tracking board where there is one: that is where the person applies. The merged
listing keeps the earliest posted date, every place, and the first stated salary and type.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

import msgspec

from jobsearch.dedupe import normalise
from jobsearch.listing import Listing, MergedListing, SourceRef

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


def create(listing: Listing, now: datetime) -> MergedListing:
    """A new merged listing of one posting."""
    return MergedListing(
        id=merged_id(listing.key),
        title=listing.title,
        company=listing.company,
        url=listing.url,
        locations=list(listing.locations),
        remote=listing.remote,
        employment_type=listing.employment_type,
        salary=listing.salary,
        posted_at=listing.posted_at,
        description=listing.description,
        department=listing.department,
        sources=[source_of(listing)],
        first_seen=now,
    )


def _rank(board: str) -> int:
    return 0 if board in _OWN_BOARDS else 1


def add(merged: MergedListing, listing: Listing) -> MergedListing:
    """`merged` with `listing` as one more source (the same listing again changes nothing)."""
    ref = source_of(listing)
    if any(s.board == ref.board and s.external_id == ref.external_id for s in merged.sources):
        return merged
    primary_board = merged.sources[0].board if merged.sources else "sample"
    promote = _rank(listing.board) < _rank(primary_board)
    first, second = (listing, merged) if promote else (merged, listing)
    places = {_place_key(p) for p in merged.locations}
    locations = list(merged.locations) + [p for p in listing.locations if _place_key(p) not in places]
    dates = [d for d in (merged.posted_at, listing.posted_at) if d is not None]
    remotes = [r for r in (merged.remote, listing.remote) if r is not None]
    sources = [ref, *merged.sources] if promote else [*merged.sources, ref]
    return msgspec.structs.replace(
        merged,
        title=first.title,
        company=first.company or second.company,
        url=first.url,
        locations=locations,
        remote=any(remotes) if remotes else None,
        employment_type=first.employment_type or second.employment_type,
        salary=first.salary or second.salary,
        posted_at=min(dates) if dates else None,
        description=first.description if len(first.description) >= 200 else _longer(first, second),
        department=first.department or second.department,
        sources=sources,
    )


def _place_key(location: str) -> str:
    """One key per place: "Berlin, Germany" and "Berlin" are one place."""
    return normalise.city(location) or normalise.place(location)


def _longer(a: Listing | MergedListing, b: Listing | MergedListing) -> str:
    return a.description if len(a.description) >= len(b.description) else b.description
