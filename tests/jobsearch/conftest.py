"""Fixtures of the job-search tests: the fake providers, the profile, the listing corpus, spans
recorded in memory, and the digest's receivers (SMTP, ntfy, a webhook)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from jetjobs._observability import telemetry
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from tests.jobsearch.digest_servers import receivers, smtp
from tests.jobsearch.provider_servers import ProviderServer, serving

__all__ = ["receivers", "smtp"]  # the digest's receivers, as fixtures of every test here

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


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """Tracing on for this test only, as `setup_tracing` turns it on for a worker: every span of
    this process (jetjobs' consumer spans, board requests, provider calls) goes to an in-memory
    exporter as it ends."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(telemetry, "_provider", provider)
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", provider)  # OTel's global, set once per process
    yield exporter
    provider.shutdown()
