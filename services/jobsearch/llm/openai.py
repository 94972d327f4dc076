"""OpenAI's Chat Completions, and the two gateways that speak it: DeepSeek and OpenCode Zen.

`POST {BASE_URL}/chat/completions` with `Authorization: Bearer <key>`; messages `system` then
`user`; the text in `choices[0].message.content`, usage in `usage.prompt_tokens` /
`usage.completion_tokens`. Errors are `{"error": {"message", "type", "code"}}` (OpenCode also
sends `{"type": "error", "error": {...}}`).

- OpenAI (`https://api.openai.com/v1`): `max_completion_tokens`; a 429 whose code or type is
  `insufficient_quota` is quota, not a rate limit; `retry-after-ms` / `retry-after` honoured.
- DeepSeek (`https://api.deepseek.com`): `max_tokens`; 402 "Insufficient Balance" is quota,
  429 rate limit and 503 overload are retried.
- OpenCode Zen (`https://opencode.ai/zen/v1`): its OpenAI-compatible route `/chat/completions`,
  which serves the Zen models listed for that endpoint (e.g. `kimi-k2`, `glm-4.6`,
  `qwen3-coder`); Zen serves Claude models on `/messages` and GPT models on `/responses`, which
  this provider does not use: pick a chat-completions model, or use the anthropic/openai providers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobsearch.llm._transport import (
    Failure,
    HttpProvider,
    Verdict,
    bad,
    default_failure,
    text_or_none,
)
from jobsearch.llm.messages import LlmRequest, Reply


class ChatCompletions(HttpProvider):
    """The Chat Completions wire format."""

    max_tokens_field = "max_tokens"

    def build(self, request: LlmRequest, model: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        assert self.settings.api_key is not None
        headers = {
            "authorization": f"Bearer {self.settings.api_key.reveal()}",
            "content-type": "application/json",
        }
        body = {
            "model": model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.prompt},
            ],
            self.max_tokens_field: request.max_tokens,
            "stream": False,
        }
        return f"{self.settings.base_url}/chat/completions", headers, body

    def parse(self, data: Any, model: str) -> Reply:
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise bad(self.name, "choices")
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str) or not content.strip():
            raise bad(self.name, "message content")
        usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
        return Reply(
            text=content,
            model=str(data.get("model") or model),
            tokens_in=int(usage.get("prompt_tokens") or 0),
            tokens_out=int(usage.get("completion_tokens") or 0),
            finish_reason=text_or_none(choices[0].get("finish_reason")),
        )

    def classify(self, status: int, headers: Mapping[str, str], data: Any, reason: str) -> Failure:
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            codes = {str(error.get("code") or ""), str(error.get("type") or "")}
            if codes & {"insufficient_quota", "billing_hard_limit_reached", "insufficient_balance"}:
                return Failure(Verdict.QUOTA, reason)
        return default_failure(status, headers, reason)


class OpenAI(ChatCompletions):
    """OpenAI itself."""

    max_tokens_field = "max_completion_tokens"


class DeepSeek(ChatCompletions):
    """DeepSeek's OpenAI-compatible API (402 Insufficient Balance is quota by the shared rule)."""


class OpenCode(ChatCompletions):
    """OpenCode Zen's OpenAI-compatible `/chat/completions` route."""
