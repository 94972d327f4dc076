"""Ollama, local and free: `POST {OLLAMA_BASE_URL}/api/chat` with `"stream": false`.

No key. The output budget is `options.num_predict`; the text is `message.content`, usage
`prompt_eval_count` / `eval_count`. Errors are `{"error": "..."}`; a 404 names a model that is not
pulled (`ollama pull <model>`).
"""

from __future__ import annotations

from typing import Any

from jobsearch.llm._transport import HttpProvider, bad, text_or_none
from jobsearch.llm.messages import LlmRequest, Reply


class Ollama(HttpProvider):
    """A local Ollama server."""

    def build(self, request: LlmRequest, model: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        body = {
            "model": model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.prompt},
            ],
            "stream": False,
            "options": {"num_predict": request.max_tokens},
        }
        return f"{self.settings.base_url}/api/chat", {"content-type": "application/json"}, body

    def parse(self, data: Any, model: str) -> Reply:
        message = data.get("message") if isinstance(data, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str) or not content.strip():
            raise bad(self.name, "message content")
        return Reply(
            text=content,
            model=str(data.get("model") or model),
            tokens_in=int(data.get("prompt_eval_count") or 0),
            tokens_out=int(data.get("eval_count") or 0),
            finish_reason=text_or_none(data.get("done_reason")),
        )
