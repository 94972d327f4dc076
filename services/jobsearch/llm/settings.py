"""The provider layer's configuration, read once from the environment at service start.

Routing: each drafting step names its provider and model, with a fallback chain.

| variable | meaning | default |
|---|---|---|
| `LLM_PROVIDER`, `LLM_MODEL`, `LLM_FALLBACK` | every step's default | `offline`, the provider's model, none |
| `<STEP>_PROVIDER`, `<STEP>_MODEL`, `<STEP>_FALLBACK` | one step (`COVER_LETTER`...) | the `LLM_` ones |
| `<PROVIDER>_API_KEY` | the provider's usual key variable | required when the provider is routed |
| `<PROVIDER>_BASE_URL`, `<PROVIDER>_MODEL` | endpoint and default model | the official ones |
| `<PROVIDER>_CONCURRENCY`, `_RPM`, `_TPM` | limits shared by the service's jobs | 4, none, none |
| `LLM_TIMEOUT`, `LLM_RETRIES`, `LLM_MAX_INLINE_WAIT` | seconds, retries, longest backoff slept | 60, 2, 10 |
| `LLM_MAX_RUN_WAIT` | seconds: the longest a call waits for a paused provider (a named wait) | 300 |
| `LLM_PRICES_FILE` | a TOML price table overriding the built-in one | none |
| `LLM_TRACE_CONTENT` | `1`: prompts and drafts in the provider spans (GenAI content attributes) | off |
| `FIT_PROVIDER`, `FIT_MODEL`, `FIT_FALLBACK` | a model judges the shortlist's fit (not `offline`) | none |
| `FIT_TOP` | how many listings, best local fit first, a run's shortlist has judged | 20 |
| `EXTRACT_PROVIDER`, `_MODEL`, `_FALLBACK` | a model reads HN comments rules cannot (not `offline`) | none |
| `EXTRACT_MAX` | how many such comments a source job sends to the model, at most | 50 |

A missing key, an unknown provider name or a malformed number fails here, naming the variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import ClassVar, Literal, get_args

import msgspec

from jobsearch.jobs import STEPS, Step
from jobsearch.llm.errors import LlmConfigError
from jobsearch.llm.prices import PriceTable, load_prices

ProviderName = Literal["anthropic", "openai", "gemini", "deepseek", "opencode", "ollama", "offline"]
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)

# The variable each provider's own tools read for the key (None: no key needed).
KEY_VARIABLES: dict[ProviderName, str | None] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "opencode": "OPENCODE_API_KEY",
    "ollama": None,
    "offline": None,
}
BASE_URLS: dict[ProviderName, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta",
    "deepseek": "https://api.deepseek.com",
    "opencode": "https://opencode.ai/zen/v1",
    "ollama": "http://localhost:11434",
    "offline": "",
}
DEFAULT_MODELS: dict[ProviderName, str] = {
    "anthropic": "claude-haiku-4-5",
    "openai": "gpt-4o-mini",
    "gemini": "gemini-2.5-flash",
    "deepseek": "deepseek-chat",
    "opencode": "kimi-k2",
    "ollama": "llama3.2",
    "offline": "template-v2",
}


class Secret:
    """An API key: its repr and str never show it, so no log line or trace can print it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself, for the one header that carries it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__


class ProviderSettings(msgspec.Struct, kw_only=True, frozen=True):
    """One provider: where it is, its key, its default model and the limits of this service."""

    name: ProviderName
    base_url: str
    model: str
    api_key: Secret | None = None
    key_variable: str | None = None
    concurrency: int = 4
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None


class Target(msgspec.Struct, frozen=True):
    """One link of a step's chain: a provider and the model to ask."""

    provider: ProviderName
    model: str


class LlmSettings(msgspec.Struct, kw_only=True, frozen=True):
    """Everything the provider layer needs; built by `load_llm_settings`."""

    providers: dict[str, ProviderSettings]
    routes: dict[str, list[Target]]  # step -> primary, then fallbacks
    prices: PriceTable
    timeout: float = 60.0
    retries: int = 2
    max_inline_wait: float = 10.0  # the longest backoff slept between a call's retries
    max_run_wait: float = 300.0  # the longest a call waits for a paused provider
    trace_content: bool = False  # prompts and drafts on the provider spans

    def chain(self, step: Step, pinned: str | None = None) -> list[Target]:
        """The providers to try for `step`, in order; `pinned` replaces the chain with one provider.

        Raises:
            LlmConfigError: `pinned` is not a provider name, or names one whose key is not set.
        """
        if pinned is None:
            return self.routes[step]
        if pinned not in PROVIDERS:
            raise LlmConfigError(f"unknown provider {pinned!r}; choose one of: {', '.join(PROVIDERS)}")
        provider = self.providers.get(pinned)
        if provider is None:
            variable = KEY_VARIABLES[pinned]
            raise LlmConfigError(f"provider {pinned!r} is not configured: set {variable}")
        return [Target(provider.name, provider.model)]

    @property
    def secrets(self) -> list[str]:
        """Every configured key, for scrubbing error text."""
        return [p.api_key.reveal() for p in self.providers.values() if p.api_key is not None]


