"""Payload checks at submit time: a job type may refuse a payload before it is published.

A worker converts every payload to its handler's type and dead-letters one that does not fit
(reason `invalid`), but by then the client is gone. A job type that registers a check here has
`Publisher.build` (so `enqueue` and `JobContext.enqueue`) run it first: the client gets an
`InvalidJob` naming what is wrong, and nothing is published. The built-in job types register
theirs when `jetjobs._builtins` is imported (which `jetjobs` does); an application may add its own:

```python
register_payload_check("invoice.render", conforms_to(InvoicePayload))
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from jetjobs._errors import InvalidJob

PayloadCheck = Callable[[Any], None]
"""Takes a payload (JSON builtins); raises ValueError, TypeError or msgspec.ValidationError to refuse it."""

_CHECKS: dict[str, PayloadCheck] = {}


def register_payload_check(job_type: str, check: PayloadCheck) -> None:
    """Run `check` on the payload of every `job_type` job this process submits (replaces an earlier one)."""
    _CHECKS[job_type] = check


def conforms_to(payload_type: Any) -> PayloadCheck:
    """A check that the payload converts to `payload_type`, as the worker will convert it."""

    def check(payload: Any) -> None:
        msgspec.convert(payload, payload_type)

    return check


def check_payload(job_type: str, payload: Any) -> None:
    """Run the check registered for `job_type`, if any.

    Raises:
        InvalidJob: the check refused the payload; the message names the type and the reason.
    """
    check = _CHECKS.get(job_type)
    if check is None:
        return
    try:
        check(payload)
    except (msgspec.ValidationError, ValueError, TypeError) as exc:
        raise InvalidJob(f"payload of {job_type} does not match its schema: {exc}") from None
