"""The stage services' settings fingerprint: computed from the environment, carried in their
heartbeats, compared by a run (jobsearch.run.fingerprint)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client as NATS

from jetjobs import App, JobContext, Settings
from jobsearch.app import build_app
from jobsearch.jobs import QUEUES, Stage
from jobsearch.run.fingerprint import (
    OtherService,
    OtherSettings,
    check_services,
    other_settings_warning,
    services_with_other_settings,
)
from jobsearch.settings import service_fingerprint
from tests.support import running_worker

BASE = {"LLM_PROVIDER": "openai", "COVER_LETTER_MODEL": "gpt-4o", "JOBSEARCH_DB": "/data/j.sqlite"}


def test_the_fingerprint_follows_the_settings_a_service_uses() -> None:
    """Same settings, same fingerprint; a provider, model or pipeline setting changed, another."""
    same = service_fingerprint(dict(BASE))
    assert same == service_fingerprint(dict(reversed(list(BASE.items()))))
    for name, value in [
        ("LLM_PROVIDER", "anthropic"),
        ("CONNECTION_NOTE_PROVIDER", "ollama"),
        ("COVER_LETTER_MODEL", "gpt-4.1"),
        ("OPENAI_BASE_URL", "http://proxy:8080"),
        ("JOBSEARCH_DB", "/elsewhere.sqlite"),
        ("LLM_TIMEOUT", "5"),
    ]:
        assert service_fingerprint(BASE | {name: value}) != same, name


def test_what_no_service_reads_leaves_the_fingerprint_alone() -> None:
    """Other variables, a run's lifeline descriptor, the review page's token and profile, keys,
    and empty values (taken as unset) do not change it."""
    same = service_fingerprint(dict(BASE))
    for name, value in [
        ("HOME", "/home/x"),
        ("JOBSEARCH_LIFELINE_FD", "7"),
        ("JOBSEARCH_UI_TOKEN", "t0ken"),
        ("JOBSEARCH_PROFILE", "me.toml"),
        ("OPENAI_API_KEY", "sk-new"),
        ("LLM_MODEL", "  "),
    ]:
        assert service_fingerprint(BASE | {name: value}) == same, name
    assert service_fingerprint(BASE | {"LLM_PROVIDER": " openai "}) == same


def test_the_fingerprint_is_the_version_and_a_hash_with_no_value_in_clear() -> None:
    """`<version>:<16 hex digits>`, no setting's value in it."""
    from jetjobs import __version__  # noqa: PLC0415

    secretish = "http://user:pa55word@proxy.internal:8080"
    fingerprint = service_fingerprint(BASE | {"OPENAI_BASE_URL": secretish})
    version, _, digest = fingerprint.partition(":")
    assert version == __version__
    assert len(digest) == 16
    assert int(digest, 16) >= 0
    assert all(part not in fingerprint for part in ("pa55word", "proxy", "openai", "gpt-4o"))


def test_a_stage_services_app_carries_the_fingerprint_of_its_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`build_app` (what `jobsearch serve STAGE` runs) sets the App's fingerprint from the
    environment, so its worker's heartbeat carries it."""
    monkeypatch.setenv("JOBSEARCH_DB", str(tmp_path / "j.sqlite"))
    monkeypatch.setenv("LLM_PROVIDER", "offline")
    before = build_app(["dedupe"]).fingerprint
    assert before == service_fingerprint()
    monkeypatch.setenv("JOBSEARCH_DB", str(tmp_path / "other.sqlite"))
    after = build_app(["dedupe"]).fingerprint
    assert after == service_fingerprint()
    assert after != before


def _service(pid: int, stage: Stage, *, host: str = "here", fingerprint: str = "0.1.0:aaaa") -> OtherService:
    return OtherService(
        host=host,
        pid=pid,
        queues=[f"jobsearch-{stage}"],
        stages=[stage],
        fingerprint=fingerprint,
        worker=f"w{pid}",
    )


def test_the_warning_names_each_service_and_what_to_do() -> None:
    """A run that would share its queues: who (pid, stage, host when elsewhere, a version or
    unknown settings when they differ), that the run does not start, and the ways out that exist."""
    others = [
        _service(4242, "draft"),
        _service(77, "dedupe", host="box-b", fingerprint="0.0.9:bbbb"),
        _service(9, "fetch", fingerprint=""),
    ]
    text = other_settings_warning(others, starting_services=True, here="here")
    assert text.startswith("3 stage services are already running with other settings than this run")
    assert "(pid 4242 draft; pid 77 dedupe on box-b, version 0.0.9; pid 9 fetch, settings unknown)" in text
    assert "the run does not start" in text
    assert "`kill 4242 9`" in text
    assert "--no-services" in text
    assert "jobsearch down" not in text  # no such command


def test_with_no_services_the_warning_says_they_do_the_work() -> None:
    """With --no-services the services elsewhere are the run's workers: said, not refused."""
    text = other_settings_warning([_service(4242, "draft")], starting_services=False, here="here")
    assert text == (
        "1 stage service runs with other settings than this shell's (pid 4242 draft): with "
        "--no-services it does this run's jobs, with the settings it was started with"
    )


def _app(fingerprint: str) -> App:
    """A stand-in for a stage service: an App with that fingerprint (the platform carries it)."""
    app = App("stand-in", builtins=False, fingerprint=fingerprint)

    @app.job("noop")
    async def noop(ctx: JobContext, payload: dict[str, Any]) -> None:
        return None

    return app


@pytest.mark.integration
async def test_a_run_finds_the_services_started_with_other_settings(settings: Settings, nc: NATS) -> None:
    """Live workers of the pipeline's queues: the one with this process's fingerprint is fine,
    one with another (or none) is reported with its pid and stage; a worker of another queue is
    none of the run's business. A run starting its services refuses; one with --no-services is told."""
    own = service_fingerprint()
    stale_fingerprint = "0.0.1:0123456789abcdef"
    async with (
        running_worker(_app(own), nc, settings, queues=[QUEUES["export"]]),
        running_worker(_app(stale_fingerprint), nc, settings, queues=[QUEUES["draft"]]) as (stale, _),
        running_worker(_app(""), nc, settings, queues=["elsewhere"]),
    ):
        found = await services_with_other_settings(nc, settings)
        assert [(o.worker, o.stages, o.fingerprint) for o in found] == [
            (stale.id, ["draft"], stale_fingerprint)
        ]
        assert found[0].pid > 0
        as_the_stale_one = await services_with_other_settings(nc, settings, fingerprint=stale_fingerprint)
        assert [o.stages for o in as_the_stale_one] == [["export"]]
        with pytest.raises(
            OtherSettings, match=r"1 stage service is already running .* draft, version 0\.0\.1"
        ):
            await check_services(nc, settings, starting_services=True)
        warning = await check_services(nc, settings, starting_services=False)
        assert warning is not None
        assert "with --no-services it does this run's jobs" in warning
    assert await check_services(nc, settings, starting_services=True) is None
