"""The job envelope: decoding, validation with readable errors, defaults, ids."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from jetjobs._errors import InvalidJob, JetJobsError
from jetjobs._wire.envelope import ENCODER as JOB_ENCODER
from jetjobs._wire.envelope import Job, decode_job, new_job_id

MINIMAL: dict[str, Any] = {"id": "job-1", "type": "email.send", "created_at": "2026-01-02T03:04:05Z"}


def envelope(**fields: Any) -> bytes:
    """A minimal valid envelope with `fields` replaced (a value of ... removes the field)."""
    body = {**MINIMAL, **fields}
    return msgspec.json.encode({k: v for k, v in body.items() if v is not ...})


def test_minimal_envelope_gets_defaults() -> None:
    """Only id, type and created_at are required; every other field has its documented default."""
    job = decode_job(envelope())
    assert job.id == "job-1"
    assert job.type == "email.send"
    assert job.created_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert job.payload == {}
    assert job.queue == "default"
    assert job.priority == "normal"
    assert job.run_at is None
    assert job.key is None
    assert job.max_attempts == 5
    assert job.timeout == 300.0
    assert job.replay_of is None


def test_full_envelope_round_trips() -> None:
    """An encoded Job decodes to an equal Job."""
    job = Job(
        id="abc_123-XYZ",
        type="report.build.monthly",
        payload={"rows": [1, 2, 3], "nested": {"a": None}},
        queue="reports",
        priority="high",
        created_at=datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC),
        run_at=datetime(2026, 5, 7, tzinfo=UTC),
        key="monthly:2026-05",
        max_attempts=1000,
        timeout=0.5,
        replay_of="older-job",
    )
    assert decode_job(JOB_ENCODER.encode(job)) == job


def test_unknown_fields_are_ignored() -> None:
    """A newer publisher's extra fields do not make the job invalid (schema evolution rule)."""
    job = decode_job(envelope(trace_parent="00-abc-def-01", tenant={"id": 7}))
    assert job.id == "job-1"


def test_msg_id_is_key_else_id() -> None:
    """The dedup id is the idempotency key when given, otherwise the job id."""
    assert decode_job(envelope()).msg_id == "job-1"
    assert decode_job(envelope(key="welcome:ada")).msg_id == "welcome:ada"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"", "not valid JSON: Input data was truncated", id="empty"),
        pytest.param(
            b'{"id": "job-1", "type": "x', "not valid JSON: Input data was truncated", id="truncated"
        ),
        pytest.param(b"hello", "not valid JSON: JSON is malformed", id="not-json"),
        pytest.param(
            b'{"id": "job-1", "type": "x.y", "created_at": "2026-01-01T00:00:00Z", "payload": {"a": "\xff"}}',
            "not valid JSON: Invalid UTF-8",
            id="bad-utf8",
        ),
        pytest.param(b"[1, 2]", "does not match the schema: Expected `object`, got `array`", id="array"),
        pytest.param(b"null", "does not match the schema: Expected `object`, got `null`", id="null"),
        pytest.param(
            envelope(id=...), "does not match the schema: Object missing required field `id`", id="no-id"
        ),
        pytest.param(envelope(type=...), "missing required field `type`", id="no-type"),
        pytest.param(envelope(created_at=...), "missing required field `created_at`", id="no-created-at"),
        pytest.param(envelope(created_at="yesterday"), "Invalid RFC3339", id="bad-date"),
        pytest.param(envelope(id="a/b c"), "matching regex", id="id-illegal-chars"),
        pytest.param(envelope(id="x" * 129), "- at `$.id`", id="id-too-long"),
        pytest.param(envelope(id=42), "Expected `str`, got `int` - at `$.id`", id="id-not-str"),
        pytest.param(envelope(type="has space"), "- at `$.type`", id="type-illegal"),
        pytest.param(envelope(type="a..b"), "- at `$.type`", id="type-empty-segment"),
        pytest.param(envelope(queue="a.b"), "- at `$.queue`", id="queue-with-dot"),
        pytest.param(
            envelope(priority="urgent"), "Invalid enum value 'urgent' - at `$.priority`", id="priority"
        ),
        pytest.param(
            envelope(payload=[1, 2]), "Expected `object`, got `array` - at `$.payload`", id="payload"
        ),
        pytest.param(envelope(max_attempts=0), "Expected `int` >= 1 - at `$.max_attempts`", id="attempts-0"),
        pytest.param(
            envelope(max_attempts=10**30), "Expected `int` <= 1000 - at `$.max_attempts`", id="attempts-huge"
        ),
        pytest.param(
            envelope(max_attempts=2.5),
            "Expected `int`, got `float` - at `$.max_attempts`",
            id="attempts-float",
        ),
        pytest.param(envelope(max_attempts="3"), "got `str` - at `$.max_attempts`", id="attempts-str"),
        pytest.param(envelope(timeout=0), "Expected `float` > 0.0 - at `$.timeout`", id="timeout-zero"),
        pytest.param(envelope(timeout=10**7), "- at `$.timeout`", id="timeout-week-plus"),
        pytest.param(envelope(key=""), "- at `$.key`", id="key-empty"),
        pytest.param(envelope(replay_of="no spaces"), "- at `$.replay_of`", id="replay-of"),
    ],
)
def test_bad_input_raises_invalid_job_with_reason(data: bytes, message: str) -> None:
    """Every malformed envelope raises InvalidJob (a JetJobsError) whose text says what is wrong."""
    with pytest.raises(InvalidJob) as caught:
        decode_job(data)
    assert message in str(caught.value)
    assert isinstance(caught.value, JetJobsError)
    assert caught.value.__cause__ is None  # `from None`: the reason is in the message, not a chain


def test_deeply_nested_payload_is_invalid_not_a_crash() -> None:
    """A payload nested 100000 levels deep raises InvalidJob, not RecursionError."""
    depth = 100_000
    head = b'{"id": "job-1", "type": "x.y", "created_at": "2026-01-01T00:00:00Z", "payload": {"a": '
    data = head + b"[" * depth + b"]" * depth + b"}}"
    with pytest.raises(InvalidJob, match="nested too deeply"):
        decode_job(data)


def test_new_job_id_is_uuid7_hex() -> None:
    """A new id is 32 lower-case hex digits of an RFC 9562 version-7 UUID, and ids differ."""
    ids = {new_job_id() for _ in range(1000)}
    assert len(ids) == 1000
    for job_id in ids:
        assert len(job_id) == 32
        assert job_id == job_id.lower()
        parsed = uuid.UUID(hex=job_id)
        assert parsed.version == 7
        assert parsed.variant == uuid.RFC_4122
        assert decode_job(envelope(id=job_id)).id == job_id  # a valid JobId


def test_new_job_id_carries_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first 48 bits are the Unix time in milliseconds."""
    now_ns = 1_790_000_000_123_456_789
    monkeypatch.setattr(time, "time_ns", lambda: now_ns)
    assert int(new_job_id()[:12], 16) == now_ns // 1_000_000


def test_new_job_ids_sort_by_creation_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """An id made 2 ms after another sorts after it, whatever the random bits."""
    clock = {"ns": 1_790_000_000_000_000_000}
    monkeypatch.setattr(time, "time_ns", lambda: clock["ns"])
    earlier = [new_job_id() for _ in range(100)]
    clock["ns"] += 2_000_000
    later = [new_job_id() for _ in range(100)]
    assert max(earlier) < min(later)
    assert sorted(earlier + later)[:100] == sorted(earlier)
