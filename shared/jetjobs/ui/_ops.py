"""The operations page (`jetjobs ui`): any deployment's workers, queues, dead letters and replays.

Read-only unless started with `allow_actions`: then requeue, purge, replay and cancel are offered
(`_actions`), each confirmed first. The data comes from the platform's own pieces
(`live_workers`, `DeadLetters`, `Ledger`, `replay`, `cancel`, `Topology`).

The page's script refreshes each section on its own schedule (`_sections.REFRESH_EVERY`), and
only while the tab is visible. A fragment answers with an `ETag` made from what the section shows
(`_sections`); a refresh that sends it back while nothing changed gets "304 Not Modified" and
costs a few bytes, and the server renders nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote

import anyio
import msgspec
from nats.aio.client import Client as NATS
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from jetjobs._errors import ConfigError
from jetjobs._joblog.replay import replay
from jetjobs._settings import Settings
from jetjobs._transport.connection_events import server_address
from jetjobs._wire.envelope import ENCODER, utcnow
from jetjobs.ui import _actions as actions
from jetjobs.ui import _overview as overview
from jetjobs.ui import _sections as sections
from jetjobs.ui._context import Ops, ops_of, render, render_text
from jetjobs.ui._pages import build_app

FRAGMENTS = ("workers", "queues", "throughput", "deadletters")
_TEMPLATE_VERSION = "2"  # part of every ETag: a changed template must not be answered "unchanged"


async def _section(ops: Ops, name: str, query: Any) -> sections.Section:
    match name:
        case "workers":
            return await sections.workers(ops.nc, ops.settings)
        case "queues":
            return await sections.queues(ops.nc, ops.topology)
        case "throughput":
            return sections.throughput(ops.throughput)
        case _:
            return await sections.dead_letters(ops.index, query)


def _etag(request: Request, name: str, key: Any) -> str:
    identity = msgspec.json.encode([_TEMPLATE_VERSION, name, request.app.state.csrf_token, key])
    return '"' + hashlib.blake2b(identity, digest_size=12).hexdigest() + '"'


async def home(request: Request) -> Response:
    """The whole page: workers, queues, throughput, dead letters, job lookup, replay."""
    ops = ops_of(request)
    context: dict[str, Any] = {}
    etags: dict[str, str] = {}
    for name in FRAGMENTS:
        section = await _section(ops, name, request.query_params)
        context |= section.context
        etags[name] = _etag(request, name, section.key)  # the script's first refresh can get a 304
    letters = context["letters"]
    query = sections.filter_query(letters.job_type, letters.reason, letters.page)
    return render(request, "home.html", server=server_address(ops.nc) or "?",
                  message=request.query_params.get("done", ""), dead_query=query, etags=etags,
                  **context)  # fmt: skip


async def fragment(request: Request) -> Response:
    """One section of the page, for the script's refresh; "304" when it has not changed."""
    name = request.path_params["name"]
    if name not in FRAGMENTS:
        raise HTTPException(404, f"no section {name!r}")
    ops = ops_of(request)
    section = await _section(ops, name, request.query_params)
    etag = _etag(request, name, section.key)
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    html = ops.rendered.get(etag)
    if html is None:
        ops.renders[name] += 1
        html = render_text(request, f"_{name}.html", **section.context)
        ops.keep(etag, html)
    return HTMLResponse(html, headers=headers)


async def job(request: Request) -> Response:
    """A job's ledger entry (`/jobs?id=` from the lookup form redirects here)."""
    job_id = request.path_params.get("job_id") or request.query_params.get("id", "").strip()
    if "job_id" not in request.path_params:
        if not job_id:
            return RedirectResponse("/", status_code=303)
        return RedirectResponse(f"/jobs/{quote(job_id, safe='')}", status_code=303)
    ops = ops_of(request)
    dead = await ops.dead_letters()
    record, revision = await dead.ledger.get(job_id)
    letter = await dead.show(job_id)
    entry = msgspec.json.format(ENCODER.encode(record), indent=2).decode() if record else ""
    return render(request, "job.html", status_code=200 if record or letter else 404, job_id=job_id,
                  record=record, revision=revision, entry=entry, letter=letter)  # fmt: skip


async def dead_letter(request: Request) -> Response:
    """One dead letter: the error, the original message (as text) and its headers."""
    job_id = request.path_params["job_id"]
    found = await (await ops_of(request).dead_letters()).show(job_id)
    if found is None:
        text = f"No dead letter for job {job_id}: it was requeued or purged, or it never failed."
        return render(request, "message.html", status_code=404, text=text)
    seq, record = found
    original = record.original.decode("utf-8", errors="replace")
    with contextlib.suppress(msgspec.DecodeError):  # not JSON (an invalid job): shown as it came
        original = msgspec.json.format(original, indent=2)
    return render(request, "dead_letter.html", seq=seq, letter=record, original=original)


async def replay_page(request: Request) -> Response:
    """The replay form and, with `since`, a dry run's report (nothing is published)."""
    args = actions.plan_args(request.query_params)
    if not args["since"]:
        return render(request, "replay.html", args=args, plan=None, report=None, error="", question="")
    ops = ops_of(request)
    try:
        plan = actions.make_plan(args)
        report = await replay(ops.nc, ops.settings, plan, dry_run=True)
    except ConfigError as exc:
        return render(request, "replay.html", status_code=400, args=args, plan=None, report=None,
                      error=str(exc), question="")  # fmt: skip
    end = plan.until or utcnow()
    return render(request, "replay.html", args=args, plan=plan, report=report, error="", end=end,
                  question=actions.replay_question(plan, report, end))  # fmt: skip


def build_ops_app(
    nc: NATS,
    settings: Settings,
    *,
    allow_actions: bool = False,
    token: str | None = None,
    loopback: bool = True,
    throughput: overview.Throughput | None = None,
) -> Starlette:
    """The operations page over `nc` and `settings`' namespace.

    Args:
        nc: a connection the page uses for every read and action.
        settings: the deployment's settings (its namespace names every stream and bucket).
        allow_actions: offer requeue, purge, replay and cancel (each after a confirmation).
        token: the access token, required when the server listens off loopback.
        loopback: the server listens on a loopback address only.
        throughput: the throughput meter (default: a sample every 5 s, rates over whole minutes).
    """
    ops = Ops(nc, settings, allow_actions=allow_actions, throughput=throughput)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await ops.dead_letters()  # provisions the streams the page reads, as `jetjobs dlq` does
        async with anyio.create_task_group() as tg:
            tg.start_soon(ops.throughput.run)
            yield
            tg.cancel_scope.cancel()

    routes = [
        Route("/", home),
        Route("/fragments/{name}", fragment),
        Route("/jobs", job),
        Route("/jobs/{job_id}", job),
        Route("/jobs/{job_id}/cancel", actions.cancel_job, methods=["POST"]),
        Route("/dead/requeue-all", actions.requeue_all, methods=["POST"]),
        Route("/dead/purge", actions.purge, methods=["POST"]),
        Route("/dead/{job_id}", dead_letter),
        Route("/dead/{job_id}/requeue", actions.requeue_one, methods=["POST"]),
        Route("/replay", replay_page),
        Route("/replay", actions.replay_run, methods=["POST"]),
    ]
    title = "jetjobs operations" + ("" if settings.namespace == "jetjobs" else f" · {settings.namespace}")
    app = build_app(routes, title=title, token=token, loopback=loopback, lifespan=lifespan)
    app.state.ops = ops
    return app
