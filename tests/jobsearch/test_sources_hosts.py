"""The boards' outbound host policy: a profile chooses the URLs the fetch service calls, so internal
addresses (loopback, private, link-local, cloud metadata) are refused unless JOBSEARCH_ALLOW_HOSTS
names them; every address a name resolves to is checked, the address connected to and every
redirect's target too."""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, ConfigError, Publisher, Settings
from jobsearch.app import build_app
from jobsearch.fetch import FetchHandlers
from jobsearch.fetch.handlers import load_http_policy
from jobsearch.jobs import QUEUES, SEARCH, SearchJob
from jobsearch.profile import Greenhouse, Person, Profile, Rss, Sample
from jobsearch.sources import BoardHttp, HttpPolicy, SourceError, fetch_source
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import FAST, board, ok_file, ok_json
from tests.support import dead_letter_of, running_worker

__all__ = ["board"]  # the fixture, imported for the tests below

# The test manners with the default host policy: nothing internal allowed.
STRICT = msgspec.structs.replace(FAST, allow_hosts=())


async def test_a_loopback_board_is_refused_before_any_request(board: HttpTarget) -> None:
    """With no allow-list, a board on 127.0.0.1 fails as `host_denied` (not retryable), naming the
    host, the kind of address and JOBSEARCH_ALLOW_HOSTS; the server receives nothing."""
    board.script("/x", ok_json([]))
    async with BoardHttp(STRICT) as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("greenhouse", board.url("/x"))
    assert caught.value.kind == "host_denied"
    assert not caught.value.retryable
    message = str(caught.value)
    assert message.startswith("greenhouse: host 127.0.0.1 resolves to 127.0.0.1, a loopback address")
    assert "JOBSEARCH_ALLOW_HOSTS" in message
    assert board.url("/x") in message
    assert board.requests == []


async def test_the_allow_list_lets_a_named_internal_host_through(board: HttpTarget) -> None:
    """The same board, its address allowed (as the tests' FAST manners do), is read."""
    board.script("/x", ok_json({"ok": True}))
    async with BoardHttp(msgspec.structs.replace(STRICT, allow_hosts=("127.0.0.0/8",))) as http:
        assert await http.get_json("test", board.url("/x")) == {"ok": True}


async def test_cloud_metadata_is_refused_even_with_loopback_allowed() -> None:
    """A `base_url` at the cloud metadata address is refused; allowing loopback does not allow it."""
    source = Greenhouse(token="acme", base_url="http://169.254.169.254/latest/meta-data")
    async with BoardHttp(FAST) as http:
        with pytest.raises(SourceError) as caught:
            await fetch_source(http, source)
    assert caught.value.kind == "host_denied"
    assert "169.254.169.254, a cloud metadata address" in str(caught.value)


async def test_a_redirect_to_an_internal_host_is_refused(board: HttpTarget) -> None:
    """An allowed board that redirects to another internal address: the redirect's target is
    checked too, and refused (not connected to, which would be a `network` error here)."""
    elsewhere = f"http://127.0.0.2:{board.port}/feed"
    board.script("/x", Answer(302, b"", {"Location": elsewhere}))
    async with BoardHttp(msgspec.structs.replace(STRICT, allow_hosts=("127.0.0.1",))) as http:
        with pytest.raises(SourceError) as caught:
            await http.get("rss", board.url("/x"))
    assert caught.value.kind == "host_denied"
    assert "host 127.0.0.2 resolves to 127.0.0.2, a loopback address" in str(caught.value)
    assert len(board.to("/x")) == 1


