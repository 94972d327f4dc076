"""The lean protocol reader against nats-py's own parser: the same messages, the same headers,
the same calls into the client, however the bytes are split into reads."""

from __future__ import annotations

import random
from typing import Any

import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import ProtocolError
from nats.protocol.parser import Parser

from jetjobs._transport import reader
from jetjobs._transport.inbox import DirectDelivery
from jetjobs._transport.pull import ack_reply
from jetjobs._transport.reader import LeanParser, parse_headers

HEADER_BLOCKS = [
    b"NATS/1.0\r\nNats-Msg-Id: abc\r\n\r\n",
    b"NATS/1.0\r\nA: 1\r\nB:2\r\nC:\t three \r\n\r\n",
    b"NATS/1.0 404 No Messages\r\n\r\n",
    b"NATS/1.0 503\r\n\r\n",
    b"NATS/1.0 408 Request Timeout\r\nNats-Pending-Messages: 3\r\nNats-Pending-Bytes: 90\r\n\r\n",
    b"NATS/1.0 204 EOB\r\nNats-Num-Pending: 0\r\nNats-UpTo-Sequence: 12\r\n\r\n",
    b"NATS/1.0\r\nno colon here\r\nbad key: x\r\nGood: caf\xc3\xa9 \xff\r\nEmpty:\r\n\r\n",
    b"NATS/1.0\r\nK\xc3\xa9y: v\r\nDup: 1\r\nDup: 2\r\n\r\n",
    b"NATS/1.0\r\n\r\n",
]


@pytest.mark.parametrize("block", HEADER_BLOCKS)
async def test_headers_read_as_nats_py_reads_them(block: bytes) -> None:
    """Status lines, `Name:value` without a space, undecodable bytes, bad names, duplicates."""
    assert parse_headers(block) == await NATS()._process_headers(block)


def _wire() -> bytes:
    """A server's side of a busy worker connection: deliveries with headers and a reply, batch
    get answers, publish acks, a status, PING, +OK, an INFO, and a message for a queued sub."""
    parts = []
    for i in range(40):
        block = b"NATS/1.0\r\nNats-Msg-Id: job-%d\r\n\r\n" % i
        body = b'{"id":"job-%d","pad":"%s"}' % (i, b"x" * (i * 37 % 300))
        parts.append(
            b"HMSG q.jobs.default.normal.t 1 $JS.ACK.JOBS.c.1.%d.%d.1764500000000000000.0 %d %d\r\n%s%s\r\n"
            % (i, i, len(block), len(block) + len(body), block, body)
        )
        ack = b'{"stream":"KV","seq":%d}' % i
        parts.append(b"MSG _INBOX.r.%d 2 %d\r\n%s\r\n" % (i, len(ack), ack))
        if i % 9 == 0:
            parts.append(b"PING\r\n+OK\r\n")
        if i % 13 == 0:
            parts.append(b"MSG plain.sub 3 reply.to 5\r\nhello\r\nMSG plain.sub 3 0\r\n\r\n")
        if i % 17 == 0:
            status = HEADER_BLOCKS[4]
            parts.append(b"HMSG _INBOX.p 1 %d %d\r\n%s\r\n" % (len(status), len(status), status))
    big, block = b"B" * 300_000, b"NATS/1.0\r\nA: b\r\n\r\n"  # a payload split over many reads
    parts.append(b"HMSG _INBOX.big 2 reply.big %d %d\r\n" % (len(block), len(block) + len(big)))
    parts.append(block + big + b"\r\n")
    parts.append(b'INFO {"server_id":"x","max_payload":1048576}\r\n')
    parts.append(b"MSG unknown.sid 99 3\r\nabc\r\n")
    parts.append(b"-ERR 'Permissions Violation for Subscription to \"x\"'\r\n")
    parts.append(b"PONG\r\n")
    return b"".join(parts)


