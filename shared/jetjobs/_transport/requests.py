"""Requests to JetStream (publish acks, direct gets), many in flight, through one inbox.

nats-py's `js.publish` is one request at a time with a dataclass-building JSON parse, and its
`publish_async` never completes a future whose ack is an error (its reply handler raises). This is
the small piece both need: one wildcard inbox subscription whose replies resolve futures straight
from the read loop (jetjobs._transport.inbox), a future per token, acks decoded with msgspec, and JetStream
errors raised on the awaiting task (`WrongLastSequence` for a failed compare-and-set).
"""

from __future__ import annotations

import asyncio
import itertools
import time

import msgspec
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs._errors import WRONG_LAST_SEQUENCE_CODES, NoStream, StreamError, WrongLastSequence
from jetjobs._transport.inbox import subscribe_direct
from jetjobs._transport.outbound import Outbound
from jetjobs._wire.envelope import ENCODER


class _ApiError(msgspec.Struct):
    code: int = 0
    err_code: int = 0
    description: str = ""


class StreamAck(msgspec.Struct):
    """A JetStream publish acknowledgement."""

    stream: str = ""
    seq: int = 0
    duplicate: bool = False
    error: _ApiError | None = None


_ACK_DECODER = msgspec.json.Decoder(StreamAck)


class Requester:
    """Many concurrent JetStream requests over one connection and one reply subscription."""

    def __init__(self, nc: NATS, *, timeout: float = 5.0, outbound: Outbound | None = None) -> None:
        self.nc = nc
        self.timeout = timeout
        self.outbound = outbound or Outbound(nc)
        self._prefix = ""
        self._tokens = itertools.count()
        self._waiting: dict[str, tuple[asyncio.Future[Msg], float]] = {}
        # Batch gets: many replies to one token, collected until the server's closing status.
        self._collecting: dict[str, list[Msg]] = {}

    async def _ensure(self) -> None:
        if not self._prefix:
            self._prefix = self.nc.new_inbox()
            await subscribe_direct(self.nc, f"{self._prefix}.*", self._on_reply)
            # One timer for all requests instead of a timeout scope per request (the hot path).
            asyncio.get_running_loop().call_later(self.timeout / 4, self._expire)

    def _expire(self) -> None:
        now = time.monotonic()
        expired = [reply for reply, (_, deadline) in self._waiting.items() if deadline <= now]
        for reply in expired:
            future, _ = self._waiting.pop(reply)
            self._collecting.pop(reply, None)
            if not future.done():
                future.set_exception(TimeoutError(f"no reply within {self.timeout}s"))
        if not self.nc.is_closed:
            asyncio.get_running_loop().call_later(self.timeout / 4, self._expire)

    def _on_reply(self, msg: Msg) -> None:
        collected = self._collecting.get(msg.subject)
        if collected is not None:
            collected.append(msg)
            if msg.data or not msg.headers or "Status" not in msg.headers:
                return  # one of the batch; the closing status (204 EOB, 404, an error) follows
            del self._collecting[msg.subject]
        waiting = self._waiting.pop(msg.subject, None)
        if waiting is not None and not waiting[0].done():
            waiting[0].set_result(msg)

    async def send(self, subject: str, data: bytes = b"", headers: dict[str, str] | None = None) -> Reply:
        """Send now; the returned Reply is awaited later (pipelining without a task per request)."""
        if not self._prefix:
            await self._ensure()
        token, future = self._dispatch(subject, data, headers)
        return Reply(self, token, future, subject)

    def _dispatch(
        self,
        subject: str,
        data: bytes,
        headers: dict[str, str] | None,
        *,
        collected: list[Msg] | None = None,
    ) -> tuple[str, asyncio.Future[Msg]]:
        """Register a reply token (with `collected` gathering a batch's replies) and publish
        (after `_ensure`: a plain call, one coroutine fewer per request on the hot path)."""
        token = f"{self._prefix}.{next(self._tokens)}"
        future: asyncio.Future[Msg] = asyncio.get_running_loop().create_future()
        self._waiting[token] = (future, time.monotonic() + self.timeout)
        if collected is not None:
            self._collecting[token] = collected
        try:
            self.outbound.publish(subject, data, reply=token, headers=headers)
        except BaseException:
            self._waiting.pop(token, None)
            self._collecting.pop(token, None)
            raise
        return token, future

    async def request(self, subject: str, data: bytes = b"", headers: dict[str, str] | None = None) -> Msg:
        """Send and wait for the reply (TimeoutError after `timeout` to `1.25 * timeout` seconds)."""
        return await (await self.send(subject, data, headers)).msg()

    async def publish(self, subject: str, data: bytes, headers: dict[str, str] | None = None) -> StreamAck:
        """Publish into a stream and return its ack.

        Raises:
            WrongLastSequence: an `Nats-Expected-Last-Subject-Sequence` condition failed.
            NoStream: no stream listens on the subject (or it has no leader right now).
            StreamError: any other refusal.
            TimeoutError: no ack within `timeout`.
        """
        return await (await self.send(subject, data, headers)).ack()

    async def direct_get_last(self, stream: str, subject: str) -> Msg | None:
        """The last message on `subject` in `stream` (direct get), or None if there is none."""
        msg = await self.request(f"$JS.API.DIRECT.GET.{stream}.{subject}")
        status = (msg.headers or {}).get("Status")
        if status == "404":
            return None
        if status:
            raise StreamError(f"direct get of {subject} failed: {status} {msg.headers}", code=int(status))
        return msg

    async def send_direct_get_last_many(self, stream: str, subjects: list[str]) -> BatchReply:
        """Ask for the last message of each of `subjects` in `stream` in one request (a direct
        batch get); the returned BatchReply is awaited later. Subjects with no message are left
        out of the answer."""
        collected: list[Msg] = []
        body = ENCODER.encode(_BatchGet(multi_last=subjects, batch=len(subjects)))
        await self._ensure()
        token, future = self._dispatch(f"$JS.API.DIRECT.GET.{stream}", body, None, collected=collected)
        # Nobody may await it (every delivery of the burst handed back before its claim): a
        # timeout must not then be reported as a "Future exception was never retrieved".
        future.add_done_callback(_retrieve)
        return BatchReply(Reply(self, token, future, stream), collected)


