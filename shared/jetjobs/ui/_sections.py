"""The operations page's four sections, each with a key that changes exactly when what it shows does.

A section is read (cheaply: one request each) into the values its template shows, plus a `key`:
the values that reach the HTML and nothing else. Times are rendered as `<time>` elements that the
script ages in the browser, and a worker's heartbeat as "on time" or "late", so the key of an idle
deployment stays the same from one refresh to the next. The page hashes the key into the
fragment's `ETag`; the same key is answered with "304 Not Modified" or from the last rendering,
without rendering again (see `_ops.fragment`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import msgspec
import nats.js.errors
from nats.aio.client import Client as NATS

from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs.ui import _overview as overview
from jetjobs.ui._dead_index import DeadLetterIndex

PAGE_SIZE = 50
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# How often the page's script asks for each section, in milliseconds.
REFRESH_EVERY = {"workers": 2000, "queues": 3000, "throughput": 15000, "deadletters": 3000}


class Section(msgspec.Struct, kw_only=True, frozen=True):
    """What one section shows: its template's context and the key of what reaches the HTML."""

    context: dict[str, Any]
    key: Any


def late_after(settings: Settings) -> float:
    """A heartbeat older than this (seconds) is shown as late: two intervals missed."""
    return 2 * settings.heartbeat_interval


async def workers(nc: NATS, settings: Settings) -> Section:
    """The live workers; the key leaves out the heartbeat's moment unless the beat is late."""
    rows = await overview.workers(nc, settings)
    late = late_after(settings)
    shown = [
        (
            msgspec.structs.replace(r.beat, beat_at=_EPOCH, in_flight=[]),
            r.in_flight_ids,
            len(r.beat.in_flight),
            round(r.age) if r.age > late else 0,
        )
        for r in rows
    ]
    return Section(context={"workers": rows, "late_after": late}, key=shown)


async def queues(nc: NATS, topology: Topology) -> Section:
    """The consumers' counts and the streams' sizes."""
    rows = await overview.queues(nc, topology)
    streams = await overview.streams(nc, topology)
    return Section(context={"queues": rows, "streams": streams}, key=(rows, streams))


def throughput(meter: overview.Throughput) -> Section:
    """The rates over whole minutes (they change once a minute)."""
    rates = meter.per_minute()
    started = meter.started_at
    window = f"{meter.window / 60:g} min" if meter.window >= 60 else f"{meter.window:g} s"
    context = {"rates": rates, "sampling_since": started, "window": window, "every": f"{meter.every:g} s"}
    return Section(context=context, key=(rates, started))


async def dead_letters(index: DeadLetterIndex, query: Mapping[str, str]) -> Section:
    """A newest-first page of dead letters, filtered by the query's `type` and `reason`."""
    with contextlib.suppress(nats.js.errors.NotFoundError):
        await index.refresh()  # no stream (deleted by hand): the letters known; an action re-creates it
    job_type = query.get("type", "").strip()
    reason = query.get("reason", "").strip()
    try:
        number = int(query.get("page", "1"))
    except ValueError:
        number = 1
    page = index.page(job_type=job_type, reason=reason, page=number, size=PAGE_SIZE)
    return Section(
        context={"letters": page, "last_seq": index.state[1]},
        key=(index.revision, page.job_type, page.reason, page.page),
    )


def filter_query(job_type: str, reason: str, page: int = 1) -> str:
    """The query string of a dead-letter view (empty values left out)."""
    parts = {"type": job_type, "reason": reason, "page": str(page) if page > 1 else ""}
    return urlencode({k: v for k, v in parts.items() if v})
