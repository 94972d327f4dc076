"""Every exception the provider layer raises, in one tree.

```
LlmError
├── LlmConfigError        a variable is missing or wrong; raised at service start (a jetjobs ConfigError)
└── ProviderError         one provider could not answer this call; `provider` names it
    ├── QuotaExhausted    money or quota ran out (OpenAI insufficient_quota, DeepSeek 402, Anthropic
    │                     spend limit): never retried, the call falls over to the next provider
    ├── RateLimited       the provider is paused (it named a wait) past what this call may wait:
    │                     `delay`, `retry_at`
    ├── ProviderDown      retries used up on 408/409/429/5xx/529 or a network error: falls over
    ├── BadResponse       the answer did not have the documented shape: falls over
    └── ProviderRejected  a request error that no retry fixes (400, 401, 403, 404): falls over
└── AllProvidersFailed    every provider of the chain failed (`transient`: worth a later retry;
                          `waiting_until`: every one is paused, until then at the earliest)
```
Messages never carry an API key: the transport scrubs every configured key from what it reports.
Times in messages are UTC, like the service's log lines ("asked to retry at 08:10:30 UTC").
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from jetjobs import ConfigError


class LlmError(Exception):
    """Root of every provider-layer exception."""


class LlmConfigError(LlmError, ConfigError):
    """A setting is missing or invalid; the message names the variable and what to fix."""


class ProviderError(LlmError):
    """One provider failed this call."""

    def __init__(self, provider: str, message: str) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.message = message


class QuotaExhausted(ProviderError):
    """The account is out of money or quota: retrying cannot help until a person acts."""


class RateLimited(ProviderError):
    """The provider may be asked again in `delay` seconds, at `retry_at` (UTC).

    It named the wait (Retry-After, Gemini RetryInfo), and the wait is longer than this call may
    spend on it; no request is sent to a provider while it is paused.
    """

    def __init__(self, provider: str, message: str, delay: float, retry_at: datetime | None = None) -> None:
        super().__init__(provider, message)
        self.delay = delay
        self.retry_at = retry_at if retry_at is not None else datetime.now(UTC) + timedelta(seconds=delay)


class ProviderDown(ProviderError):
    """Transient failures outlasted the in-process retries (overload, 5xx, timeouts)."""


class BadResponse(ProviderError):
    """The body was not the provider's documented shape (not JSON, no text, no choices)."""


class ProviderRejected(ProviderError):
    """The provider refused the request itself (bad key, unknown model, invalid field)."""


class AllProvidersFailed(LlmError):
    """Every provider of a step's chain failed; `failures` says how, in order."""

    def __init__(self, step: str, failures: list[ProviderError]) -> None:
        reasons = "; ".join(str(f) for f in failures)
        super().__init__(f"{step}: every provider failed: {reasons}")
        self.failures = failures

    @property
    def transient(self) -> bool:
        """Whether waiting could help (an outage or a rate limit, not quota or a refused request)."""
        return any(isinstance(f, RateLimited | ProviderDown | BadResponse) for f in self.failures)

    @property
    def retry_after(self) -> float | None:
        """The shortest wait a rate-limited provider asked for, if any did."""
        delays = [f.delay for f in self.failures if isinstance(f, RateLimited)]
        return min(delays) if delays else None

    @property
    def waiting_until(self) -> datetime | None:
        """When every failure was a pause longer than the call could wait: the earliest moment
        (UTC) one of the providers may be asked again. None when any failed otherwise."""
        if not self.failures or not all(isinstance(f, RateLimited) for f in self.failures):
            return None
        return min(f.retry_at for f in self.failures if isinstance(f, RateLimited))


def clock_time(moment: datetime) -> str:
    """`moment` as the messages show it: "08:10:30 UTC", with the date when it is not today's."""
    moment = moment.astimezone(UTC)
    if moment.date() == datetime.now(UTC).date():
        return moment.strftime("%H:%M:%S UTC")
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
