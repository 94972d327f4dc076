"""One fetched posting, normalised once: everything matching, merging and recording need of it.

`posting_of` is the only place a `Listing` is normalised; the seen-set then matches the `Posting`,
merges it, filters the result and records it, without normalising the same text again.
"""

from __future__ import annotations

import hashlib

import msgspec

from jobsearch.dedupe import company, match
from jobsearch.listing import Listing
from jobsearch.reading import normalise

_ENCODE = msgspec.json.Encoder(order="deterministic")


class Posting(msgspec.Struct, kw_only=True, frozen=True):
    """A posting with its matching features, its canonical URLs and its fingerprint."""

    listing: Listing
    key: str  # `board:external_id`: the posting's identity in the seen-set
    features: match.Features
    urls: list[str]  # its own canonical URL, then the board postings its text links to
    company_keys: list[str]  # its company's key, and the hiring company an agency's copy names
    fingerprint: str  # changes when what the posting says changes (not when it is only fetched again)


def posting_of(listing: Listing) -> Posting:
    """Normalise `listing` once."""
    features = match.features(listing)
    own = normalise.canonical_url(listing.url)
    urls = [own, *(u for u in normalise.posting_links(listing.description) if u != own)]
    keys = [features.company] if features.company else []
    keys += [k for k in company.named_employers(listing) if k not in keys]
    return Posting(
        listing=listing,
        key=listing.key,
        features=features,
        urls=urls,
        company_keys=keys,
        fingerprint=fingerprint(listing),
    )


def fingerprint(listing: Listing) -> str:
    """A digest of what the posting says: its fields without when and by which source it was read."""
    said = msgspec.structs.replace(listing, fetched_at=None, source="")
    return hashlib.sha256(_ENCODE.encode(said)).hexdigest()[:32]
