"""JSON Schemas of the pipeline's job payloads and the profile, with an example search job.

`jobsearch schemas` writes them into `schemas/jobsearch/`; a test fails when the committed files
are stale. With them (and the platform's `schemas/job.schema.json`) a client in any language can
submit a `jobsearch.search` job: publish a job envelope whose payload follows `search.schema.json`
on the subject `<namespace>.jobs.jobsearch-fetch.<priority>.jobsearch.search`.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import msgspec

from jobsearch.jobs import (
    BoardReadJob,
    CloseListingsJob,
    DraftJob,
    DraftShortlistJob,
    ExportJob,
    ListingJob,
    ListingStatesJob,
    ScheduledRunJob,
    SearchJob,
    SourceJob,
    TrackerJob,
)
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile, example_profile

SCHEMAS: dict[str, Any] = {
    "search.schema.json": SearchJob,
    "source.schema.json": SourceJob,
    "listing.schema.json": ListingJob,
    "board_read.schema.json": BoardReadJob,
    "draft.schema.json": DraftJob,
    "export.schema.json": ExportJob,
    "tracker.schema.json": TrackerJob,
    "close_listings.schema.json": CloseListingsJob,
    "draft_shortlist.schema.json": DraftShortlistJob,
    "listing_states.schema.json": ListingStatesJob,
    "scheduled_run.schema.json": ScheduledRunJob,
    "profile.schema.json": Profile,
    "merged_listing.schema.json": MergedListing,
}


def example_search() -> SearchJob:
    """A `jobsearch.search` payload with the example profile (`examples/profile.toml`)."""
    profile = msgspec.convert(tomllib.loads(example_profile()), Profile)
    return SearchJob(run_id="example-run", profile=profile)


def render() -> dict[str, str]:
    """Every file of `schemas/jobsearch/`: relative path → content."""
    files: dict[str, str] = {}
    for name, struct in SCHEMAS.items():
        schema = msgspec.json.schema(struct)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        files[name] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    files["examples/search.json"] = json.dumps(msgspec.to_builtins(example_search()), indent=2) + "\n"
    return files


def write_schemas(directory: Path) -> list[str]:
    """Write every schema and example under `directory`; the names written."""
    written = []
    for name, content in render().items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        written.append(name)
    return written


def check_schemas(directory: Path) -> list[str]:
    """The names of files under `directory` that are missing or differ from the Structs."""
    return [
        name
        for name, content in render().items()
        if not (directory / name).exists() or (directory / name).read_text(encoding="utf-8") != content
    ]