class _Client:
    """What a parser calls on its client, recorded (a real `Client`'s subscriptions table)."""

    def __init__(self) -> None:
        self.nc = NATS()
        self.calls: list[tuple[Any, ...]] = []
        self.direct: list[Msg] = []
        for sid in (1, 2):
            self.nc._subs[sid] = Subscription(self.nc, sid, "x", future=DirectDelivery(self.direct.append))
        self.nc._subs[3] = Subscription(self.nc, 3, "plain.sub")  # a nats-py queue subscription

        async def process_msg(sid: int, subject: bytes, reply: bytes, data: bytes, headers: bytes) -> None:
            self.calls.append(("msg", sid, subject, reply, data, headers))
            if sid in (1, 2):  # what nats-py itself would hand the direct subscription
                hdr = await self.nc._process_headers(headers)
                self.direct.append(self.nc._build_message(sid, subject, reply, data, hdr))

        async def ping() -> None:
            self.calls.append(("ping",))

        async def info(info: dict[str, Any]) -> None:
            self.calls.append(("info", info))

        async def err(message: str) -> None:
            self.calls.append(("err", message))

        self.nc._process_msg = process_msg  # type: ignore[method-assign]
        self.nc._process_ping = ping  # type: ignore[method-assign]
        self.nc._process_info = info  # type: ignore[method-assign]
        self.nc._process_err = err  # type: ignore[method-assign]

    def seen(self) -> list[tuple[Any, ...]]:
        """Direct messages and every other call, in a comparable form."""
        direct = [("direct", m.subject, m.reply, m.data, m.headers, m._sid) for m in self.direct]
        others = [call for call in self.calls if call[0] != "msg" or call[1] not in (1, 2)]
        return direct + others


async def _read(parser_class: type[Parser], chunks: list[bytes]) -> _Client:
    client = _Client()
    parser = parser_class(client.nc)
    for chunk in chunks:
        await parser.parse(chunk)
    assert not parser.buf, "everything complete was read"
    return client


def _split(data: bytes, rng: random.Random, largest: int) -> list[bytes]:
    chunks, pos = [], 0
    while pos < len(data):
        step = rng.randint(1, largest)
        chunks.append(data[pos : pos + step])
        pos += step
    return chunks


@pytest.mark.parametrize("largest", [1, 7, 64, 1500, 1 << 20])
async def test_the_same_messages_and_calls_however_the_reads_split(largest: int) -> None:
    """Byte by byte, in small and large reads: what arrives, and in what order, is nats-py's."""
    data = _wire()
    expected = await _read(Parser, [data])
    rng = random.Random(largest)
    for _ in range(3):
        got = await _read(LeanParser, _split(data, rng, largest))
        assert got.seen() == expected.seen()
        assert got.nc.stats["in_msgs"] == sum(1 for m in got.direct)
    assert len(expected.direct) == 40 + 40 + 3 + 1  # deliveries, acks, statuses, the big one
    assert ("ping",) in expected.seen()
    assert any(call[0] == "info" for call in expected.seen())
    assert any(call[0] == "err" for call in expected.seen())


async def test_a_malformed_or_unknown_command_is_a_protocol_error() -> None:
    for bad in (b"MSG a b 3\r\nabc\r\n", b"MSG a 1 x y z 3\r\n", b"BOGUS\r\n", b"X" * 5000):
        with pytest.raises(ProtocolError):
            await LeanParser(_Client().nc).parse(bad)


async def test_installed_over_a_half_read_message_it_reads_the_rest() -> None:
    """Replacing nats-py's parser mid-message (a connection made elsewhere) loses nothing."""
    client = _Client()
    data = _wire()
    old = Parser(client.nc)
    client.nc._ps = old
    cut = data.index(b"job-3") + 2  # inside a delivery's headers
    await old.parse(data[:cut])
    reader.install(client.nc)
    reader.install(client.nc)  # idempotent
    assert isinstance(client.nc._ps, LeanParser)
    await client.nc._ps.parse(data[cut:])
    expected = await _read(Parser, [data])
    assert client.seen() == expected.seen()


@pytest.mark.parametrize(
    "reply",
    [
        "$JS.ACK.JOBS.worker_default_normal.3.1042.977.1764500000123456789.12",
        "$JS.ACK.hub.ACCHASH.JOBS.worker_default_normal.3.1042.977.1764500000123456789.12.rand0m",
    ],
)
def test_a_deliverys_fields_as_nats_py_reads_them(reply: str) -> None:
    """Stream sequence, delivery count and storage time, read from the reply subject (both forms)."""
    msg = Msg(_client=NATS(), subject="s", reply=reply, data=b"")
    metadata = Msg(_client=NATS(), subject="s", reply=reply, data=b"").metadata
    fields = ack_reply(msg.reply or "")
    assert fields is not None
    seq, count, stored_at = fields.stream_seq, fields.delivered, fields.stored_ns / 1e9
    assert (seq, count) == (metadata.sequence.stream, metadata.num_delivered)
    assert stored_at == pytest.approx(metadata.timestamp.timestamp(), abs=1e-6)
