"""Every exception jetjobs raises, in one tree.

```
JetJobsError
├── ConfigError               a setting is missing or wrong; raised at start
├── TopologyConflict          a stream/consumer/bucket exists with a different config
├── JobTooLarge               the encoded job exceeds the size limit; raised by the publisher
├── InvalidJob                a message is not a valid job (decode, schema, unknown type)
├── ServerError               the embedded nats-server could not start
└── HandlerOutcome            raised by handlers to choose what happens to the job
    ├── Retry                 run again after `delay` seconds (counts as an attempt)
    ├── Reject                never run again: dead-letter with reason `rejected`
    └── JobCancelled          raised by `ctx.check_cancelled()`: the job was cancelled, stop now
```
"""

from __future__ import annotations


class JetJobsError(Exception):
    """Root of every jetjobs exception."""


class ConfigError(JetJobsError):
    """A setting is missing or invalid. The message names the setting and what to fix."""


class TopologyConflict(JetJobsError):
    """A stream, consumer or bucket already exists with a configuration that differs from ours."""


class JobTooLarge(JetJobsError):
    """The encoded job is larger than the configured `max_job_bytes`."""


class InvalidJob(JetJobsError):
    """A message could not be turned into a runnable job; it goes to the dead-letter stream."""


class ServerError(JetJobsError):
    """The embedded nats-server failed to start or stopped unexpectedly."""


class HandlerOutcome(JetJobsError):
    """Base for the explicit outcomes a handler may raise."""


class Retry(HandlerOutcome):
    """Run the job again after `delay` seconds (or the backoff delay when None)."""

    def __init__(self, delay: float | None = None, reason: str = "retry requested") -> None:
        super().__init__(reason)
        self.delay = delay
        self.reason = reason


class Reject(HandlerOutcome):
    """Never run the job again: it goes to the dead-letter stream with reason `rejected`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class JobCancelled(HandlerOutcome):
    """The job was cancelled (`jetjobs cancel`) while it ran; its ledger entry says `cancelled`."""
