"""The provider layer: one `call_llm` over Anthropic, OpenAI, Gemini, DeepSeek, OpenCode Zen,
Ollama and an offline template, each speaking its own HTTP API through httpx.

```python
settings = load_llm_settings()          # at service start: a missing key fails here
async with LlmClient(settings) as llm:
    completion = await llm.call_llm("cover_letter", system, prompt, max_tokens=800)
```
Routing, fallback, limits and prices come from the environment (`jobsearch.llm.settings`).
"""

from jobsearch.llm.client import LlmClient
from jobsearch.llm.errors import (
    AllProvidersFailed,
    BadResponse,
    LlmConfigError,
    LlmError,
    ProviderDown,
    ProviderError,
    ProviderRejected,
    QuotaExhausted,
    RateLimited,
)
from jobsearch.llm.messages import Completion, LlmRequest, Material, Reply
from jobsearch.llm.offline import check_offline_language, offline_in_chain
from jobsearch.llm.prices import DEFAULT_PRICES, Price, PriceTable, load_prices
from jobsearch.llm.settings import PROVIDERS, LlmSettings, ProviderName, Target, load_llm_settings

__all__ = [
    "DEFAULT_PRICES",
    "PROVIDERS",
    "AllProvidersFailed",
    "BadResponse",
    "Completion",
    "LlmClient",
    "LlmConfigError",
    "LlmError",
    "LlmRequest",
    "LlmSettings",
    "Material",
    "Price",
    "PriceTable",
    "ProviderDown",
    "ProviderError",
    "ProviderName",
    "ProviderRejected",
    "QuotaExhausted",
    "RateLimited",
    "Reply",
    "Target",
    "check_offline_language",
    "load_llm_settings",
    "load_prices",
    "offline_in_chain",
]
