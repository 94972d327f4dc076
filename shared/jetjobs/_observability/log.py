"""structlog setup: JSON lines off a terminal, readable console output on one.

A worker logs one line per job. structlog's own loggers write and flush each line (a system call
per job, the worker's single largest cost at a few thousand jobs a second), so JSON lines go
through `CoalescingWriter`: the lines of one event-loop iteration leave in one write, flushed
before the loop runs anything else. Nothing is held across iterations or past exit.
"""

from __future__ import annotations

import asyncio
import atexit
import io
import logging
import sys
import time
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import Any, BinaryIO, TextIO

import msgspec
import structlog

from jetjobs._observability.redact import mask_log_secrets, mask_url

_ENCODER = msgspec.json.Encoder(enc_hook=str)


class _Clock:
    """`TimeStamper(fmt="iso", utc=True)`'s text, with the date and time formatted once a second."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def iso_utc(self, now: float) -> str:
        """`now` (Unix time) as `2026-11-30T14:38:17.123456Z` (no fraction at a whole second)."""
        second = int(now)
        micro = round((now - second) * 1_000_000)  # half to even, as datetime rounds
        if micro == 1_000_000:
            second, micro = second + 1, 0
        if second != self._second:
            self._second = second
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return f"{self._prefix}.{micro:06d}Z" if micro else f"{self._prefix}Z"


_CLOCK = _Clock()


def json_line(logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> bytes:
    """The JSON-lines pipeline as one processor: context, level, timestamp, traceback, masked
    secrets, rendered by msgspec (a worker writes a line per job; six processors cost a quarter more).
    """
    event_dict = structlog.contextvars.merge_contextvars(logger, method_name, event_dict)
    event_dict = structlog.processors.add_log_level(logger, method_name, event_dict)
    event_dict["timestamp"] = _CLOCK.iso_utc(time.time())
    if "exc_info" in event_dict:
        event_dict = structlog.processors.format_exc_info(logger, method_name, event_dict)
    return _ENCODER.encode(mask_log_secrets(logger, method_name, event_dict))


class CoalescingWriter:
    """A structlog logger writing bytes lines; one write per event-loop iteration.

    Outside a running event loop (start-up, threads running sync handlers) a line is written at
    once.
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._pending: list[bytes] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        atexit.register(self.flush)

    def msg(self, message: bytes) -> None:
        """Queue one line for the end of this loop iteration (or write it now, outside a loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._write([message])
            return
        if not self._pending:
            loop.call_soon(self.flush)
        self._pending.append(message)

    log = debug = info = warn = warning = err = error = critical = exception = fatal = failure = msg

    def flush(self) -> None:
        """Write everything queued."""
        if self._pending:
            lines, self._pending = self._pending, []
            self._write(lines)

    def _write(self, lines: list[bytes]) -> None:
        try:
            self._file.write(b"\n".join(lines) + b"\n")
            self._file.flush()
        except (OSError, ValueError):  # stderr closed (the reader went away): logs are best effort
            pass


class CoalescingWriterFactory:
    """structlog logger factory: one shared CoalescingWriter per process."""

    def __init__(self, file: BinaryIO) -> None:
        self._writer = CoalescingWriter(file)

    def __call__(self, *args: object) -> CoalescingWriter:
        return self._writer


def _masked_traceback(sio: TextIO, exc_info: structlog.typing.ExcInfo) -> None:
    """The console renderer's traceback, with URL credentials masked (the JSON one is a value).

    Plain text, never rich's: rich colours parts of a URL apart, so a mask could not match it.
    """
    buffer = io.StringIO()
    structlog.dev.plain_traceback(buffer, exc_info)
    sio.write(mask_url(buffer.getvalue()))


class StdlibRecords(logging.Handler):
    """Records of the standard library's `logging` (asyncio, nats-py, ...) as lines of this log.

    Without it they reach stderr through logging's last-resort handler, tracebacks over several
    lines, in the middle of a JSON-lines log.
    """

    def emit(self, record: logging.LogRecord) -> None:
        """Log the record through structlog: one line, its traceback (if any) inside it."""
        extra: dict[str, object] = {"logger": record.name}
        if record.exc_info:
            extra["exc_info"] = record.exc_info
        structlog.get_logger(record.name).log(record.levelno, record.getMessage(), **extra)


def configure_logging(*, json: bool | None = None, level: str = "INFO") -> None:
    """Configure structlog once per process. `json=None` picks by whether stderr is a terminal."""
    if json is None:
        json = not sys.stderr.isatty()
    processors: list[structlog.types.Processor] = (
        [json_line]
        if json
        else [
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            mask_log_secrets,  # URL passwords and tokens, wherever a value or traceback has one
            structlog.dev.ConsoleRenderer(exception_formatter=_masked_traceback),
        ]
    )
    factory: structlog.types.WrappedLogger = (
        CoalescingWriterFactory(sys.stderr.buffer) if json else structlog.PrintLoggerFactory(sys.stderr)
    )
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
    logging.basicConfig(handlers=[StdlibRecords()], level=logging.WARNING, force=True)
