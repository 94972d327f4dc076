"""`LlmClient.call_llm`: one call, routed by step, falling over along the step's chain.

One client per service process: it owns the HTTP connection pool and each provider's limits, so
every job of the service shares them. A provider that is out of quota, down after its retries,
answering in a shape we cannot read, refusing the request, or asking for a long wait hands the call
to the next provider of the chain; when none is left, `AllProvidersFailed` says why for each.
"""

from __future__ import annotations

import time
from types import TracebackType

import httpx
import structlog

from jetjobs import __version__
from jobsearch.jobs import Step
from jobsearch.llm._transport import HttpProvider, Provider
from jobsearch.llm.anthropic import Anthropic
from jobsearch.llm.errors import AllProvidersFailed, LlmConfigError, ProviderError
from jobsearch.llm.gemini import Gemini
from jobsearch.llm.limits import Clock, ProviderLimits
from jobsearch.llm.messages import Completion, LlmRequest, Material
from jobsearch.llm.offline import Offline
from jobsearch.llm.ollama import Ollama
from jobsearch.llm.openai import DeepSeek, OpenAI, OpenCode
from jobsearch.llm.settings import LlmSettings, ProviderName

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
        self, settings: LlmSettings, *, http: httpx.AsyncClient | None = None, clock: Clock | None = None
    ) -> None:
        """`http` replaces the client's own connection pool; `clock` the minute limits' clock (tests)."""
        self.settings = settings
        self._own_http = http is None
        self.http = http or httpx.AsyncClient(headers={"user-agent": USER_AGENT})
        self.providers: dict[str, Provider] = {"offline": Offline()}
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
            self.providers[name] = cls(provider, settings, self.http, limits)

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

    async def call_llm(
        self,
        step: Step,
        system: str,
        prompt: str,
        *,
        max_tokens: int = 1024,
        material: Material | None = None,
        provider: str | None = None,
    ) -> Completion:
        """Ask the step's providers in turn until one answers.

        Args:
            step: which drafting step this is; it picks the chain (`<STEP>_PROVIDER`, `_FALLBACK`).
            system: the instructions.
            prompt: the user message (with untrusted text already delimited as data).
            max_tokens: the output budget.
            material: the profile and listing, for the offline provider.
            provider: pin the call to this one provider (no fallback).

        Raises:
            LlmConfigError: `provider` is unknown or not configured.
            AllProvidersFailed: no provider of the chain answered.
        """
        chain = self.settings.chain(step, provider)
        request = LlmRequest(
            step=step, system=system, prompt=prompt, max_tokens=max_tokens, material=material
        )
        failures: list[ProviderError] = []
        for target in chain:
            impl = self.providers.get(target.provider)
            if impl is None:  # routed providers are built at start; this is a pinned, unset one
                raise LlmConfigError(f"provider {target.provider!r} is not configured")
            started = time.perf_counter()
            try:
                reply = await impl.complete(request, target.model)
            except ProviderError as exc:
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
            latency_ms = (time.perf_counter() - started) * 1000
            cost = self.settings.prices.cost(target.provider, reply.model, reply.tokens_in, reply.tokens_out)
            if cost == 0 and reply.model != target.model:
                cost = self.settings.prices.cost(
                    target.provider, target.model, reply.tokens_in, reply.tokens_out
                )
            return Completion(
                text=reply.text,
                provider=target.provider,
                model=reply.model,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
                cost_usd=cost,
                latency_ms=latency_ms,
                fell_over=[str(f) for f in failures],
            )
        raise AllProvidersFailed(step, failures)
