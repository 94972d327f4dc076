"""One local HTTP server that speaks every provider's wire format, for the provider layer's tests.

Each provider lives under its own path prefix (`/anthropic`, `/openai/v1`, `/gemini/v1beta`,
`/deepseek`, `/opencode/zen/v1`, `/ollama`), checks on its side what the real API requires (the
auth header and its scheme, the version header, the required body fields) and answers in the
documented shape with usage fields. A test scripts faults per provider (429 with retry-after, 529,
503, quota errors, malformed bodies), which are served first, in order.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEYS = {
    "anthropic": "sk-ant-test-4n7hr0p1c-SECRET",
    "openai": "sk-proj-test-0p3n41-SECRET",
    "gemini": "AIza-test-g3m1n1-SECRET",
    "deepseek": "sk-test-d33p533k-SECRET",
    "opencode": "sk-zen-test-0p3nc0d3-SECRET",
}
PREFIXES = {
    "anthropic": "/anthropic",
    "openai": "/openai/v1",
    "gemini": "/gemini/v1beta",
    "deepseek": "/deepseek",
    "opencode": "/opencode/zen/v1",
    "ollama": "/ollama",
}

LETTER = (
    "Dear hiring team,\n\nI am writing to apply for this role. For the last years I have built "
    "backend services in Python and run them on Kubernetes, with PostgreSQL underneath and Kafka "
    "between the parts. I enjoy making data pipelines reliable, measuring what they do and "
    "explaining the trade-offs to the people who depend on them. I mentor newer engineers and I "
    "like on-call rotations that are calm because the systems are simple. The posting describes "
    "work I know well and work I would be glad to learn; where something is new to me I will say "
    "so plainly and learn it quickly. I would welcome a conversation about the team and how I "
    "could help.\n\nKind regards,\nJane Doe"
)
NOTE = (
    "Hi, I'm Jane, a backend engineer working with Python and Kafka. I'd love to connect and hear "
    "about the team. Thanks!"
)


def default_reply(system: str, prompt: str) -> str:
    """A draft that passes the checks: a note when the system prompt asks for one, else a letter,
    signed, as a model would, with the name of the profile in the prompt (Jane Doe's by default)."""
    text = NOTE if "at most 300 characters" in system else LETTER
    named = re.search(r'"name":\s*"([^"]+)"', prompt)
    if named is None or named.group(1) == "Jane Doe":
        return text
    full = named.group(1)
    return text.replace("Jane Doe", full).replace("I'm Jane,", f"I'm {full.split()[0]},")


@dataclass
class Fault:
    """One scripted error answer."""

    status: int
    body: Any = None  # dict/list (sent as JSON), bytes (sent raw) or None (empty)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    """One request as a provider endpoint received it."""

    provider: str
    path: str
    headers: dict[str, str]
    body: Any
    system: str
    prompt: str


class ProviderServer:
    """The fake providers; `base_url(name)` is what `<NAME>_BASE_URL` should be set to."""

    def __init__(self) -> None:
        self.faults: dict[str, list[Fault]] = {name: [] for name in PREFIXES}
        self.replies: dict[str, Callable[[str, str], str]] = {}
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.hold_until_in_flight: int | None = None
        self.down: set[str] = set()  # providers answering every request with 503 (an outage)
        self.hang: dict[str, float] = {}  # providers that answer only after this many seconds
        self._lock = threading.Condition()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave without a delayed-ACK stall

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, body, extra = server.answer(self.path, headers, raw)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a hanging provider's late answer to a client that gave up: expected

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def base_url(self, provider: str) -> str:
        """The base URL of one fake provider."""
        return f"http://127.0.0.1:{self.port}{PREFIXES[provider]}"

    def env(self, *providers: str) -> dict[str, str]:
        """Base URL and key variables pointing the given providers here."""
        env: dict[str, str] = {}
        for name in providers:
            env[f"{name.upper()}_BASE_URL"] = self.base_url(name)
            if name in KEYS:
                env[f"{name.upper()}_API_KEY"] = KEYS[name]
        return env

    def fail(self, provider: str, *faults: Fault) -> None:
        """Serve these faults to the provider's next requests, in order."""
        with self._lock:
            self.faults[provider].extend(faults)

    def to(self, provider: str) -> list[Seen]:
        """The requests a provider received (well-formed or not)."""
        with self._lock:
            return [s for s in self.seen if s.provider == provider]

    # --- the server side -------------------------------------------------------------------------

    def answer(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any, dict[str, str]]:
        provider = next((n for n, p in PREFIXES.items() if path.startswith(p + "/")), None)
        if provider is None:
            return 404, {"error": "no such provider"}, {}
        try:
            body = json.loads(raw)
        except ValueError:
            return 400, {"error": {"message": "body is not JSON"}}, {}
        route = path[len(PREFIXES[provider]) :]
        check = getattr(self, f"_check_{provider}")
        system, prompt, problem = check(route, headers, body)
        with self._lock:
            self.seen.append(Seen(provider, path, headers, body, system, prompt))
            fault = self.faults[provider].pop(0) if self.faults[provider] else None
            if fault is None and provider in self.down:
                fault = Fault(503, {"error": {"message": "service unavailable"}}, {"retry-after": "0"})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self._lock.notify_all()
            if self.hold_until_in_flight is not None:
                self._lock.wait_for(lambda: self.in_flight >= (self.hold_until_in_flight or 0), timeout=2)
        try:
            if provider in self.hang:
                time.sleep(self.hang[provider])  # a provider that hangs past the client's timeout
            if problem is not None:
                return problem
            if fault is not None:
                return fault.status, fault.body if fault.body is not None else b"", fault.headers
            text = self.replies.get(provider, default_reply)(system, prompt)
            return 200, getattr(self, f"_reply_{provider}")(body, text), {}
        finally:
            with self._lock:
                self.in_flight -= 1

    def _check_anthropic(self, route: str, h: dict[str, str], b: Any) -> tuple[str, str, Any]:
        if route != "/v1/messages":
            return (
                "",
                "",
                (404, {"type": "error", "error": {"type": "not_found_error", "message": route}}, {}),
            )
        if h.get("x-api-key") != KEYS["anthropic"] or "authorization" in h:
            err = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
            return "", "", (401, err, {})
        if h.get("anthropic-version") != "2023-06-01":
            err = {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "anthropic-version"},
            }
            return "", "", (400, err, {})
        ok = (
            isinstance(b.get("model"), str)
            and isinstance(b.get("max_tokens"), int)
            and isinstance(b.get("messages"), list)
            and b["messages"]
            and b["messages"][0].get("role") == "user"
        )
        if not ok:
            err = {"type": "error", "error": {"type": "invalid_request_error", "message": "fields"}}
            return "", "", (400, err, {})
        return str(b.get("system", "")), str(b["messages"][0]["content"]), None

    def _chat(
        self, provider: str, route: str, h: dict[str, str], b: Any, budget: str
    ) -> tuple[str, str, Any]:
        if route != "/chat/completions":
            return "", "", (404, {"error": {"message": "unknown route", "type": "invalid_request_error"}}, {})
        if h.get("authorization") != f"Bearer {KEYS[provider]}":
            err = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                             "code": "invalid_api_key"}}  # fmt: skip
            return "", "", (401, err, {})
        messages = b.get("messages")
        ok = (
            isinstance(b.get("model"), str)
            and isinstance(b.get(budget), int)
            and isinstance(messages, list)
            and [m.get("role") for m in messages] == ["system", "user"]
        )
        if not ok:
            return "", "", (400, {"error": {"message": f"need model, {budget}, messages"}}, {})
        return str(messages[0]["content"]), str(messages[1]["content"]), None

    def _check_openai(self, route: str, h: dict[str, str], b: Any) -> tuple[str, str, Any]:
        return self._chat("openai", route, h, b, "max_completion_tokens")

    def _check_deepseek(self, route: str, h: dict[str, str], b: Any) -> tuple[str, str, Any]:
        return self._chat("deepseek", route, h, b, "max_tokens")

    def _check_opencode(self, route: str, h: dict[str, str], b: Any) -> tuple[str, str, Any]:
        return self._chat("opencode", route, h, b, "max_tokens")

    def _check_gemini(self, route: str, h: dict[str, str], b: Any) -> tuple[str, str, Any]:
        if not re.fullmatch(r"/models/[\w.-]+:generateContent", route):
            return "", "", (404, {"error": {"code": 404, "message": route, "status": "NOT_FOUND"}}, {})
        if h.get("x-goog-api-key") != KEYS["gemini"]:
            err = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}
            return "", "", (400, err, {})
        try:
            prompt = b["contents"][0]["parts"][0]["text"]
            system = b["systemInstruction"]["parts"][0]["text"]
            assert isinstance(b["generationConfig"]["maxOutputTokens"], int)
        except (KeyError, IndexError, TypeError, AssertionError):
            err = {"error": {"code": 400, "message": "bad request", "status": "INVALID_ARGUMENT"}}
            return "", "", (400, err, {})
        return str(system), str(prompt), None

    def _check_ollama(self, route: str, h: dict[str, str], b: Any) -> tuple[str, str, Any]:
        if route != "/api/chat":
            return "", "", (404, {"error": "not found"}, {})
        messages = b.get("messages")
        if b.get("stream") is not False or not isinstance(messages, list) or len(messages) != 2:
            return "", "", (400, {"error": "need stream false and messages"}, {})
        return str(messages[0]["content"]), str(messages[1]["content"]), None

    @staticmethod
    def _reply_anthropic(b: Any, text: str) -> Any:
        return {
            "id": "msg_01", "type": "message", "role": "assistant", "model": b["model"],
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 1200, "output_tokens": 300},
        }  # fmt: skip

    @staticmethod
    def _reply_chat(b: Any, text: str) -> Any:
        return {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": b["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1100, "completion_tokens": 280, "total_tokens": 1380},
        }  # fmt: skip

    _reply_openai = _reply_deepseek = _reply_opencode = _reply_chat

    @staticmethod
    def _reply_gemini(b: Any, text: str) -> Any:
        return {
            "candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 250,
                              "totalTokenCount": 1250},
            "modelVersion": "gemini-2.5-flash",
        }  # fmt: skip

    @staticmethod
    def _reply_ollama(b: Any, text: str) -> Any:
        return {
            "model": b["model"], "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text}, "done": True, "done_reason": "stop",
            "total_duration": 1, "prompt_eval_count": 900, "eval_count": 200,
        }  # fmt: skip


@contextlib.contextmanager
def serving() -> Iterator[ProviderServer]:
    """A ProviderServer serving in a thread until the block ends."""
    server = ProviderServer()
    thread = threading.Thread(
        target=server.server.serve_forever, kwargs={"poll_interval": 0.05}, name="providers", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        with server._lock:
            server.hold_until_in_flight = None
            server._lock.notify_all()
        server.server.shutdown()
        server.server.server_close()
        thread.join()
