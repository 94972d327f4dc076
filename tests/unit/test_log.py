"""CoalescingWriter: the lines of one event-loop iteration leave in one write, in order, promptly."""

from __future__ import annotations

import io

import anyio
import anyio.lowlevel

from jetjobs._observability.log import CoalescingWriter


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
