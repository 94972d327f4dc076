"""Google's Gemini API: `POST {GEMINI_BASE_URL}/models/{model}:generateContent`.

The key travels in the `x-goog-api-key` header (never in the URL's `?key=`, which logs and traces
would print). The system prompt is `systemInstruction`, the output budget
`generationConfig.maxOutputTokens`; the text is in `candidates[0].content.parts[*].text`, usage in
`usageMetadata.promptTokenCount` / `candidatesTokenCount`. Errors are
`{"error": {"code", "message", "status", "details": [...]}}`: a 429 `RESOURCE_EXHAUSTED` carries a
`google.rpc.RetryInfo` detail whose `retryDelay` ("37s") is the wait; when its `QuotaFailure`
names a per-day quota, waiting minutes cannot help, so it is quota and falls over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobsearch.llm import spans
from jobsearch.llm._transport import (
    Failure,
    HttpProvider,
    Verdict,
    bad,
    default_failure,
    text_or_none,
)
from jobsearch.llm.messages import LlmRequest, Reply

_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"


def _duration(value: Any) -> float | None:
    """A protobuf JSON Duration ("37s", "1.5s") in seconds."""
    if isinstance(value, str) and value.endswith("s"):
        try:
            return max(0.0, float(value[:-1]))
        except ValueError:
            return None
    return None


class Gemini(HttpProvider):
    """Gemini over `generateContent`."""

    operation = spans.GENERATE_CONTENT

    def build(self, request: LlmRequest, model: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        assert self.settings.api_key is not None
        headers = {"x-goog-api-key": self.settings.api_key.reveal(), "content-type": "application/json"}
        body = {
            "systemInstruction": {"parts": [{"text": request.system}]},
            "contents": [{"role": "user", "parts": [{"text": request.prompt}]}],
            "generationConfig": {"maxOutputTokens": request.max_tokens},
        }
        return f"{self.settings.base_url}/models/{model}:generateContent", headers, body

    def parse(self, data: Any, model: str) -> Reply:
        candidates = data.get("candidates") if isinstance(data, dict) else None
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            raise bad(self.name, "candidates")
        content = candidates[0].get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            raise bad(self.name, f"content parts (finishReason {candidates[0].get('finishReason')})")
        text = "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
        if not text.strip():
            raise bad(self.name, "text")
        usage = data["usageMetadata"] if isinstance(data.get("usageMetadata"), dict) else {}
        return Reply(
            text=text,
            model=str(data.get("modelVersion") or model),
            tokens_in=int(usage.get("promptTokenCount") or 0),
            tokens_out=int(usage.get("candidatesTokenCount") or 0),
            finish_reason=text_or_none(candidates[0].get("finishReason")),
        )

    def classify(self, status: int, headers: Mapping[str, str], data: Any, reason: str) -> Failure:
        error = data.get("error") if isinstance(data, dict) else None
        details = error.get("details") if isinstance(error, dict) else None
        delay = None
        daily = False
        for detail in details if isinstance(details, list) else []:
            if not isinstance(detail, dict):
                continue
            if detail.get("@type") == _RETRY_INFO:
                delay = _duration(detail.get("retryDelay"))
            if detail.get("@type") == _QUOTA_FAILURE:
                violations = detail.get("violations") or []
                daily = any("perday" in str(v).lower() for v in violations)
        if status == 429 and daily:
            return Failure(Verdict.QUOTA, reason)
        failure = default_failure(status, headers, reason)
        if failure.verdict is Verdict.RETRY and delay is not None:
            return Failure(Verdict.RETRY, reason, delay)
        return failure
