"""The built-in `data.transform`: inline and URL input, large output in the object store, bad expressions."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, InvalidJob, Publisher, Settings
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._settings import WebhookSettings
from jetjobs._transport.topology import Topology
from tests.http_target import Answer, HttpTarget
from tests.support import running_worker, status_of

pytestmark = [pytest.mark.integration]

PEOPLE = [
    {"name": "Ada", "age": 36, "address": {"city": "London"}},
    {"name": "Alan", "age": 41, "address": {"city": "Wilmslow"}},
    {"name": "Grace", "age": 29, "address": {"city": "New York"}},
]
# select → filter → map → rename: the four kinds of step in one pipeline.
STEPS: list[dict[str, Any]] = [
    {"op": "select", "expr": "people"},
    {"op": "filter", "expr": "age > `30`"},
    {"op": "map", "expr": "{name: name, city: address.city}"},
    {"op": "rename", "fields": {"name": "fullName"}},
]
EXPECTED = [{"fullName": "Ada", "city": "London"}, {"fullName": "Alan", "city": "Wilmslow"}]


@pytest.fixture
def allowed(settings: Settings) -> Settings:
    """Settings that let jobs fetch from 127.0.0.1 (loopback is refused by default)."""
    return msgspec.structs.replace(settings, webhook=WebhookSettings(allow_hosts=("127.0.0.1",)))


async def test_inline_data_through_select_filter_map_rename(nc: NATS, settings: Settings) -> None:
    """Inline data goes through the four steps in order; the small output is the job's result."""
    async with running_worker(App(), nc, settings) as (_, outcomes):
        job = await Publisher(nc, settings).enqueue(
            "data.transform", {"data": {"people": PEOPLE}, "steps": STEPS}
        )
        await outcomes.wait_for(job.id, "succeeded")
    record = await status_of(nc, settings, job.id)
    assert record.result == {"data": EXPECTED}


async def test_input_fetched_from_a_url(nc: NATS, allowed: Settings, target: HttpTarget) -> None:
    """The input is fetched with GET from the URL (JSON) and transformed the same way."""
    target.script("/people.json", Answer(200, json.dumps({"people": PEOPLE}).encode()))
    async with running_worker(App(), nc, allowed) as (_, outcomes):
        job = await Publisher(nc, allowed).enqueue(
            "data.transform", {"url": target.url("/people.json"), "steps": STEPS}
        )
        await outcomes.wait_for(job.id, "succeeded")
    [request] = target.to("/people.json")
    assert request.method == "GET"
    record = await status_of(nc, allowed, job.id)
    assert record.result == {"data": EXPECTED}


async def test_url_on_loopback_is_refused_without_allowance(
    nc: NATS, settings: Settings, target: HttpTarget
) -> None:
    """The URL input obeys the same host policy as webhooks: loopback is rejected by default."""
    async with running_worker(App(), nc, settings) as (worker, outcomes):
        job = await Publisher(nc, settings).enqueue(
            "data.transform", {"url": target.url("/people.json"), "steps": STEPS}
        )
        await outcomes.wait_for(job.id, "dead")
        ledger = Ledger(await worker.topology.status_kv(nc.jetstream()))
        found = await DeadLetters(nc.jetstream(), worker.topology, ledger).show(job.id)
    assert found is not None
    assert found[1].reason == "rejected"
    assert "loopback address" in found[1].error
    assert target.requests == []


async def test_large_output_goes_to_the_object_store(nc: NATS, settings: Settings) -> None:
    """An output over max_result_bytes is stored in `<ns>_results`; the ledger names the object."""
    small = msgspec.structs.replace(settings, max_result_bytes=1024)
    rows = [{"id": i, "label": f"row {i}", "keep": i % 2 == 0} for i in range(400)]
    steps = [{"op": "filter", "expr": "keep"}, {"op": "rename", "fields": {"label": "title"}}]
    expected = [{"id": r["id"], "title": r["label"], "keep": True} for r in rows if r["keep"]]
    async with running_worker(App(), nc, small) as (_, outcomes):
        job = await Publisher(nc, small).enqueue("data.transform", {"data": rows, "steps": steps})
        await outcomes.wait_for(job.id, "succeeded")
    record = await status_of(nc, small, job.id)
    bucket, key = f"{small.namespace}_results", f"{job.id}.json"
    stored = await (await nc.jetstream().object_store(bucket)).get(key)
    assert stored.data is not None
    assert record.result == {"object": {"bucket": bucket, "key": key, "bytes": len(stored.data)}}
    assert json.loads(stored.data) == expected


async def test_step_that_does_not_fit_the_data_is_rejected(nc: NATS, settings: Settings) -> None:
    """A `filter` over an object (not a list) rejects the job, naming the step."""
    async with running_worker(App(), nc, settings) as (worker, outcomes):
        job = await Publisher(nc, settings).enqueue(
            "data.transform", {"data": {"a": 1}, "steps": [{"op": "filter", "expr": "a"}]}
        )
        await outcomes.wait_for(job.id, "dead")
        ledger = Ledger(await worker.topology.status_kv(nc.jetstream()))
        found = await DeadLetters(nc.jetstream(), worker.topology, ledger).show(job.id)
    assert found is not None
    assert (found[1].reason, found[1].error) == ("rejected", "step 1 (filter) needs a list, got dict")


async def test_invalid_expression_fails_at_enqueue_and_publishes_nothing(
    nc: NATS, settings: Settings
) -> None:
    """A JMESPath syntax error is refused by `enqueue` with the step and position; the stream stays empty."""
    topology = Topology(settings)
    await topology.ensure_queue(nc.jetstream(), "default")
    publisher = Publisher(nc, settings, topology=topology)
    with pytest.raises(InvalidJob) as caught:
        await publisher.enqueue(
            "data.transform",
            {
                "data": PEOPLE,
                "steps": [{"op": "select", "expr": "[*].name"}, {"op": "filter", "expr": "age >"}],
            },
        )
    assert str(caught.value) == (
        "payload of data.transform does not match its schema: step 2 (filter): invalid JMESPath "
        "expression 'age >': incomplete expression at position 5"
    )
    with pytest.raises(InvalidJob, match="calls unknown function shout"):
        await publisher.enqueue(
            "data.transform", {"data": {}, "steps": [{"op": "select", "expr": "shout(@)"}]}
        )
    info = await nc.jetstream().stream_info(topology.jobs_stream)
    assert info.state.messages == 0
