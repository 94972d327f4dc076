"""The JSON-lines log: one processor producing what the six it replaced did; CoalescingWriter's
lines of one event-loop iteration leave in one write, in order, promptly."""

from __future__ import annotations

import io
import json
import sys
from datetime import UTC, datetime

import anyio
import anyio.lowlevel
import pytest
import structlog

from jetjobs._observability.log import CoalescingWriter, _Clock, json_line


class CountingFile(io.BytesIO):
    """A file that records each write call."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.writes.append(bytes(data))
        return super().write(data)


def test_outside_an_event_loop_each_line_is_written_at_once() -> None:
    """Start-up code and handler threads have no loop: nothing waits for a flush."""
    file = CountingFile()
    writer = CoalescingWriter(file)
    writer.info(b'{"event":"a"}')
    writer.warning(b'{"event":"b"}')
    assert file.writes == [b'{"event":"a"}\n', b'{"event":"b"}\n']


async def test_lines_of_one_iteration_leave_in_one_write_after_it() -> None:
    """Three lines logged without yielding: one write, in order, once the loop gets control."""
    file = CountingFile()
    writer = CoalescingWriter(file)
    writer.info(b"1")
    writer.info(b"2")
    writer.error(b"3")
    assert file.writes == []  # still this iteration
    await anyio.lowlevel.checkpoint()
    assert file.writes == [b"1\n2\n3\n"]
    writer.info(b"4")
    await anyio.lowlevel.checkpoint()
    assert file.writes == [b"1\n2\n3\n", b"4\n"]


async def test_flush_writes_what_is_pending() -> None:
    """flush() (also registered for interpreter exit) writes queued lines at once."""
    file = CountingFile()
    writer = CoalescingWriter(file)
    writer.info(b"last words")
    writer.flush()
    assert file.getvalue() == b"last words\n"
    writer.flush()
    assert file.writes == [b"last words\n"]


def test_a_closed_stream_does_not_raise() -> None:
    """A reader that went away must not crash the worker through its logging."""
    file = CountingFile()
    file.close()
    CoalescingWriter(file).info(b"nobody reads this")


@pytest.mark.parametrize(
    "now",
    [
        1_796_000_000.0,
        1_796_000_000.5,
        1_796_000_000.000001,
        1_796_000_000.999999,
        1_796_000_000.9999996,  # rounds up into the next second
        1_796_000_059.25,
        0.0,
    ],
)
def test_the_clock_writes_what_the_iso_utc_timestamper_writes(now: float) -> None:
    """Same text as `datetime.isoformat()` with `Z` (a whole second without a fraction, the
    fraction rounded as datetime rounds it); the cached date and time follow the second."""
    clock = _Clock()
    clock.iso_utc(now - 61.5)  # another second cached before
    expected = datetime.fromtimestamp(now, UTC).isoformat().replace("+00:00", "Z")
    assert clock.iso_utc(now) == expected


def test_a_json_line_has_the_context_level_timestamp_traceback_and_no_password() -> None:
    """Bound context, the level, an ISO timestamp, a formatted traceback, a masked URL."""
    tokens = structlog.contextvars.bind_contextvars(job_id="j-1")
    try:
        try:
            raise ValueError("boom")
        except ValueError:
            event = {"event": "job.failed", "url": "nats://alice:s3cret@h:4222", "exc_info": sys.exc_info()}
            line = json.loads(json_line(None, "warn", event))
    finally:
        structlog.contextvars.reset_contextvars(**tokens)
    assert line["job_id"] == "j-1"
    assert line["level"] == "warning"
    assert line["url"] == "nats://alice:***@h:4222"
    assert "ValueError: boom" in line["exception"]
    stamp = datetime.fromisoformat(line["timestamp"])
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 60
