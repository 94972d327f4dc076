"""The HTTP side every remote provider shares: limits, retries, waits and scrubbed errors.

A provider describes its wire format (`build`, `parse`, `classify`); `HttpProvider.complete` sends
it. Transient answers (408, 409, 429, 5xx, Anthropic's 529, network errors) are retried up to
`LLM_RETRIES` times; a wait the provider names (`retry-after-ms`, `retry-after`, Gemini's
`RetryInfo`) is honoured in-process when it is at most `LLM_MAX_INLINE_WAIT`, and otherwise raised
as `RateLimited(delay)` so the job gives its worker slot back (jetjobs `Retry(delay)`) or the call
falls over. Quota and spend errors are never retried.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import httpx
import msgspec

from jetjobs import backoff_delay
from jobsearch.llm.errors import (
    BadResponse,
    ProviderDown,
    ProviderError,
    ProviderRejected,
    QuotaExhausted,
    RateLimited,
)
from jobsearch.llm.limits import ProviderLimits
from jobsearch.llm.messages import LlmRequest, Reply
from jobsearch.llm.settings import LlmSettings, ProviderSettings
from jobsearch.retry_after import retry_after as header_retry_after

TRANSIENT_STATUSES = frozenset({408, 409, 429, 529})
_JSON = msgspec.json.Decoder()


class Verdict(enum.Enum):
    """What an error answer means for the call."""

    RETRY = "retry"  # transient: wait and send again
    QUOTA = "quota"  # out of money or quota: never retry, fall over
    REJECT = "reject"  # the request itself is refused: fall over


class Failure(msgspec.Struct, frozen=True):
    """A classified error answer: the verdict, the wait the provider asked for, a short reason."""

    verdict: Verdict
    reason: str
    delay: float | None = None


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait named by `retry-after-ms` (OpenAI, Anthropic) or `retry-after` (seconds or a date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    return header_retry_after(headers.get("retry-after"))


def decode_json(body: bytes) -> Any:
    """The body as JSON, or None when it is not JSON."""
    try:
        return _JSON.decode(body)
    except msgspec.DecodeError:
        return None


def default_failure(status: int, headers: Mapping[str, str], reason: str) -> Failure:
    """The classification shared by every provider when its own rules say nothing more."""
    if status == 402:
        return Failure(Verdict.QUOTA, reason)
    if status in TRANSIENT_STATUSES or status >= 500:
        return Failure(Verdict.RETRY, reason, retry_after(headers))
    return Failure(Verdict.REJECT, reason)


class Scrubber:
    """Removes every configured key from text that leaves the provider layer."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = [s for s in secrets if s]

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text


class Provider(ABC):
    """One provider: answers an `LlmRequest` with a `Reply` or raises a `ProviderError`."""

    name: str

    @abstractmethod
    async def complete(self, request: LlmRequest, model: str) -> Reply:
        """Answer `request` with `model`."""


class HttpProvider(Provider):
    """A provider reached over HTTP; subclasses give the wire format."""

    def __init__(
        self,
        settings: ProviderSettings,
        llm: LlmSettings,
        http: httpx.AsyncClient,
        limits: ProviderLimits,
    ) -> None:
        self.name = settings.name
        self.settings = settings
        self.llm = llm
        self.http = http
        self.limits = limits
        self.scrub = Scrubber(llm.secrets)

    @abstractmethod
    def build(self, request: LlmRequest, model: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        """The URL, headers and JSON body of the request."""

    @abstractmethod
    def parse(self, data: Any, model: str) -> Reply:
        """The reply from a decoded 2xx body; raise `BadResponse` if it is not the documented shape."""

    def classify(self, status: int, headers: Mapping[str, str], data: Any, reason: str) -> Failure:
        """What an error answer means; the default follows HTTP (402 quota, 408/409/429/5xx retry)."""
        return default_failure(status, headers, reason)

    def error_message(self, data: Any, body: bytes) -> str:
        """A short human reason from an error body (`error.message` where there is one).

        Keys are scrubbed before the text is cut: a cut through an echoed key would leave a piece
        of it that the scrubber no longer recognises.
        """
        if isinstance(data, dict):
            error = data.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                return self.scrub(str(error["message"]))[:300]
            if isinstance(error, str):
                return self.scrub(error)[:300]
        return self.scrub(body[:4096].decode("utf-8", "replace"))[:200]

    async def complete(self, request: LlmRequest, model: str) -> Reply:
        url, headers, body = self.build(request, model)
        attempts = self.llm.retries + 1
        last: Failure | None = None
        for attempt in range(attempts):
            if attempt:
                assert last is not None
                wait = last.delay if last.delay is not None else _backoff(attempt)
                if wait > self.llm.max_inline_wait:
                    raise RateLimited(self.name, self.scrub(last.reason), wait)
                await anyio.sleep(wait)
            try:
                async with self.limits.slot(request.estimated_tokens):
                    response = await self.http.post(url, headers=headers, json=body, timeout=self.llm.timeout)
            except httpx.TimeoutException:
                last = Failure(Verdict.RETRY, f"no answer within {self.llm.timeout:g}s")
                continue
            except httpx.TransportError as exc:
                last = Failure(Verdict.RETRY, f"connection failed: {type(exc).__name__}")
                continue
            data = decode_json(response.content)
            if response.is_success:
                if data is None:
                    raise BadResponse(self.name, f"HTTP {response.status_code} body is not JSON")
                return self.parse(data, model)
            reason = f"HTTP {response.status_code}: {self.error_message(data, response.content)}"
            last = self.classify(response.status_code, response.headers, data, self.scrub(reason))
            if last.verdict is Verdict.QUOTA:
                raise QuotaExhausted(self.name, last.reason)
            if last.verdict is Verdict.REJECT:
                raise ProviderRejected(self.name, last.reason)
        assert last is not None
        if last.delay is not None and last.delay > 0:
            raise RateLimited(self.name, f"{last.reason} (after {attempts} attempts)", last.delay)
        raise ProviderDown(self.name, f"{last.reason} (after {attempts} attempts)")


def _backoff(attempt: int) -> float:
    """Exponential backoff, anywhere from 0 up to 0.5 s, 1 s, 2 s... capped at 8 s."""
    return backoff_delay(attempt, base=0.25, cap=8.0, jitter=1.0)


def bad(provider: str, what: str) -> ProviderError:
    """A `BadResponse` naming what was missing."""
    return BadResponse(provider, f"answer without {what}")
