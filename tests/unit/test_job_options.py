"""JobOptions: the one place the submit options' defaults live, and keywords on top of it."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import Job, JobOptions, Publisher, Settings


def _publisher() -> Publisher:
    # `build` never touches the connection: an unconnected client is enough.
    return Publisher(NATS(), Settings())


def test_the_envelope_defaults_are_the_options_defaults() -> None:
    """A job built with no options carries exactly JobOptions()' values."""
    job = _publisher().build("report.build", {})
    defaults = JobOptions()
    assert (job.queue, job.priority, job.key, job.max_attempts, job.timeout, job.run_at) == (
        defaults.queue,
        defaults.priority,
        defaults.key,
        defaults.max_attempts,
        defaults.timeout,
        defaults.run_at,
    )
    decoded = msgspec.json.decode(b'{"id": "a", "type": "t", "created_at": "2026-01-01T00:00:00Z"}', type=Job)
    assert decoded.queue == defaults.queue
    assert decoded.max_attempts == defaults.max_attempts


def test_keywords_override_the_options_and_none_means_none() -> None:
    """`build(type, payload, options, queue=...)`: the keyword wins; `timeout=None` clears it."""
    at = datetime(2030, 1, 1, tzinfo=UTC)
    options = JobOptions(queue="reports", priority="high", max_attempts=3, run_at=at)
    job = _publisher().build("report.build", {}, options, queue="urgent", timeout=None)
    assert (job.queue, job.priority, job.max_attempts, job.timeout, job.run_at) == (
        "urgent",
        "high",
        3,
        None,
        at,
    )


def test_options_are_checked_by_the_envelope_limits() -> None:
    """An option outside the envelope's limits fails the build with the field named."""
    with pytest.raises(msgspec.ValidationError, match=r"max_attempts"):
        _publisher().build("report.build", {}, JobOptions(max_attempts=0))
    with pytest.raises(msgspec.ValidationError, match=r"queue"):
        _publisher().build("report.build", {}, queue="no spaces")
