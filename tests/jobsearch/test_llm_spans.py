"""Provider calls in the trace: LlmClient against the local server speaking the providers' wire
formats, spans kept in memory by a tracer provider of the test's own."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from jobsearch.listing import MergedListing
from jobsearch.llm import AllProvidersFailed, LlmClient, Material, load_llm_settings
from jobsearch.llm.offline import MODEL as OFFLINE_MODEL
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import LETTER, Fault, ProviderServer

SYSTEM = "You write a cover letter. SYSTEM-MARKER-41c9"
PROMPT = "Write it. PROMPT-MARKER-7f3a"


class Traced:
    """A tracer provider whose spans are kept, each as it ends."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("tests")

    def calls(self) -> list[ReadableSpan]:
        """The provider call spans, in the order they ended."""
        return [
            s for s in self.exporter.get_finished_spans() if "gen_ai.operation.name" in (s.attributes or {})
        ]


@pytest.fixture
def traced() -> Iterator[Traced]:
    """Spans recorded in memory for this test only."""
    kept = Traced()
    yield kept
    kept.provider.shutdown()


def client(traced: Traced, env: dict[str, str]) -> LlmClient:
    return LlmClient(load_llm_settings(env), tracer=traced.tracer)


def texts(span: ReadableSpan) -> str:
    """Every string a span carries: name, attributes, events, status."""
    found = [span.name, span.status.description or ""]
    found += [str(v) for v in (span.attributes or {}).values()]
    for event in span.events:
        found += [event.name, *(str(v) for v in (event.attributes or {}).values())]
    return "\n".join(found)


async def test_a_call_is_one_client_span_with_the_genai_attributes(
    providers: ProviderServer, traced: Traced
) -> None:
    """One answered OpenAI call inside a job's span is one CLIENT span under it, named
    `chat gpt-4o-mini`, with the GenAI conventions' attributes, the cost, and no prompt text."""
    env = providers.env("openai") | {"LLM_PROVIDER": "openai"}
    async with client(traced, env) as llm:
        with traced.tracer.start_as_current_span("process jobsearch.draft") as parent:
            completion = await llm.call_llm("cover_letter", SYSTEM, PROMPT, max_tokens=500)

    [span] = traced.calls()
    assert span.name == "chat gpt-4o-mini"
    assert span.kind is SpanKind.CLIENT
    assert span.parent is not None
    assert span.parent.span_id == parent.get_span_context().span_id
    attributes = dict(span.attributes or {})
    assert attributes.pop("jobsearch.cost_usd") == pytest.approx(completion.cost_usd)
    assert completion.cost_usd > 0
    assert attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.request.max_tokens": 500,
        "jobsearch.step": "cover_letter",
        "server.address": "127.0.0.1",
        "server.port": providers.port,
        "http.response.status_code": 200,
        "gen_ai.response.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": 1100,
        "gen_ai.usage.output_tokens": 280,
        "gen_ai.response.finish_reasons": ("stop",),
    }
    assert span.status.status_code is StatusCode.UNSET
    assert "MARKER" not in texts(span)
    assert LETTER[:40] not in texts(span)


async def test_content_is_recorded_only_when_opted_in(providers: ProviderServer, traced: Traced) -> None:
    """LLM_TRACE_CONTENT=1: the instructions, the prompt and the answer are on the span, as the
    conventions' opt-in attributes in their JSON message shapes."""
    env = providers.env("anthropic") | {"LLM_PROVIDER": "anthropic", "LLM_TRACE_CONTENT": "1"}
    async with client(traced, env) as llm:
        await llm.call_llm("cover_letter", SYSTEM, PROMPT, max_tokens=500)

    [span] = traced.calls()
    attributes = span.attributes or {}
    assert json.loads(str(attributes["gen_ai.system_instructions"])) == [{"type": "text", "content": SYSTEM}]
    assert json.loads(str(attributes["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": PROMPT}]}
    ]
    assert json.loads(str(attributes["gen_ai.output.messages"])) == [
        {"role": "assistant", "parts": [{"type": "text", "content": LETTER}], "finish_reason": "stop"}
    ]
    assert attributes["gen_ai.response.finish_reasons"] == ("stop",)  # Anthropic's end_turn


