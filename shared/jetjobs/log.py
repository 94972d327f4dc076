"""structlog setup: JSON lines off a terminal, readable console output on one."""

from __future__ import annotations

import logging
import sys

import msgspec
import structlog

_ENCODER = msgspec.json.Encoder(enc_hook=str)


def _dumps(event: object, **_: object) -> str:
    # msgspec encodes a log line several times faster than json.dumps: there is one per job.
    return _ENCODER.encode(event).decode()


def configure_logging(*, json: bool | None = None, level: str = "INFO") -> None:
    """Configure structlog once per process. `json=None` picks by whether stderr is a terminal."""
    if json is None:
        json = not sys.stderr.isatty()
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer(serializer=_dumps) if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info if json else structlog.processors.StackInfoRenderer(),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
