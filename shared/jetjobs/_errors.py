"""Every exception jetjobs raises, in one tree.

```
JetJobsError
├── ConfigError               a setting is missing or wrong; raised at start
├── TopologyConflict          a stream/consumer/bucket exists with a different config
├── JobTooLarge               the encoded job exceeds the size limit; raised by the publisher
├── InvalidJob                a message is not a valid job (decode, schema, unknown type)
├── ServerError               the embedded nats-server could not start
├── StreamError               JetStream refused a request; `err_code` is the server's code
│   ├── WrongLastSequence     a compare-and-set publish lost (the ledger's CAS)
│   └── NoStream              no stream answered: missing, or electing a leader
├── JobTimeout                a handler ran past its job's timeout (retried, then `timeout`)
├── TransformError            a `data.transform` step does not fit its input (also a ValueError)
└── HandlerOutcome            raised by handlers to choose what happens to the job
    ├── Retry                 run again after `delay` seconds (counts as an attempt)
    ├── Reject                never run again: dead-letter with reason `rejected`
    └── JobCancelled          raised by `ctx.check_cancelled()`: the job was cancelled, stop now
```
"""

from __future__ import annotations

from jetjobs._observability.redact import mask_url


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


class StreamError(JetJobsError):
    """JetStream refused a request; `err_code` is the server's JetStream error code."""

    def __init__(self, description: str, err_code: int = 0, code: int = 0) -> None:
        super().__init__(description)
        self.err_code = err_code
        self.code = code


class WrongLastSequence(StreamError):
    """A compare-and-set publish lost: the subject's last sequence was not the expected one."""


# JetStream's error codes for a lost compare-and-set: wrong last sequence per subject, and the
# KV's wrong last sequence (a conditional update or delete).
WRONG_LAST_SEQUENCE_CODES = (10071, 10164)


class NoStream(StreamError):
    """No stream answered (no responders): the stream is missing or electing a leader."""


class JobTimeout(JetJobsError):
    """The handler ran past the job's timeout."""


class TransformError(JetJobsError, ValueError):
    """A `data.transform` step does not fit its input, or its expression fails on it.

    Still a ValueError, as before it joined this tree: code that catches bad values keeps working.
    """


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


def describe_error(exc: BaseException) -> str:
    """Any error as one line, `Type: message`, with URL credentials masked.

    What the ledger, the dead-letter record and every log line's `error` field carry.
    """
    text = mask_url(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
