"""One search is one OpenTelemetry trace: `jobsearch run` and its four real `jobsearch serve`
processes export to a local OTLP/HTTP receiver."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import anyio
import pytest

from jetjobs import Settings
from jetjobs.testing import worker_env
from jobsearch.dedupe.report import read_listings
from tests.otlp_receiver import OtlpReceiver, ReceivedSpan

pytestmark = pytest.mark.integration

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "profile.toml"
PRODUCER, CONSUMER = 4, 5  # opentelemetry.proto SpanKind values
STAGE_OF = {
    "jobsearch.search": "fetch",
    "jobsearch.source": "fetch",
    "jobsearch.listing": "dedupe",
    "jobsearch.listing_batch": "dedupe",
    "jobsearch.board_read": "dedupe",
    "jobsearch.draft_shortlist": "dedupe",
    "jobsearch.export_batch": "export",
    "jobsearch.draft": "draft",
    "jobsearch.export": "export",
}


def run_traced(settings: Settings, data_dir: Path, otlp: OtlpReceiver) -> subprocess.CompletedProcess[str]:
    """`jobsearch run` on the example profile (the offline sample board and provider), every
    process exporting spans to `otlp`."""
    # Every filter hard, as before `[search] hard`: the few listings kept are all drafted.
    profile = data_dir.parent / "profile.toml"
    every_filter = 'hard = ["terms", "locations", "remote", "seniority", "salary_floor"]'
    profile.write_text(EXAMPLE.read_text().replace("[search]\n", f"[search]\n{every_filter}\n", 1))
    ours = ("JOBSEARCH_", "JETJOBS_", "LLM_", "COVER_LETTER_", "CONNECTION_NOTE_", "OTEL_")
    env = {name: value for name, value in os.environ.items() if not name.startswith(ours)}
    env |= worker_env(settings, settings.nats.url or "")
    env |= {
        "JOBSEARCH_DATA_DIR": str(data_dir),
        "LLM_PROVIDER": "offline",
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
    }
    return subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(profile)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env=env,
    )


def jobs_run(spans: list[ReceivedSpan]) -> dict[str, set[str]]:
    """The ids of the jobs that consumer spans ran, by span name."""
    ran: dict[str, set[str]] = {}
    for span in spans:
        if span.kind == CONSUMER:
            ran.setdefault(span.name, set()).add(str(span.attributes["jetjobs.job.id"]))
    return ran


@pytest.mark.timeout(300)
async def test_one_search_is_one_trace_across_the_services(
    tmp_path: Path, settings: Settings, otlp: OtlpReceiver
) -> None:
    """Every span of a search (the run's publish of the search; each stage service's consumer
    spans and the producer spans of the jobs it submits: source, the postings' batch, the board
    read, the kept listings export batches) shares one trace id and forms one tree whose only
    root is the search's producer span. What follows the drain is a trace of its own each: the
    shortlist (`jobsearch.draft_shortlist`, with the drafts of the best listings, their fixed job
    ids and their exports: one tree under its producer span), the closing of what the boards took
    down (`jobsearch.close_listings`, with the listing states it hands on) and the tracker render."""
    data_dir = tmp_path / "data"
    result = await anyio.to_thread.run_sync(run_traced, settings, data_dir, otlp)
    assert result.returncode == 0, result.stdout + result.stderr
    drafted = len(read_listings(data_dir / "jobsearch.sqlite"))
    assert drafted > 0

    def complete(spans: list[ReceivedSpan]) -> bool:
        ran = jobs_run(spans)
        exported = len(ran.get("process jobsearch.export", ()))
        return exported >= drafted and bool(ran.get("process jobsearch.tracker"))

    await anyio.to_thread.run_sync(otlp.wait, complete)

    [root] = [s for s in otlp.spans if s.name == "publish jobsearch.search"]
    assert (root.kind, root.parent_span_id, root.service) == (PRODUCER, "", "jobsearch-run")
    [closing] = [s for s in otlp.spans if s.name == "publish jobsearch.close_listings"]
    assert (closing.kind, closing.parent_span_id) == (PRODUCER, "")
    [shortlist] = [s for s in otlp.spans if s.name == "publish jobsearch.draft_shortlist"]
    assert (shortlist.kind, shortlist.parent_span_id, shortlist.service) == (PRODUCER, "", "jobsearch-run")
    after_drain = {closing.trace_id}
    search = [
        s for s in otlp.spans if not s.name.endswith("jobsearch.tracker") and s.trace_id not in after_drain
    ]
    assert {s.trace_id for s in search} == {root.trace_id, shortlist.trace_id}
    by_id = {s.span_id: s for s in search}
    assert [s for s in search if s.parent_span_id not in by_id] == sorted([root, shortlist], key=search.index)
    drafts = [s for s in search if s.name.endswith(("jobsearch.draft", "jobsearch.export"))]
    assert {s.trace_id for s in drafts} == {shortlist.trace_id}

    # Jobs, not spans, for the consumers: a retried attempt is one more consumer span of its job.
    published = Counter(s.name for s in search if s.kind == PRODUCER)
    ran = Counter({name: len(ids) for name, ids in jobs_run(search).items()})
    assert ran["process jobsearch.search"] == published["publish jobsearch.source"] == 1
    # The 40 postings in one batch; the listings dedupe kept go to the export stage in batches.
    assert published["publish jobsearch.listing_batch"] == ran["process jobsearch.listing_batch"] == 1
    assert published["publish jobsearch.board_read"] == ran["process jobsearch.board_read"] == 1
    assert published["publish jobsearch.export_batch"] == ran["process jobsearch.export_batch"] >= 1
    assert published["publish jobsearch.draft"] == ran["process jobsearch.draft"] == drafted
    assert published["publish jobsearch.export"] == ran["process jobsearch.export"] == drafted
    # Each provider call is a span of its own inside the draft job's consumer span (the offline
    # template's an INTERNAL one: no request leaves the process), named as OpenTelemetry's GenAI
    # conventions say: "chat <model>".
    calls = [s for s in search if "gen_ai.operation.name" in s.attributes]
    assert len(calls) == 2 * drafted  # a cover letter and a note per listing
    for call in calls:
        assert call.name == "chat template-v2"
        assert call.attributes["gen_ai.provider.name"] == "offline"
        assert by_id[call.parent_span_id].name == "process jobsearch.draft"
    for span in search:
        if span in calls:
            continue
        verb, job_type = span.name.split(" ")
        parent = by_id.get(span.parent_span_id)
        if verb == "process":
            assert span.kind == CONSUMER
            assert span.service == f"jobsearch-{STAGE_OF[job_type]}"
            assert parent is not None
            assert parent.name == f"publish {job_type}"
        elif span not in (root, shortlist):
            assert span.kind == PRODUCER
            assert parent is not None
            assert parent.kind == CONSUMER  # submitted from inside a handler

    tracker = [s for s in otlp.spans if s.name.endswith("jobsearch.tracker")]
    assert len({s.trace_id for s in tracker}) == 1
    assert {s.service for s in tracker} == {"jobsearch-run", "jobsearch-export"}
