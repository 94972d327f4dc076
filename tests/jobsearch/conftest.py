"""Fixtures of the job-search tests: the fake providers, the profile and the listing corpus."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import ProviderServer, serving

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def providers() -> Iterator[ProviderServer]:
    """Every provider's wire format on one local HTTP server."""
    with serving() as server:
        yield server


@pytest.fixture
def profile() -> Profile:
    """Jane Doe's profile: two employers, a BSc, six skills."""
    return msgspec.json.decode((FIXTURES / "draft_profile.json").read_bytes(), type=Profile)


@pytest.fixture
def corpus() -> dict[str, MergedListing]:
    """Listings by id: a plain one, prompt injections, fake employers, a fence break."""
    listings = msgspec.json.decode((FIXTURES / "draft_listings.json").read_bytes(), type=list[MergedListing])
    return {listing.id: listing for listing in listings}