def _provider(env: Mapping[str, str], variable: str) -> ProviderName:
    value = env[variable].strip().lower()
    if value not in PROVIDERS:
        raise LlmConfigError(
            f"{variable}={env[variable]!r} is not a provider; choose one of: {', '.join(PROVIDERS)}"
        )
    return value


def _chain_names(env: Mapping[str, str], variable: str) -> list[ProviderName]:
    names: list[ProviderName] = []
    for raw in env.get(variable, "").split(","):
        name = raw.strip().lower()
        if not name:
            continue
        if name not in PROVIDERS:
            raise LlmConfigError(
                f"{variable}: {raw.strip()!r} is not a provider; choose from: {', '.join(PROVIDERS)}"
            )
        names.append(name)
    return names


def _number(env: Mapping[str, str], variable: str, default: float | None, *, minimum: float) -> float | None:
    raw = env.get(variable)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise LlmConfigError(f"{variable}={raw!r} is not a number") from None
    if value < minimum:
        raise LlmConfigError(f"{variable}={raw!r} must be at least {minimum:g}")
    return value


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def _flag(env: Mapping[str, str], variable: str) -> bool:
    raw = env.get(variable, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise LlmConfigError(f"{variable}={env[variable]!r} is not a yes/no value; use 1 or 0")


def _int(env: Mapping[str, str], variable: str, default: int | None, *, minimum: int = 1) -> int | None:
    value = _number(env, variable, default, minimum=minimum)
    return None if value is None else int(value)


def _provider_settings(env: Mapping[str, str], name: ProviderName) -> ProviderSettings:
    prefix = name.upper()
    key_variable = KEY_VARIABLES[name]
    key = None
    if key_variable is not None:
        raw = env.get(key_variable, "").strip()
        if not raw:
            raise LlmConfigError(f"{name} is routed but {key_variable} is not set (or is empty)")
        key = Secret(raw)
    base_url = env.get(f"{prefix}_BASE_URL", "").strip() or BASE_URLS[name]
    if name != "offline" and not base_url.startswith(("http://", "https://")):
        raise LlmConfigError(f"{prefix}_BASE_URL={base_url!r} must start with http:// or https://")
    return ProviderSettings(
        name=name,
        base_url=base_url.rstrip("/"),
        model=env.get(f"{prefix}_MODEL", "").strip() or DEFAULT_MODELS[name],
        api_key=key,
        key_variable=key_variable,
        concurrency=_int(env, f"{prefix}_CONCURRENCY", 1 if name == "ollama" else 4) or 1,
        requests_per_minute=_int(env, f"{prefix}_RPM", None),
        tokens_per_minute=_int(env, f"{prefix}_TPM", None),
    )


FIT_STEP = "fit"  # the fit judgement's route in `LlmSettings.routes` (`jobsearch.fit.judge`)


class _OwnChain(msgspec.Struct, kw_only=True, frozen=True):
    """A model step outside drafting with a provider chain of its own (`<PREFIX>_PROVIDER`,
    `_MODEL`, `_FALLBACK`): an `LlmSettings` whose only route is `STEP`."""

    STEP: ClassVar[str]
    llm: LlmSettings

    @property
    def chain(self) -> list[Target]:
        """The providers asked, in order."""
        return self.llm.routes[self.STEP]

    @property
    def by(self) -> str:
        """The first provider and model asked, as the summary names it ("openai/gpt-4o-mini")."""
        return f"{self.chain[0].provider}/{self.chain[0].model}"

    @property
    def chain_key(self) -> str:
        """The chain in words ("openai/gpt-4o-mini,anthropic/claude-haiku-4-5"): a stored
        result is reused only for the same chain."""
        return ",".join(f"{t.provider}/{t.model}" for t in self.chain)


class FitJudgeSettings(_OwnChain, kw_only=True, frozen=True):
    """The optional fit judgement (`FIT_*`), and how many of a shortlist's best listings it judges."""

    STEP: ClassVar[str] = FIT_STEP
    top: int = 20


def load_fit_settings(env: Mapping[str, str] | None = None) -> FitJudgeSettings | None:
    """The fit judgement's settings, or None when `FIT_PROVIDER` is not set (no judgement).

    Timeouts, retries, waits and prices are the `LLM_*` ones; each provider of the chain needs its
    key, as a drafting step's does.

    Raises:
        LlmConfigError: `offline` or an unknown name in the chain, a key missing, a bad number.
    """
    env = os.environ if env is None else env
    if not env.get("FIT_PROVIDER", "").strip():
        return None
    llm = _own_chain(env, "FIT", FIT_STEP, "judge fit")
    return FitJudgeSettings(llm=llm, top=_int(env, "FIT_TOP", 20) or 20)


EXTRACT_STEP = "extract"  # the comment reading's route (`jobsearch.sources.hn.extract`)


class ExtractSettings(_OwnChain, kw_only=True, frozen=True):
    """The optional model pass over the Hacker News comments the rules cannot read (`EXTRACT_*`),
    and how many comments one source job sends, at most. It never follows `LLM_PROVIDER`: scraped
    comments go to a provider only when the person names one for them."""

    STEP: ClassVar[str] = EXTRACT_STEP
    most: int = 50


def _own_chain(env: Mapping[str, str], prefix: str, step: str, what: str) -> LlmSettings:
    """The provider layer's settings for one route, `step`: the chain `<prefix>_PROVIDER`, `_MODEL`,
    `_FALLBACK` names (never `offline`), with the `LLM_*` timeouts, retries, waits and prices."""
    names = [_provider(env, f"{prefix}_PROVIDER"), *_chain_names(env, f"{prefix}_FALLBACK")]
    if "offline" in names:
        variable = f"{prefix}_PROVIDER" if names[0] == "offline" else f"{prefix}_FALLBACK"
        raise LlmConfigError(
            f"{variable}: the offline template does not {what}; name a model provider "
            f"({', '.join(p for p in PROVIDERS if p != 'offline')}) or unset {prefix}_PROVIDER"
        )
    names = list(dict.fromkeys(names))
    providers: dict[str, ProviderSettings] = {name: _provider_settings(env, name) for name in names}
    model = env.get(f"{prefix}_MODEL", "").strip() or providers[names[0]].model
    chain = [Target(names[0], model)] + [Target(name, providers[name].model) for name in names[1:]]
    return LlmSettings(
        providers=providers,
        routes={step: chain},
        prices=load_prices(env.get("LLM_PRICES_FILE", "").strip() or None),
        timeout=_number(env, "LLM_TIMEOUT", 60.0, minimum=0.1) or 60.0,
        retries=_int(env, "LLM_RETRIES", 2, minimum=0) or 0,
        max_inline_wait=_number(env, "LLM_MAX_INLINE_WAIT", 10.0, minimum=0) or 0.0,
        max_run_wait=_number(env, "LLM_MAX_RUN_WAIT", 300.0, minimum=0) or 0.0,
        trace_content=_flag(env, "LLM_TRACE_CONTENT"),
    )


def load_extract_settings(env: Mapping[str, str] | None = None) -> ExtractSettings | None:
    """The comment reading's settings, or None when `EXTRACT_PROVIDER` is not set (no model pass,
    whatever `LLM_PROVIDER` says).

    Raises:
        LlmConfigError: `offline` or an unknown name in the chain, a key missing, a bad number
            (`EXTRACT_MAX` or an `LLM_*` one).
    """
    env = os.environ if env is None else env
    if not env.get("EXTRACT_PROVIDER", "").strip():
        return None
    llm = _own_chain(env, "EXTRACT", EXTRACT_STEP, "read comments")
    return ExtractSettings(llm=llm, most=_int(env, "EXTRACT_MAX", 50) or 50)


def load_llm_settings(env: Mapping[str, str] | None = None) -> LlmSettings:
    """Read the routing, keys, endpoints, limits and prices; fail naming the variable to fix.

    Raises:
        LlmConfigError: an unknown provider, a routed provider without its key, a bad number.
    """
    env = os.environ if env is None else env
    default = _provider(env, "LLM_PROVIDER") if env.get("LLM_PROVIDER", "").strip() else "offline"
    default_fallback = _chain_names(env, "LLM_FALLBACK")
    routes_by_name: dict[str, list[tuple[ProviderName, str | None]]] = {}
    for step in STEPS:
        prefix = step.upper()
        own = env.get(f"{prefix}_PROVIDER", "").strip()
        primary = _provider(env, f"{prefix}_PROVIDER") if own else default
        model = env.get(f"{prefix}_MODEL", "").strip() or (
            None if own else env.get("LLM_MODEL", "").strip() or None
        )
        fallback = (
            _chain_names(env, f"{prefix}_FALLBACK") if f"{prefix}_FALLBACK" in env else default_fallback
        )
        chain: list[tuple[ProviderName, str | None]] = [(primary, model)]
        chain += [(name, None) for name in fallback if name != primary]
        routes_by_name[step] = chain

    # Every routed provider needs its key now; the others join only when their key is present,
    # so a job pinned to them ("re-draft with") can still run.
    routed = {name for chain in routes_by_name.values() for name, _ in chain}
    providers: dict[str, ProviderSettings] = {}
    for name in PROVIDERS:
        key_variable = KEY_VARIABLES[name]
        if name in routed or key_variable is None or env.get(key_variable, "").strip():
            providers[name] = _provider_settings(env, name)
    routes = {
        step: [Target(name, model or providers[name].model) for name, model in chain]
        for step, chain in routes_by_name.items()
    }
    return LlmSettings(
        providers=providers,
        routes=routes,
        prices=load_prices(env.get("LLM_PRICES_FILE", "").strip() or None),
        timeout=_number(env, "LLM_TIMEOUT", 60.0, minimum=0.1) or 60.0,
        retries=_int(env, "LLM_RETRIES", 2, minimum=0) or 0,
        max_inline_wait=_number(env, "LLM_MAX_INLINE_WAIT", 10.0, minimum=0) or 0.0,
        max_run_wait=_number(env, "LLM_MAX_RUN_WAIT", 300.0, minimum=0) or 0.0,
        trace_content=_flag(env, "LLM_TRACE_CONTENT"),
    )
