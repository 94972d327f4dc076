"""What a finished handler means for its delivery: the pure mapping from result to action.

| handler ended with                    | attempts left | outcome                    | delivery |
|---------------------------------------|---------------|----------------------------|----------|
| a return value                        | any           | Succeeded(result)          | ack      |
| Retry(delay) / any exception          | yes           | RetryLater(delay)          | nak(delay) |
| Retry(delay) / any exception          | no            | Dead("exhausted")          | DLQ, term |
| timeout                               | yes / no      | RetryLater / Dead("timeout") | nak / DLQ, term |
| Reject(reason)                        | any           | Dead("rejected")           | DLQ, term |
| InvalidJob (payload fails its schema) | any           | Dead("invalid")            | DLQ, term |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jetjobs._errors import InvalidJob, JobTimeout, Reject, Retry, describe_error
from jetjobs._observability.redact import mask_url
from jetjobs._runtime.backoff import backoff_delay
from jetjobs._settings import Settings
from jetjobs._wire.envelope import DeadReason


@dataclass(frozen=True, slots=True)
class Succeeded:
    """The handler returned; `result` is recorded in the ledger."""

    result: Any


@dataclass(frozen=True, slots=True)
class RetryLater:
    """Redeliver after `delay` seconds."""

    delay: float
    error: str


@dataclass(frozen=True, slots=True)
class Dead:
    """Dead-letter the job and stop delivering it."""

    reason: DeadReason
    error: str


Outcome = Succeeded | RetryLater | Dead


@dataclass(frozen=True, slots=True)
class Backoff:
    """The retry delays of failed jobs: doubling from `base` seconds, capped at `cap`, spread by
    +/- `jitter` (a fraction)."""

    base: float
    cap: float
    jitter: float

    @classmethod
    def of(cls, settings: Settings) -> Backoff:
        """The backoff a worker's settings give (`backoff_base`, `backoff_max`, `backoff_jitter`)."""
        return cls(settings.backoff_base, settings.backoff_max, settings.backoff_jitter)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1`, after `attempt` failures."""
        return backoff_delay(attempt, base=self.base, cap=self.cap, jitter=self.jitter)


def classify(
    error: BaseException | None, result: Any, *, attempt: int, max_attempts: int, backoff: Backoff
) -> Outcome:
    """Map a handler's ending (its exception, or its result) to an outcome."""
    if error is None:
        return Succeeded(result)
    if isinstance(error, Reject):
        return Dead("rejected", mask_url(error.reason))
    if isinstance(error, InvalidJob):
        return Dead("invalid", mask_url(str(error)))
    message = describe_error(error)
    if attempt >= max_attempts:
        return Dead("timeout" if isinstance(error, JobTimeout) else "exhausted", message)
    delay = error.delay if isinstance(error, Retry) else None
    if delay is None:
        delay = backoff.delay(attempt)
    return RetryLater(delay, message)
