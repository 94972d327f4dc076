"""Publishes nobody awaits (acks, job events, ledger requests), below nats-py's `publish`.

`Client.publish` is a coroutine that validates the subject, builds the command, creates a future
and queues it for the flusher task: several microseconds for each ack and each job event, two per
job, and again for each ledger request. The worker needs none of it: the subject is the server's
own reply subject or one of ours, and the publish itself is never awaited (a request's reply is,
through jetjobs._transport.requests). `Outbound.publish` appends the `PUB` command to
the connection's pending buffer, exactly as `Client.publish` does, and wakes nats-py's flusher once
per event-loop pass, so a burst of acks and events leaves in one write.

It uses four internals of nats-py's `Client` (`_pending`, `_pending_data_size`, `_flush_queue`,
`_max_pending_size`);
`tests/integration/test_outbound.py` fails if they change. While the connection is being
re-established the command waits in the same buffer as nats-py's own publishes, and is sent on
reconnect (an ack sent then may be for a delivery the server has forgotten: harmless).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

import nats.errors
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

_ACK = b"+ACK"
_HEADER_KEY = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # as nats-py checks a header key
_NOT_IN_SUBJECT = re.compile(r"\s")
_KEY_PREFIXES: dict[str, bytes] = {}
_KEY_PREFIXES_KEPT = 256
_NEWLINES = str.maketrans({"\r": " ", "\n": " "})


class Outbound:
    """Core-NATS publishes nobody awaits, buffered on one nats-py connection."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self._kick_pending = False

    def publish(
        self, subject: str, payload: bytes = b"", *, reply: str = "", headers: Mapping[str, str] | None = None
    ) -> None:
        """Queue a message for `subject` (sent within this event-loop pass).

        Headers are encoded as nats-py encodes them (a key must be a header token; line breaks in
        a value become spaces).

        Raises:
            nats.errors.ConnectionClosedError: the connection is closed for good.
            nats.errors.OutboundBufferLimitError: disconnected, and the buffer is full.
            nats.errors.BadSubjectError: an empty subject, or whitespace in the subject or reply.
            nats.errors.BadHeaderError: a header key that is not a token.
        """
        nc = self.nc
        if nc.is_closed:
            raise nats.errors.ConnectionClosedError
        # Whitespace would end the subject early and let the rest pass as protocol commands.
        if not subject or _NOT_IN_SUBJECT.search(subject) or (reply and _NOT_IN_SUBJECT.search(reply)):
            raise nats.errors.BadSubjectError
        if headers:
            block = _header_block(headers)
            command = b"HPUB %s %s %d %d\r\n%s%s\r\n" % (
                subject.encode(),
                reply.encode(),
                len(block),
                len(block) + len(payload),
                block,
                payload,
            )
        elif reply:
            command = b"PUB %s %s %d\r\n%s\r\n" % (subject.encode(), reply.encode(), len(payload), payload)
        else:
            command = b"PUB %s %d\r\n%s\r\n" % (subject.encode(), len(payload), payload)
        if not nc.is_connected and nc._pending_data_size + len(command) > nc._max_pending_size:
            raise nats.errors.OutboundBufferLimitError
        nc._pending.append(command)
        nc._pending_data_size += len(command)
        nc.stats["out_msgs"] += 1
        nc.stats["out_bytes"] += len(payload)
        if not self._kick_pending:
            self._kick_pending = True
            asyncio.get_running_loop().call_soon(self._kick)

    def ack(self, msg: Msg) -> None:
        """Acknowledge a JetStream delivery (what `await msg.ack()` sends)."""
        assert msg.reply, "only a JetStream delivery can be acknowledged"
        self.publish(msg.reply, _ACK)

    def _kick(self) -> None:
        """Wake nats-py's flusher, as `Client.publish` does, unless it is awake already."""
        self._kick_pending = False
        queue = self.nc._flush_queue
        if queue is not None and queue.empty() and self.nc.is_connected:
            queue.put_nowait(asyncio.get_running_loop().create_future())


def _header_block(headers: Mapping[str, str]) -> bytes:
    """`NATS/1.0` and the header lines, as nats-py writes them (an empty key is left out)."""
    if len(headers) == 1:  # the usual case (a compare-and-set, a message id): one line
        ((key, raw),) = headers.items()
        prefix = _KEY_PREFIXES.get(key)
        if prefix is not None and "\r" not in raw and "\n" not in raw:
            return b"NATS/1.0\r\n%s%s\r\n\r\n" % (prefix, raw.strip().encode())
    parts = [b"NATS/1.0\r\n"]
    for key, raw in headers.items():
        prefix = _KEY_PREFIXES.get(key)
        if prefix is None:
            prefix = _key_prefix(key)
            if prefix is None:
                continue
        value = raw.translate(_NEWLINES) if "\r" in raw or "\n" in raw else raw
        parts.append(prefix + value.strip().encode() + b"\r\n")
    parts.append(b"\r\n")
    return b"".join(parts)


def _key_prefix(key: str) -> bytes | None:
    """`Key: ` for a valid header key (remembered: the same few keys come back every message)."""
    name = key.strip()
    if not name:
        return None
    if not _HEADER_KEY.fullmatch(name):
        raise nats.errors.BadHeaderError(name)
    prefix = name.encode() + b": "
    if len(_KEY_PREFIXES) < _KEY_PREFIXES_KEPT:
        _KEY_PREFIXES[key] = prefix
    return prefix