def _retrieve(future: asyncio.Future[Msg]) -> None:
    if not future.cancelled():
        future.exception()


class _BatchGet(msgspec.Struct):
    multi_last: list[str]
    batch: int


class BatchReply:
    """A direct batch get in flight: `messages()` returns every message found."""

    def __init__(self, reply: Reply, collected: list[Msg]) -> None:
        self._reply = reply
        self._collected = collected

    async def messages(self) -> list[Msg]:
        """The messages found (in stream order), once the server has closed the batch.

        Raises:
            StreamError: the server refused the batch (too many subjects, no direct get).
            TimeoutError: it did not close the batch within the requester's timeout.
        """
        closing = await self._reply.msg()
        status = (closing.headers or {}).get("Status")
        if status not in ("204", "404"):  # 204: end of batch; 404: none of the subjects has one
            raise StreamError(f"batch get failed: {status} {closing.headers}", code=int(status or 0))
        return self._collected[:-1]


class Reply:
    """A request in flight: await `msg()` for the raw reply or `ack()` for a decoded stream ack."""

    def __init__(self, requester: Requester, token: str, future: asyncio.Future[Msg], subject: str) -> None:
        self._requester = requester
        self._token = token
        self._future = future
        self.subject = subject

    async def msg(self) -> Msg:
        """The reply message."""
        try:
            return await self._future
        finally:
            self._requester._waiting.pop(self._token, None)

    async def ack(self) -> StreamAck:
        """The stream's ack, or its refusal raised (see `Requester.publish`)."""
        msg = await self.msg()
        if not msg.data and msg.headers and msg.headers.get("Status") == "503":
            raise NoStream(f"no stream answered on {self.subject}", code=503)
        ack = _ACK_DECODER.decode(msg.data)
        if ack.error is not None:
            error = ack.error
            kind = WrongLastSequence if error.err_code in WRONG_LAST_SEQUENCE_CODES else StreamError
            raise kind(error.description, error.err_code, error.code)
        return ack
