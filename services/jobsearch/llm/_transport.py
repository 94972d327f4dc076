"""The HTTP side every remote provider shares: limits, pauses, retries, spans and scrubbed errors.

A provider describes its wire format (`build`, `parse`, `classify`); `HttpProvider.complete` sends
it, at most `LLM_RETRIES + 1` requests a call. Transient answers (408, 409, 429, 5xx, Anthropic's
529, network errors) are retried. A wait the provider names (`retry-after-ms`, `retry-after`,
Gemini's `RetryInfo`) pauses the provider for every call of the service (`jobsearch.llm.pause`):
each request, the first and every retry, waits for the pause to end when it ends before the call's
deadline, and otherwise the call ends in `RateLimited` without sending, so the chain goes on to the
next provider (or the job gives its worker slot back, jetjobs `Retry`). Without a named wait a
retry follows our backoff, slept in the call when it is at most `LLM_MAX_INLINE_WAIT` (else the
provider counts as down for this call). Quota and spend errors are never retried. Every request
sent is a span (`jobsearch.llm.spans`).
"""

from __future__ import annotations

import contextlib
import enum
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import httpx
import msgspec
from opentelemetry import trace
from opentelemetry.trace import Span

from jetjobs import backoff_delay
from jobsearch.llm import spans
from jobsearch.llm.errors import (
    BadResponse,
    ProviderDown,
    ProviderError,
    ProviderRejected,
    QuotaExhausted,
)
from jobsearch.llm.limits import ProviderLimits
from jobsearch.llm.messages import LlmRequest, Reply
from jobsearch.llm.pause import Pause
from jobsearch.llm.prices import PriceTable
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

    operation = spans.CHAT  # gen_ai.operation.name of its requests

    def __init__(
        self,
        settings: ProviderSettings,
        llm: LlmSettings,
        http: httpx.AsyncClient,
        limits: ProviderLimits,
        *,
        pause: Pause | None = None,
        tracer: trace.Tracer | None = None,
    ) -> None:
        """`pause` is shared by every call of the client (one per provider); `tracer` gets the spans."""
        self.name = settings.name
        self.settings = settings
        self.llm = llm
        self.http = http
        self.limits = limits
        self.pause = pause or Pause(self.name)
        self.tracer = tracer or spans.llm_tracer()
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

    async def complete(self, request: LlmRequest, model: str, *, deadline: float | None = None) -> Reply:
        """Answer `request` with `model`, waiting for the provider's pause until `deadline` at most.

        Args:
            request: the call.
            model: the model to ask.
            deadline: the latest moment, on the pause's clock, this call may wait for a pause
                until (default: `LLM_MAX_RUN_WAIT` from now).
        """
        url, headers, body = self.build(request, model)
        if deadline is None:
            deadline = self.pause.clock.now() + self.llm.max_run_wait
        attempts = self.llm.retries + 1
        last: Failure | None = None
        for attempt in range(attempts):
            backoff: float | None = None
            async with self._admitted(request, deadline, sent=attempt):
                with spans.call_span(
                    self.tracer,
                    self.name,
                    model,
                    request,
                    operation=self.operation,
                    url=url,
                    resend=attempt,
                    content=self.llm.trace_content,
                ) as span:
                    outcome = await self._exchange(span, url, headers, body, model)
                    if isinstance(outcome, Reply):
                        return outcome
                    last = outcome
                    if last.delay is not None:
                        # Held before the slot is given back: a call queued for it must see the pause.
                        self.pause.hold(last.delay, last.reason)
                    if attempt + 1 < attempts:
                        if last.delay is not None:  # the pause's: waited out when next admitted
                            spans.retrying(span, last.delay)
                        else:
                            backoff = _backoff(attempt + 1)
                            if backoff <= self.llm.max_inline_wait:
                                spans.retrying(span, backoff)
            if backoff is not None:
                if backoff > self.llm.max_inline_wait:  # not slept in the job: the provider is down
                    raise ProviderDown(self.name, f"{last.reason} ({_requests(attempt + 1)})")
                await anyio.sleep(backoff)
        assert last is not None
        if last.delay is not None and last.delay > 0:
            raise self.pause.limited(attempts)
        raise ProviderDown(self.name, f"{last.reason} ({_requests(attempts)})")

    @contextlib.asynccontextmanager
    async def _admitted(self, request: LlmRequest, deadline: float, *, sent: int) -> AsyncIterator[None]:
        """Hold one of the provider's slots at a moment it is not paused.

        A pause that begins while the call is queued for a slot (behind the concurrency limit or
        a minute limit) interrupts the queueing: the call waits for the pause, or gives up, then.

        Raises:
            RateLimited: the provider is paused past `deadline`; no request was sent.
        """
        while True:
            await self.pause.wait(deadline, sent=sent)
            async with contextlib.AsyncExitStack() as stack:
                slot = self.limits.slot(request.estimated_tokens)
                if self.limits.immediate:  # no queue, so nothing to interrupt
                    await stack.enter_async_context(slot)
                else:
                    with self.pause.interruptible() as queued:
                        await stack.enter_async_context(slot)
                    if queued.cancelled_caught:
                        continue
                # Taking even a free slot yields to the loop, where a pause may have begun.
                if not self.pause.active:
                    yield
                    return

    async def _exchange(
        self, span: Span, url: str, headers: dict[str, str], body: dict[str, Any], model: str
    ) -> Reply | Failure:
        """Send the request once: the reply, or the transient failure to retry (told to `span`).

        Raises:
            QuotaExhausted, ProviderRejected, BadResponse: what no retry of this request fixes.
        """
        try:
            response = await self.http.post(url, headers=headers, json=body, timeout=self.llm.timeout)
        except httpx.TimeoutException:
            failure = Failure(Verdict.RETRY, f"no answer within {self.llm.timeout:g}s")
            spans.failed(span, "timeout", failure.verdict.value, failure.reason)
            return failure
        except httpx.TransportError as exc:
            failure = Failure(Verdict.RETRY, f"connection failed: {type(exc).__name__}")
            spans.failed(span, type(exc).__name__, failure.verdict.value, failure.reason)
            return failure
        status = response.status_code
        data = decode_json(response.content)
        if response.is_success:
            try:
                if data is None:
                    raise BadResponse(self.name, f"HTTP {status} body is not JSON")
                reply = self.parse(data, model)
            except BadResponse as exc:
                spans.failed(span, "BadResponse", "bad_response", exc.message, status=status)
                raise
            cost = reply_cost(self.llm.prices, self.name, model, reply)
            spans.answered(span, reply, cost, status=status, content=self.llm.trace_content)
            return reply
        reason = self.scrub(f"HTTP {status}: {self.error_message(data, response.content)}")
        failure = self.classify(status, response.headers, data, reason)
        spans.refused(span, status, failure.verdict.value, failure.reason, failure.delay)
        if failure.verdict is Verdict.QUOTA:
            raise QuotaExhausted(self.name, failure.reason)
        if failure.verdict is Verdict.REJECT:
            raise ProviderRejected(self.name, failure.reason)
        return failure


def reply_cost(prices: PriceTable, provider: str, model: str, reply: Reply) -> float:
    """What `reply` cost: priced by the model that answered, else by the one asked for."""
    cost = prices.cost(provider, reply.model, reply.tokens_in, reply.tokens_out)
    if cost == 0 and reply.model != model:
        cost = prices.cost(provider, model, reply.tokens_in, reply.tokens_out)
    return cost


def text_or_none(value: Any) -> str | None:
    """`value` if it is a non-empty string (an optional field of an answer)."""
    return value if isinstance(value, str) and value else None


def _requests(count: int) -> str:
    return f"{count} request{'s' if count != 1 else ''}"


def _backoff(attempt: int) -> float:
    """Exponential backoff, anywhere from 0 up to 0.5 s, 1 s, 2 s... capped at 8 s."""
    return backoff_delay(attempt, base=0.25, cap=8.0, jitter=1.0)


def bad(provider: str, what: str) -> ProviderError:
    """A `BadResponse` naming what was missing."""
    return BadResponse(provider, f"answer without {what}")
