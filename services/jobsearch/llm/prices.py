"""What a call costs: a price table in US dollars per million tokens, which the user can override.

The built-in prices are the providers' published list prices for their standard tiers when this
table was written; they change. `LLM_PRICES_FILE` names a TOML file whose entries replace or add
to them:

```toml
["anthropic/claude-haiku-4-5"]
input = 1.0     # USD per million input tokens
output = 5.0    # USD per million output tokens

["ollama/*"]    # a provider-wide price: any model of that provider without its own entry
input = 0
output = 0
```
A model with no entry (and no provider-wide one) costs 0 and the draft says so in its log line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec

from jobsearch.llm.errors import LlmConfigError

Usd = Annotated[float, msgspec.Meta(ge=0)]


class Price(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """USD per million tokens, in and out."""

    input: Usd
    output: Usd


DEFAULT_PRICES: dict[str, Price] = {
    "anthropic/claude-haiku-4-5": Price(1.0, 5.0),
    "anthropic/claude-sonnet-4-5": Price(3.0, 15.0),
    "anthropic/claude-opus-4-1": Price(15.0, 75.0),
    "openai/gpt-4o-mini": Price(0.15, 0.60),
    "openai/gpt-4o": Price(2.50, 10.0),
    "openai/gpt-4.1-mini": Price(0.40, 1.60),
    "openai/gpt-5-mini": Price(0.25, 2.0),
    "openai/gpt-5": Price(1.25, 10.0),
    "gemini/gemini-2.5-flash": Price(0.30, 2.50),
    "gemini/gemini-2.5-flash-lite": Price(0.10, 0.40),
    "gemini/gemini-2.5-pro": Price(1.25, 10.0),
    "deepseek/deepseek-chat": Price(0.28, 0.42),
    "deepseek/deepseek-reasoner": Price(0.28, 0.42),
    "opencode/kimi-k2": Price(0.60, 2.50),
    "opencode/glm-4.6": Price(0.60, 2.20),
    "opencode/qwen3-coder": Price(0.45, 1.80),
    "ollama/*": Price(0.0, 0.0),
    "offline/*": Price(0.0, 0.0),
}


class PriceTable:
    """Looks up a (provider, model) price: exact entry, then the provider's `*` entry."""

    def __init__(self, prices: Mapping[str, Price]) -> None:
        self._prices = dict(prices)

    def price(self, provider: str, model: str) -> Price | None:
        """The price of `model` at `provider`, or None when the table has none."""
        return self._prices.get(f"{provider}/{model}") or self._prices.get(f"{provider}/*")

    def cost(self, provider: str, model: str, tokens_in: int, tokens_out: int) -> float:
        """Estimated USD for one call (0 when the table has no price for it)."""
        price = self.price(provider, model)
        if price is None:
            return 0.0
        return (tokens_in * price.input + tokens_out * price.output) / 1_000_000


def load_prices(path: str | None) -> PriceTable:
    """The built-in table, overridden by the TOML file at `path` (`LLM_PRICES_FILE`) if given."""
    prices = dict(DEFAULT_PRICES)
    if path:
        try:
            raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            prices |= msgspec.convert(raw, dict[str, Price])
        except (OSError, tomllib.TOMLDecodeError, msgspec.ValidationError) as exc:
            raise LlmConfigError(
                f"LLM_PRICES_FILE={path}: {exc} (expected TOML tables like "
                '["openai/gpt-4o-mini"] with input = and output = in USD per million tokens)'
            ) from None
    return PriceTable(prices)