async def test_the_connected_address_is_checked_too(
    board: HttpTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name whose check-time answer is public but whose connection lands on loopback (a DNS
    answer that changed in between) is refused at connect time, before the request is written."""
    board.script("/x", ok_json([]))
    real_getaddrinfo = anyio.getaddrinfo

    async def public_answer(host: Any, port: Any, **kwargs: Any) -> Any:
        if host == "localhost":  # only the policy's look-up; the connection resolves for real
            return [(2, 1, 6, "", ("93.184.215.14", port))]
        return await real_getaddrinfo(host, port, **kwargs)

    monkeypatch.setattr(anyio, "getaddrinfo", public_answer)
    async with BoardHttp(STRICT) as http:
        with pytest.raises(SourceError) as caught:
            await http.get_json("lever", f"http://localhost:{board.port}/x")
    assert caught.value.kind == "host_denied"
    assert "a loopback address" in str(caught.value)
    assert board.requests == []


def test_allow_hosts_from_the_environment() -> None:
    """JOBSEARCH_ALLOW_HOSTS takes the syntax of JETJOBS_WEBHOOK_ALLOW_HOSTS (comma-separated
    names, `*.domain`, addresses, networks); a bad entry fails at start naming the variable."""
    policy = load_http_policy({"JOBSEARCH_ALLOW_HOSTS": "127.0.0.1, *.corp.example,10.0.0.0/8,"})
    assert policy.allow_hosts == ("127.0.0.1", "*.corp.example", "10.0.0.0/8")
    assert load_http_policy({}).allow_hosts == ()
    with pytest.raises(ConfigError, match=r"JOBSEARCH_ALLOW_HOSTS: 'http://mirror.example/' is not"):
        load_http_policy({"JOBSEARCH_ALLOW_HOSTS": "http://mirror.example/"})


@pytest.mark.integration
async def test_a_refused_source_is_dead_lettered_and_the_others_go_on(
    nc: NATS, settings: Settings, board: HttpTarget
) -> None:
    """A search whose Greenhouse `base_url` and RSS feed URL point at loopback, beside the sample
    board, with the default policy: both refused sources are dead-lettered at once (`rejected`)
    with the reason, the server sees no request, and the sample source succeeds."""
    board.script("/v1/boards/acme/jobs?content=true&pay_transparency=true", ok_file("greenhouse_jobs.json"))
    sources = [
        Sample(),
        Greenhouse(token="acme", base_url=board.url("")),
        Rss(url=board.url("/feed.rss")),
    ]
    fetch_app = App("fetch", builtins=False)
    handlers = FetchHandlers(STRICT)
    handlers.register(fetch_app)
    search = SearchJob(run_id="run-ssrf", profile=Profile(person=Person(name="S"), sources=sources))
    async with running_worker(fetch_app, nc, settings, queues=[QUEUES["fetch"]]) as (_, fetched):
        await Publisher(nc, settings).enqueue(SEARCH, search, queue=QUEUES["fetch"])
        await fetched.wait(lambda: fetched.count("succeeded") == 2 and fetched.count("dead") == 2)
    await handlers.aclose()
    dead = [job_id for job_id, outcomes in fetched.by_job.items() if "dead" in outcomes]
    letters = [await dead_letter_of(nc, settings, job_id) for job_id in dead]
    assert {letter.reason for letter in letters} == {"rejected"}
    assert {letter.attempts for letter in letters} == {1}
    errors = sorted(letter.error or "" for letter in letters)
    assert errors[0].startswith("greenhouse: host 127.0.0.1 resolves to 127.0.0.1, a loopback address")
    assert errors[1].startswith("rss: host 127.0.0.1 resolves to 127.0.0.1, a loopback address")
    assert all("JOBSEARCH_ALLOW_HOSTS" in error for error in errors)
    assert board.requests == []


def test_a_bad_allow_list_stops_the_fetch_service_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """`jobsearch serve fetch` reads its HTTP settings when it registers its handlers, so a bad
    JOBSEARCH_ALLOW_HOSTS fails before the worker starts, not at the first source job."""
    monkeypatch.setenv("JOBSEARCH_ALLOW_HOSTS", "http://mirror.example/")
    with pytest.raises(ConfigError, match="JOBSEARCH_ALLOW_HOSTS"):
        build_app(["fetch"])


def test_the_default_policy_allows_nothing_internal() -> None:
    """HttpPolicy's default allow-list is empty: the fetch service refuses internal hosts unless
    told otherwise."""
    assert HttpPolicy().allow_hosts == ()