async def test_a_500_then_a_200_is_two_spans(providers: ProviderServer, traced: Traced) -> None:
    """A 500 then a 200 is one span per request: the first an error with the wait that followed,
    the second a resend that answered."""
    providers.fail("opencode", Fault(500, b"<html>upstream error</html>", {"retry-after": "0"}))
    env = providers.env("opencode") | {"LLM_PROVIDER": "opencode"}
    async with client(traced, env) as llm:
        await llm.call_llm("connection_note", SYSTEM, PROMPT)

    first, second = traced.calls()
    assert first.name == second.name == "chat kimi-k2"
    assert (first.attributes or {})["gen_ai.provider.name"] == "opencode"
    assert first.attributes is not None
    assert first.attributes["error.type"] == "500"
    assert first.attributes["http.response.status_code"] == 500
    assert first.attributes["jobsearch.failure_kind"] == "retry"
    assert first.attributes["jobsearch.retry_delay_s"] == 0
    assert first.attributes["jobsearch.retry_after_s"] == 0
    assert "http.request.resend_count" not in first.attributes
    assert "gen_ai.usage.input_tokens" not in first.attributes
    assert first.status.status_code is StatusCode.ERROR
    assert first.status.description == "HTTP 500: <html>upstream error</html>"
    assert second.attributes is not None
    assert second.attributes["http.request.resend_count"] == 1
    assert second.attributes["gen_ai.usage.output_tokens"] == 280
    assert second.status.status_code is StatusCode.UNSET


async def test_gemini_is_generate_content_on_gcp_gemini(providers: ProviderServer, traced: Traced) -> None:
    """Gemini's span is named and described with the conventions' words for its API."""
    env = providers.env("gemini") | {"LLM_PROVIDER": "gemini"}
    async with client(traced, env) as llm:
        await llm.call_llm("cover_letter", SYSTEM, PROMPT)

    [span] = traced.calls()
    assert span.name == "generate_content gemini-2.5-flash"
    assert span.attributes is not None
    assert span.attributes["gen_ai.operation.name"] == "generate_content"
    assert span.attributes["gen_ai.provider.name"] == "gcp.gemini"
    assert span.attributes["gen_ai.response.finish_reasons"] == ("stop",)  # Gemini's STOP


async def test_quota_is_an_error_span_that_says_so(providers: ProviderServer, traced: Traced) -> None:
    """DeepSeek's 402: one span, ERROR, its status code as `error.type`, marked as quota."""
    providers.fail("deepseek", Fault(402, {"error": {"message": "Insufficient Balance"}}))
    env = providers.env("deepseek") | {"LLM_PROVIDER": "deepseek"}
    async with client(traced, env) as llm:
        with pytest.raises(AllProvidersFailed):
            await llm.call_llm("cover_letter", SYSTEM, PROMPT)

    [span] = traced.calls()
    assert span.attributes is not None
    assert span.attributes["error.type"] == "402"
    assert span.attributes["jobsearch.failure_kind"] == "quota"
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "HTTP 402: Insufficient Balance"


async def test_a_request_without_an_answer_names_the_error(traced: Traced) -> None:
    """No server on the port: each request is an ERROR span with httpx's error as `error.type`."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {"LLM_PROVIDER": "ollama", "OLLAMA_BASE_URL": f"http://127.0.0.1:{port}", "LLM_RETRIES": "0"}
    async with client(traced, env) as llm:
        with pytest.raises(AllProvidersFailed):
            await llm.call_llm("cover_letter", SYSTEM, PROMPT)

    [span] = traced.calls()
    assert span.name == "chat llama3.2"
    assert span.attributes is not None
    assert span.attributes["error.type"] == "ConnectError"
    assert span.attributes["gen_ai.provider.name"] == "ollama"
    assert "http.response.status_code" not in span.attributes
    assert span.status.description == "connection failed: ConnectError"


async def test_the_offline_template_is_one_internal_span(
    traced: Traced, profile: Profile, corpus: dict[str, MergedListing]
) -> None:
    """The offline provider runs in the process: one INTERNAL span, no server, cost 0."""
    material = Material(profile=profile, listing=corpus["plain-backend"])
    async with client(traced, {}) as llm:
        await llm.call_llm("cover_letter", SYSTEM, PROMPT, material=material)
        [target] = llm.settings.chain("cover_letter")

    [span] = traced.calls()
    assert span.name == f"chat {target.model}"
    assert span.kind is SpanKind.INTERNAL
    assert span.attributes is not None
    assert span.attributes["gen_ai.response.model"] == OFFLINE_MODEL
    assert span.attributes["gen_ai.provider.name"] == "offline"
    assert span.attributes["jobsearch.cost_usd"] == 0
    assert "server.address" not in span.attributes
    assert "MARKER" not in texts(span)


async def test_with_tracing_off_nothing_is_recorded(providers: ProviderServer) -> None:
    """No tracer provider installed (no OTEL endpoint): calls work and their spans are no-ops."""
    env = providers.env("openai") | {"LLM_PROVIDER": "openai"}
    async with LlmClient(load_llm_settings(env)) as llm:
        completion = await llm.call_llm("cover_letter", SYSTEM, PROMPT)
        assert not llm.tracer.start_span("probe").is_recording()
    assert completion.provider == "openai"
