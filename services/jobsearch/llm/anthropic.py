"""Anthropic's Messages API: `POST {ANTHROPIC_BASE_URL}/v1/messages`.

Headers `x-api-key` and `anthropic-version: 2023-06-01`; the system prompt is the top-level
`system` field; the answer's text is in `content[*].text` (type `text`) and its usage in
`usage.input_tokens` / `usage.output_tokens`. Errors are `{"type": "error", "error": {"type",
"message"}}`: 529 `overloaded_error` and 429 `rate_limit_error` are retried (with `retry-after`);
a spend limit (`billing_error`, 402, or a 429/400 whose error names the spend limit or the credit
balance) is quota and never retried.
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

API_VERSION = "2023-06-01"
_SPEND_MARKERS = ("spend limit", "credit balance", "enforced_spend_limit", "billing")


class Anthropic(HttpProvider):
    """Claude over the Messages API."""

    def build(self, request: LlmRequest, model: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        assert self.settings.api_key is not None
        headers = {
            "x-api-key": self.settings.api_key.reveal(),
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
        }
        body = {
            "model": model,
            "max_tokens": request.max_tokens,
            "system": request.system,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        return f"{self.settings.base_url}/v1/messages", headers, body

    def parse(self, data: Any, model: str) -> Reply:
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise bad(self.name, "a content list")
        parts = [
            block.get("text", "")
            for block in data["content"]
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        if not parts:
            raise bad(self.name, "a text block")
        usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
        return Reply(
            text="".join(str(p) for p in parts),
            model=str(data.get("model") or model),
            tokens_in=int(usage.get("input_tokens") or 0),
            tokens_out=int(usage.get("output_tokens") or 0),
            finish_reason=text_or_none(data.get("stop_reason")),
        )

    def classify(self, status: int, headers: Mapping[str, str], data: Any, reason: str) -> Failure:
        error = data.get("error") if isinstance(data, dict) else None
        kind = str(error.get("type", "")) if isinstance(error, dict) else ""
        text = (reason + " " + str(error)).lower()
        if kind == "billing_error" or (status in (400, 429) and any(m in text for m in _SPEND_MARKERS)):
            return Failure(Verdict.QUOTA, reason)
        return default_failure(status, headers, reason)
