"""classify(): the pure mapping from a handler's ending to succeed, retry later, or dead-letter."""

from __future__ import annotations

import pytest

from jetjobs._errors import InvalidJob, JobTimeout, Reject, Retry, describe_error
from jetjobs._runtime.backoff import backoff_delay
from jetjobs._runtime.outcome import Backoff, Dead, RetryLater, Succeeded, classify

# No jitter, so the expected backoff delay is exact.
BACKOFF = Backoff(base=2.0, cap=60.0, jitter=0.0)


def test_return_value_succeeds() -> None:
    """A handler that returned succeeds with its result, even on its last attempt."""
    assert classify(None, {"rows": 3}, attempt=1, max_attempts=5, backoff=BACKOFF) == Succeeded({"rows": 3})
    assert classify(None, None, attempt=5, max_attempts=5, backoff=BACKOFF) == Succeeded(None)


@pytest.mark.parametrize("attempt", [1, 5])
def test_reject_is_dead_rejected_at_any_attempt(attempt: int) -> None:
    """Reject dead-letters at once with reason `rejected` and the handler's reason as error."""
    outcome = classify(Reject("address bounced"), None, attempt=attempt, max_attempts=5, backoff=BACKOFF)
    assert outcome == Dead("rejected", "address bounced")


@pytest.mark.parametrize("attempt", [1, 5])
def test_invalid_job_is_dead_invalid(attempt: int) -> None:
    """InvalidJob (a payload failing its schema) dead-letters with reason `invalid`."""
    error = InvalidJob("payload of x.y does not match its schema: Expected `int`")
    outcome = classify(error, None, attempt=attempt, max_attempts=5, backoff=BACKOFF)
    assert outcome == Dead("invalid", "payload of x.y does not match its schema: Expected `int`")


def test_exception_with_attempts_left_retries_with_backoff() -> None:
    """Any other exception before the last attempt retries after the backoff delay."""
    outcome = classify(ValueError("bad row"), None, attempt=3, max_attempts=5, backoff=BACKOFF)
    expected = backoff_delay(3, base=2.0, cap=60.0, jitter=0.0)
    assert expected == 8.0
    assert outcome == RetryLater(8.0, "ValueError: bad row")


def test_retry_delay_is_used_as_given() -> None:
    """Retry(delay=7) retries after exactly 7 seconds, whatever the backoff would say."""
    outcome = classify(Retry(delay=7), None, attempt=1, max_attempts=5, backoff=BACKOFF)
    assert isinstance(outcome, RetryLater)
    assert outcome.delay == 7
    assert outcome.error == "Retry: retry requested"


def test_retry_without_delay_uses_backoff() -> None:
    """Retry() with no delay falls back to the backoff delay."""
    outcome = classify(Retry(reason="busy"), None, attempt=2, max_attempts=5, backoff=BACKOFF)
    assert outcome == RetryLater(4.0, "Retry: busy")


@pytest.mark.parametrize("attempt", [5, 6])
def test_exhausted_is_dead_exhausted(attempt: int) -> None:
    """An exception (or Retry) at or past the last attempt dead-letters with reason `exhausted`."""
    error = ConnectionError("upstream down")
    outcome = classify(error, None, attempt=attempt, max_attempts=5, backoff=BACKOFF)
    assert outcome == Dead("exhausted", "ConnectionError: upstream down")
    retry = classify(Retry(delay=1), None, attempt=attempt, max_attempts=5, backoff=BACKOFF)
    assert retry == Dead("exhausted", "Retry: retry requested")


def test_timeout_retries_until_the_last_attempt_then_dead_timeout() -> None:
    """A timeout retries with backoff while attempts remain; at the last it is dead `timeout`."""
    error = JobTimeout("handler ran longer than the job's timeout of 1.0s")
    early = classify(error, None, attempt=1, max_attempts=2, backoff=BACKOFF)
    assert early == RetryLater(2.0, "JobTimeout: handler ran longer than the job's timeout of 1.0s")
    last = classify(error, None, attempt=2, max_attempts=2, backoff=BACKOFF)
    assert last == Dead("timeout", "JobTimeout: handler ran longer than the job's timeout of 1.0s")


def test_describe_names_the_exception_type() -> None:
    """The error text is `Type: message`, or just the type when the message is empty."""
    assert describe_error(KeyError("k")) == "KeyError: 'k'"
    assert describe_error(RuntimeError()) == "RuntimeError"
