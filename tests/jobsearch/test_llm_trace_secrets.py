"""API keys never reach a trace: draft jobs whose provider echoes the key, spans recorded in memory."""

from __future__ import annotations

import msgspec
import pytest
from nats.aio.client import Client as NATS
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from jetjobs import App, Ledger, Publisher, Settings
from jobsearch import draft as draft_stage
from jobsearch.jobs import DRAFT, QUEUES, DraftJob
from jobsearch.listing import MergedListing
from jobsearch.llm import AllProvidersFailed, LlmClient, load_llm_settings
from jobsearch.profile import Profile
from tests.jobsearch.provider_servers import KEYS, Fault, ProviderServer
from tests.support import running_worker


def texts(span: ReadableSpan) -> list[str]:
    """Every string a span carries: name, attributes, events and their attributes, status."""
    found = [span.name, span.status.description or ""]
    found += [str(v) for v in (span.attributes or {}).values()]
    for event in span.events:
        found.append(event.name)
        found += [str(v) for v in (event.attributes or {}).values()]
    return found


def leaks(text: str) -> list[str]:
    """The keys (or a 12-character piece of one, as a cut-off message would leave) found in `text`."""
    found = []
    for key in KEYS.values():
        pieces = {key[i : i + 12] for i in range(len(key) - 11)}
        if any(piece in text for piece in pieces):
            found.append(key)
    return found


def echoing(provider: str, status: int, key: str, padding: int = 0) -> Fault:
    """An error answer whose message repeats the key sent, as some gateways do."""
    message = "x" * padding + f"Incorrect API key provided: {key}. You can find your API key at ..."
    if provider == "anthropic":
        return Fault(status, {"type": "error", "error": {"type": "api_error", "message": message}})
    return Fault(status, {"error": {"message": message, "type": "invalid_request_error"}})


@pytest.mark.integration
async def test_a_key_echoed_by_a_provider_is_in_no_span(
    *,
    nc: NATS,
    settings: Settings,
    providers: ProviderServer,
    profile: Profile,
    corpus: dict[str, MergedListing],
    spans: InMemorySpanExporter,
) -> None:
    """Three draft jobs fail with the key in the error body: refused (401), down (503, retried
    once, then recorded as the listing's failure) and a message cut where the key sits. The failed
    attempt's consumer span carries an error status; no span name, attribute, event or status, no
    ledger result and no export job that carries the failure to the state of record holds any part
    of a key."""
    providers.fail("openai", echoing("openai", 401, KEYS["openai"]))
    overloaded = echoing("anthropic", 503, KEYS["anthropic"])
    overloaded.headers["retry-after"] = "0"
    providers.fail("anthropic", *[overloaded] * 4)  # two attempts of the job, two requests each
    # The message is cut at 300 characters in the middle of the key.
    providers.fail("deepseek", echoing("deepseek", 401, KEYS["deepseek"], padding=260))
    env = providers.env("openai", "anthropic", "deepseek") | {"LLM_RETRIES": "1"}
    listing = corpus["plain-backend"]
    jobs = {
        provider: DraftJob(
            run_id="r",
            listing=msgspec.structs.replace(listing, id=f"{listing.id}-{provider}"),
            profile=profile,
            provider=provider,
            steps=["connection_note"],
        )
        for provider in ("openai", "anthropic", "deepseek")
    }
    app = App("draft-trace-test", builtins=False)
    llm = LlmClient(load_llm_settings(env))
    draft_stage.register(app, llm=llm)
    publisher = Publisher(nc, settings)
    ids: dict[str, str] = {}
    async with llm, running_worker(app, nc, settings, queues=[QUEUES["draft"]]) as (_, outcomes):
        for provider, job in jobs.items():
            submitted = await publisher.enqueue(DRAFT, job, queue=QUEUES["draft"], max_attempts=2)
            ids[provider] = submitted.id
        for job_id in ids.values():
            await outcomes.wait_for(job_id, "succeeded")
    # The worker has stopped: every consumer span has ended and been exported.

    finished = spans.get_finished_spans()
    consumers: dict[str, list[ReadableSpan]] = {}
    for span in finished:
        if span.kind is trace.SpanKind.CONSUMER:
            consumers.setdefault(str((span.attributes or {})["jetjobs.job.id"]), []).append(span)
    assert sorted(len(consumers[ids[p]]) for p in ids) == [1, 1, 2]  # anthropic's job ran twice
    [retried] = [s for s in consumers[ids["anthropic"]] if s.status.status_code is trace.StatusCode.ERROR]
    assert (retried.attributes or {}).get("jetjobs.job.outcome") == "retried"
    assert "[redacted]" in (retried.status.description or ""), retried.status.description
    for span in finished:
        for text in texts(span):
            assert not leaks(text), (span.name, text)
    ledger = Ledger(await publisher.topology.status_kv(publisher.js))
    for provider, job_id in ids.items():
        record, _ = await ledger.get(job_id)
        assert record is not None
        result = msgspec.json.encode(record).decode()
        assert not leaks(result), result
        assert record.result["outcome"] == "failed"
        if provider != "deepseek":  # its padded message is cut before the key's placeholder
            assert "[redacted]" in record.result["reason"], record.result
    exports = await publisher.js.subscribe(f"{settings.namespace}.jobs.{QUEUES['export']}.>")
    for _ in ids:
        message = await exports.next_msg(timeout=10)
        assert not leaks(message.data.decode()), message.data
    await exports.unsubscribe()


def test_the_leak_detector_finds_a_cut_key() -> None:
    """The check above must be able to fail: a key cut to its first 12 characters is still found."""
    key = KEYS["deepseek"]
    assert leaks(f"HTTP 401: ... {key[:12]}") == [key]
    assert leaks("HTTP 401: Incorrect API key provided: [redacted]") == []


async def test_a_key_cut_by_the_message_limit_is_still_scrubbed(providers: ProviderServer) -> None:
    """An error message cut at 300 characters through the echoed key: the error keeps no piece of it."""
    providers.fail("deepseek", echoing("deepseek", 401, KEYS["deepseek"], padding=260))
    env = providers.env("deepseek") | {"LLM_PROVIDER": "deepseek"}
    async with LlmClient(load_llm_settings(env)) as client:
        with pytest.raises(AllProvidersFailed) as caught:
            await client.call_llm("connection_note", "You write a note.", "Write it.")
    assert "[redacted]" in str(caught.value)
    assert not leaks(str(caught.value))
