"""The connection's protocol reader: nats-py's parser with a lean path for `MSG` and `HMSG`.

nats-py parses every inbound message with a chain of regular expressions over a buffer it trims
after each message, awaits a coroutine per message (`_process_msg`), and splits headers line by
line with a whitespace check per character of each name. A worker receives four messages per job
(the delivery, its ledger entry, the acks of two compare-and-sets), so that was about a quarter of
its CPU. `LeanParser` reads `MSG`/`HMSG` with one `find` and one `split` per control line, walks
the buffer by offset and trims it once per read, and hands a message for a direct subscription
(`DirectDelivery`, made by jetjobs._transport.inbox, which installs this reader) to its callback
without a coroutine. Every other message (a nats-py subscription with a queue, a JetStream push
subscription with flow control) and every other command (`PING`, `PONG`, `INFO`, `+OK`, `-ERR`)
goes through nats-py's own code, unchanged.

`install(nc)` replaces the parser of one connection (`Client._ps` and the parser's state, internals
of nats-py: `tests/unit/test_reader.py` fails if they change; every integration test reads
through it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.errors import ProtocolError
from nats.protocol.parser import AWAITING_CONTROL_LINE, MAX_CONTROL_LINE_SIZE, Parser


class DirectDelivery:
    """Looks like a pending future to nats-py; every `set_result(msg)` calls `callback(msg)`."""

    def __init__(self, callback: Callable[[Msg], None]) -> None:
        self._callback = callback

    def cancelled(self) -> bool:
        """Never: the subscription lives until it is unsubscribed."""
        return False

    def done(self) -> bool:
        """Never done: it takes any number of messages."""
        return False

    def set_result(self, msg: Msg) -> None:
        """Called by nats-py's read loop for each message."""
        self._callback(msg)


_CRLF = b"\r\n"
_HEADER_LINE = b"NATS/1.0"


class LeanParser(Parser):
    """A drop-in `nats.protocol.parser.Parser` (same calls into the client, same errors)."""

    def reset(self) -> None:
        super().reset()
        # A message whose control line was read and whose payload has not all arrived yet:
        # (subject, sid, reply, header bytes, total bytes).
        self._pending: tuple[bytes, int, bytes, int, int] | None = None

    async def parse(self, data: bytes = b"") -> None:
        """Read what arrived: every complete command in the buffer, in order."""
        self.buf.extend(data)
        if self.state != AWAITING_CONTROL_LINE:  # nats-py's own parser is mid-message
            await super().parse()
            if self.state != AWAITING_CONTROL_LINE:
                return
        buf = self.buf
        size = len(buf)
        pos = 0
        try:
            while pos < size:
                if self._pending is None:
                    end = buf.find(_CRLF, pos)
                    if end < 0:
                        if size - pos >= MAX_CONTROL_LINE_SIZE:
                            raise ProtocolError("nats: control line too long")
                        break
                    head = buf[pos : pos + 5]
                    line_start, pos = pos, end + 2
                    if head.startswith(b"MSG ") or head == b"HMSG ":
                        self._pending = _control_line(buf, line_start, end)
                    elif not await self._command(bytearray(buf[line_start:pos]), buf):
                        return
                    continue
                subject, sid, reply, header_size, total = self._pending
                if size - pos < total + 2:
                    break  # the rest of the payload has not arrived yet
                self._pending = None
                headers = bytes(buf[pos : pos + header_size]) if header_size else None
                payload = bytes(buf[pos + header_size : pos + total])
                pos += total + 2
                if not self._deliver(sid, subject, reply, payload, headers):
                    await self.nc._process_msg(sid, subject, reply, payload, headers)
                    if self.buf is not buf:
                        return  # the client reset the parser (a reconnect)
        finally:
            del buf[:pos]

    def _deliver(self, sid: int, subject: bytes, reply: bytes, payload: bytes, headers: bytes | None) -> bool:
        """Hand a message for a direct subscription to its callback; False for any other."""
        nc: Any = self.nc
        sub = nc._subs.get(sid)
        future = sub._future if sub is not None else None
        if type(future) is not DirectDelivery or sub._max_msgs:
            return False
        stats = nc.stats
        stats["in_msgs"] += 1
        stats["in_bytes"] += len(payload)
        sub._received += 1
        msg = nc.msg_class(
            subject=subject.decode(),
            reply=reply.decode(),
            data=payload,
            headers=parse_headers(headers) if headers else None,
            _client=nc,
            _sid=sid,
        )
        future.set_result(msg)
        return True

    async def _command(self, line: bytearray, buf: bytearray) -> bool:
        """PING, PONG, INFO, +OK, -ERR: read by nats-py's parser. False if the client reset the
        parser meanwhile (its buffer is then another one, and the rest of this read is void)."""
        self.buf = line
        try:
            await super().parse()
        finally:
            reset = self.buf is not line
            if not reset:
                self.buf = buf
        return not reset


def _control_line(buf: bytearray, start: int, end: int) -> tuple[bytes, int, bytes, int, int]:
    """`MSG <subject> <sid> [reply] <size>` or `HMSG <subject> <sid> [reply] <hdr size> <size>`."""
    args = bytes(buf[start:end]).split()
    try:
        if args[0] == b"MSG":
            if len(args) == 4:
                return args[1], int(args[2]), b"", 0, int(args[3])
            if len(args) == 5:
                return args[1], int(args[2]), args[3], 0, int(args[4])
        elif len(args) == 5:
            return args[1], int(args[2]), b"", int(args[3]), int(args[4])
        elif len(args) == 6:
            return args[1], int(args[2]), args[3], int(args[4]), int(args[5])
    except ValueError:
        pass
    raise ProtocolError("nats: malformed MSG")


def parse_headers(block: bytes) -> dict[str, str] | None:
    """A header block as nats-py reads it: `Status` and `Description` from an inline status
    (`NATS/1.0 404 No Messages`), then one entry per `Name: value` line (values stripped,
    undecodable bytes replaced; a line without a colon or a name with a space is skipped)."""
    lines = block.split(_CRLF)
    first = lines[0]
    out: dict[str, str] = {}
    if not first.startswith(_HEADER_LINE):
        return None
    status_line = first[len(_HEADER_LINE) :].strip()
    if status_line:
        status, _, description = status_line.partition(b" ")
        if status.isdigit():
            out["Status"] = status.decode()
        if description:
            out["Description"] = description.decode("utf-8", "replace")
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        key = name.strip()
        if not key or not key.isascii() or len(key.split()) != 1:
            continue
        out[key.decode()] = value.strip().decode("utf-8", "replace")
    return out or None


def install(nc: NATS) -> None:
    """Read this connection's protocol with `LeanParser` (idempotent; before or after connect).

    The new parser takes over the old one's buffer and state: whatever nats-py had read and not
    parsed yet, even half a message, is parsed by the new one (the read loop calls one parser at
    a time, so the two never read the buffer at once).
    """
    current: Any = nc._ps
    if isinstance(current, LeanParser):
        return
    parser = LeanParser(nc)
    parser.buf = current.buf
    parser.state = current.state
    parser.needed = current.needed
    parser.header_needed = current.header_needed
    parser.msg_arg = current.msg_arg
    nc._ps = parser
