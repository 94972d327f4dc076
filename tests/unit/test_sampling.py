"""The consumer span's sampling shortcut: a job whose producer did not sample its trace gets no
span when the sampler would drop it, and keeps one when the sampler would record it."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased

from jetjobs._observability import telemetry

UNSAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
SAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(telemetry, "_provider", TracerProvider(sampler=ParentBased(ALWAYS_ON)))


@pytest.mark.usefixtures("provider")
def test_an_unsampled_parent_is_dropped_by_a_parent_based_sampler() -> None:
    """ParentBased drops a child of an unsampled remote parent: no span is made for it."""
    assert telemetry._dropped(UNSAMPLED, "t") is True


@pytest.mark.usefixtures("provider")
@pytest.mark.parametrize("traceparent", [SAMPLED, "", "00-zz-yy-00", "00-0af7-b7ad-00", "garbage"])
def test_a_sampled_missing_or_unreadable_parent_is_left_to_the_sdk(traceparent: str) -> None:
    """A sampled parent, no parent, or a header that is not a traceparent: the SDK decides."""
    assert telemetry._dropped(traceparent, "t") is False


def test_a_sampler_that_records_unsampled_parents_is_obeyed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sampler configured to record children of unsampled parents gets its span."""
    sampler = ParentBased(ALWAYS_ON, remote_parent_not_sampled=ALWAYS_ON)
    monkeypatch.setattr(telemetry, "_provider", TracerProvider(sampler=sampler))
    assert telemetry._dropped(UNSAMPLED, "t") is False


def test_with_tracing_on_a_dropped_job_passes_its_trace_headers_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """No span for a dropped job, and its follow-up jobs carry the unsampled parent unchanged."""
    monkeypatch.setattr(telemetry, "_provider", TracerProvider(sampler=ParentBased(ALWAYS_ON)))
    headers = {"traceparent": UNSAMPLED}
    with telemetry.consumer_span("subject", headers, "t", dict) as span:
        assert span is None
        assert telemetry._current_trace_headers() == headers
