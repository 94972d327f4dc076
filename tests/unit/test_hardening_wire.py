"""The pure rules behind issue 16's items 2, 5 and 7: header parsing, subject shapes, numbers, times."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from jetjobs._errors import InvalidJob
from jetjobs._joblog.ledger import parse_revision
from jetjobs._liveness.coverage import queue_of_filter, queue_of_subject
from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import INT_MAX, INT_MIN, Job, decode_job, wide_integer


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", 1), ("42", 42), (str(2**64 - 1), 2**64 - 1), ("0", None), ("²", None), ("١٢", None),
     ("-1", None), ("1.0", None), ("", None), (" 7", None), ("1e3", None), (str(2**64), None),
     ("9" * 21, None)],
)  # fmt: skip
def test_parse_revision_takes_only_a_revision(value: str, expected: int | None) -> None:
    """Only ASCII digits naming a sequence 1..2^64-1 are a revision; `²` and `١٢` are not."""
    assert parse_revision(value) == expected


def job(payload: str, created_at: str = "2026-11-30T08:00:00Z") -> bytes:
    """An envelope whose payload is the raw JSON text `payload`."""
    return f'{{"id":"j1","type":"t","created_at":"{created_at}","payload":{payload}}}'.encode()


@pytest.mark.parametrize("number", [INT_MIN, INT_MAX, 0, -1, 10**18])
def test_integers_within_64_bits_are_accepted(number: int) -> None:
    """The bounds of the 64-bit range themselves decode."""
    assert decode_job(job(f'{{"n":[{number}]}}')).payload == {"n": [number]}


@pytest.mark.parametrize("number", [INT_MIN - 1, INT_MAX + 1, 10**400, -(10**30)])
def test_integers_past_64_bits_are_invalid_and_named_by_path(number: int) -> None:
    """A wider integer anywhere in the payload makes the job invalid, naming where it is."""
    with pytest.raises(InvalidJob, match=r"integer at `\$\.payload\.a\[1\]\.b` does not fit in 64 bits"):
        decode_job(job(f'{{"a":[0,{{"b":{number}}}]}}'))


def test_long_digit_strings_are_not_numbers() -> None:
    """A string of 40 digits is text, not an integer: accepted."""
    assert decode_job(job('{"phone":"' + "1" * 40 + '"}')).payload["phone"] == "1" * 40
    assert wide_integer({"x": "1" * 40, "y": True}) is None


@pytest.mark.parametrize("created_at", ["2026-11-30T08:00:00", "2026-11-30 08:00:00", "2026-11-30"])
def test_times_without_a_zone_are_invalid(created_at: str) -> None:
    """`created_at` without `Z` or an offset names no instant: invalid, as the schema says."""
    with pytest.raises(InvalidJob, match="created_at"):
        decode_job(job("{}", created_at))


def test_a_time_with_an_offset_is_kept_as_that_instant() -> None:
    """`+01:00` is honoured: 09:00+01:00 is 08:00Z."""
    parsed = decode_job(job("{}", "2026-11-30T09:00:00+01:00")).created_at
    assert parsed == datetime(2026, 11, 30, 8, tzinfo=UTC)


def test_schema_of_times_says_date_time() -> None:
    """The generated schema and the decoder agree: `created_at` is an RFC 3339 date-time."""
    schema = msgspec.json.schema(Job)["$defs"]["Job"]["properties"]
    assert schema["created_at"]["format"] == "date-time"


def test_subject_shapes_of_queues_and_filters() -> None:
    """Only `<ns>.jobs.<queue>.<priority>.<type...>` subjects and `...<priority>.>` filters count."""
    topology = Topology(Settings(namespace="ns"))
    assert queue_of_subject(topology, "ns.jobs.mail.high.email.send") == ("mail", "high")
    assert queue_of_subject(topology, "ns.jobs.mail.urgent.x") is None
    assert queue_of_subject(topology, "ns.jobs.mail.high") is None
    assert queue_of_subject(topology, "other.jobs.mail.high.x") is None
    assert queue_of_filter(topology, "ns.jobs.mail.low.>") == ("mail", "low")
    assert queue_of_filter(topology, "ns.jobs.>") is None
    assert topology.jobs_subjects() == ["ns.jobs.*.high.>", "ns.jobs.*.normal.>", "ns.jobs.*.low.>"]
