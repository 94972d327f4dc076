"""`LlmClient.call_llm`: one call, routed by step, falling over along the step's chain.

One client per service process: it owns the HTTP connection pool, each provider's limits and each
provider's pause, so every job of the service shares them. A provider that named a wait is paused
for every call (`jobsearch.llm.pause`): a call waits the pause out when it ends within the call's
`wait_budget`, else skips that provider without a request. A provider that failed as down several
calls in a row is skipped for a while too (`jobsearch.llm.breaker`). A provider that is out of quota, down
after its retries, answering in a shape we cannot read, refusing the request, or paused past the
budget hands the call to the next provider of the chain; when none is left, `AllProvidersFailed`
says why for each.
"""

from __future__ import annotations

import time
from datetime import datetime
from types import TracebackType

import httpx
import structlog
from opentelemetry import trace

from jetjobs import __version__
from jobsearch.jobs import Step
from jobsearch.llm import spans
from jobsearch.llm._transport import HttpProvider, Provider, reply_cost
from jobsearch.llm.anthropic import Anthropic
from jobsearch.llm.breaker import Breaker
from jobsearch.llm.errors import AllProvidersFailed, BadResponse, LlmConfigError, ProviderDown, ProviderError
from jobsearch.llm.gemini import Gemini
from jobsearch.llm.limits import Clock, LoopClock, ProviderLimits
from jobsearch.llm.messages import Completion, LlmRequest, Material, Reply
from jobsearch.llm.offline import Offline
from jobsearch.llm.ollama import Ollama
from jobsearch.llm.openai import DeepSeek, OpenAI, OpenCode
from jobsearch.llm.pause import Pause
from jobsearch.llm.settings import LlmSettings, ProviderName, Target

log = structlog.get_logger("jobsearch.llm")

_HTTP_PROVIDERS: dict[ProviderName, type[HttpProvider]] = {
    "anthropic": Anthropic,
    "openai": OpenAI,
    "gemini": Gemini,
    "deepseek": DeepSeek,
    "opencode": OpenCode,
    "ollama": Ollama,
}
USER_AGENT = f"jobsearch-draft/{__version__} (+https://github.com/jetjobs/jetjobs/blob/main/docs/drafting.md)"


class LlmClient:
    """The provider layer for one service: `async with LlmClient(settings) as llm: ...`."""

    def __init__(
        self,
        settings: LlmSettings,
        *,
        http: httpx.AsyncClient | None = None,
        clock: Clock | None = None,
        tracer: trace.Tracer | None = None,
    ) -> None:
        """`http` replaces the client's own connection pool; `clock` the clock of the minute limits
        and the pauses; `tracer` the process's tracer (tests)."""
        self.settings = settings
        self._own_http = http is None
        self.http = http or httpx.AsyncClient(headers={"user-agent": USER_AGENT})
        self._clock = clock or LoopClock()
        self.tracer = tracer or spans.llm_tracer()
        self.providers: dict[str, Provider] = {"offline": Offline()}
        self._pauses: dict[str, Pause] = {}
        self._breaker = Breaker(self._clock)
        for name, provider in settings.providers.items():
            cls = _HTTP_PROVIDERS.get(provider.name)
            if cls is None:
                continue
            limits = ProviderLimits(
                provider.concurrency,
                provider.requests_per_minute,
                provider.tokens_per_minute,
                clock=clock,
            )
            pause = self._pauses[name] = Pause(name, self._clock)
            self.providers[name] = cls(provider, settings, self.http, limits, pause=pause, tracer=self.tracer)

    async def __aenter__(self) -> LlmClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool if this client opened it."""
        if self._own_http:
            await self.http.aclose()

    def pauses(self) -> dict[str, datetime]:
        """The providers paused now, each with when it may be asked again (UTC); from the event
        loop, whose clock the pauses read."""
        return {name: until for name, pause in self._pauses.items() if (until := pause.retry_at) is not None}

    async def call_llm(
        self,
        step: Step,
        system: str,
        prompt: str,
        *,
        max_tokens: int = 1024,
        material: Material | None = None,
        provider: str | None = None,
        wait_budget: float | None = None,
    ) -> Completion:
        """Ask the step's providers in turn until one answers.

        Args:
            step: which drafting step this is; it picks the chain (`<STEP>_PROVIDER`, `_FALLBACK`).
            system: the instructions.
            prompt: the user message (with untrusted text already delimited as data).
            max_tokens: the output budget.
            material: the profile and listing, for the offline provider.
            provider: pin the call to this one provider (no fallback).
            wait_budget: the most seconds this call may wait for paused providers, counted from
                now: a pause that ends later is not waited for (default and at most
                `LLM_MAX_RUN_WAIT`).

        Raises:
            LlmConfigError: `provider` is unknown or not configured.
            AllProvidersFailed: no provider of the chain answered.
        """
        chain = self.settings.chain(step, provider)
        request = LlmRequest(
            step=step, system=system, prompt=prompt, max_tokens=max_tokens, material=material
        )
        budget = self.settings.max_run_wait
        if wait_budget is not None:
            budget = min(max(wait_budget, 0.0), budget)
        deadline = self._clock.now() + budget
        failures: list[ProviderError] = []
        for target in chain:
            impl = self.providers.get(target.provider)
            if impl is None:  # routed providers are built at start; this is a pinned, unset one
                raise LlmConfigError(f"provider {target.provider!r} is not configured")
            skipped = self._breaker.check(target.provider)
            if skipped is not None:
                failures.append(skipped)
                log.warning("llm.skipped", step=step, provider=target.provider, reason=skipped.message)
                continue
            started = time.perf_counter()
            try:
                reply = await self._ask(impl, target, request, deadline)
            except ProviderError as exc:
                if isinstance(exc, ProviderDown | BadResponse):
                    self._breaker.failed(target.provider, exc.message)
                failures.append(exc)
                log.warning(
                    "llm.fell_over" if target is not chain[-1] else "llm.failed",
                    step=step,
                    provider=target.provider,
                    model=target.model,
                    error=type(exc).__name__,
                    reason=exc.message,
                )
                continue
            self._breaker.answered(target.provider)
            return Completion(
                text=reply.text,
                provider=target.provider,
                model=reply.model,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
                cost_usd=reply_cost(self.settings.prices, target.provider, target.model, reply),
                latency_ms=(time.perf_counter() - started) * 1000,
                fell_over=[str(f) for f in failures],
            )
        raise AllProvidersFailed(step, failures)

    async def _ask(self, impl: Provider, target: Target, request: LlmRequest, deadline: float) -> Reply:
        """One provider's answer. An HTTP provider traces each request it sends; a provider in
        the process (the offline template) is one span here."""
        if isinstance(impl, HttpProvider):
            return await impl.complete(request, target.model, deadline=deadline)
        content = self.settings.trace_content
        with spans.call_span(self.tracer, target.provider, target.model, request, content=content) as span:
            try:
                reply = await impl.complete(request, target.model)
            except ProviderError as exc:
                spans.failed(span, type(exc).__name__, "reject", exc.message)
                raise
            cost = reply_cost(self.settings.prices, target.provider, target.model, reply)
            spans.answered(span, reply, cost, status=None, content=content)
            return reply
