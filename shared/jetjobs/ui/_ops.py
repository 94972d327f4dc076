"""The operations page (`jetjobs ui`): any deployment's workers, queues, dead letters and replays.

Read-only unless started with `allow_actions`: then requeue, purge, replay and cancel are offered,
each a POST with the CSRF token that first answers with a confirmation page and acts only on the
confirmed second POST. The data comes from the platform's own pieces (`live_workers`,
`DeadLetters`, `Ledger`, `replay`, `cancel`, `Topology`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote, urlencode

import anyio
import msgspec
from nats.aio.client import Client as NATS
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from jetjobs._errors import ConfigError
from jetjobs._joblog.cancel import cancel
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.replay import StatusFilter, plan_replay, replay
from jetjobs._settings import Settings
from jetjobs._transport.connection_events import server_address
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import ENCODER, utcnow
from jetjobs._wire.timespec import rfc3339
from jetjobs.ui import _overview as overview
from jetjobs.ui._access import checked_form
from jetjobs.ui._pages import TEMPLATES, build_app, templates

DEAD_LETTERS_SHOWN = 200
_pages = templates(TEMPLATES / "ops", globals_={"rfc3339": rfc3339, "quote": quote})


class Ops:
    """The deployment the page looks at, and whether it may change anything."""

    def __init__(self, nc: NATS, settings: Settings, *, allow_actions: bool) -> None:
        self.nc = nc
        self.settings = settings
        self.allow_actions = allow_actions
        self.topology = Topology(settings)
        self.throughput = overview.Throughput(nc, self.topology)
        self._dead: DeadLetters | None = None

    async def dead_letters(self) -> DeadLetters:
        """The namespace's dead letters (provisions the base streams on first use)."""
        if self._dead is None:
            js = self.nc.jetstream()
            await self.topology.ensure_base(js)
            self._dead = DeadLetters(js, self.topology, Ledger(await self.topology.status_kv(js)))
        return self._dead


def _ops(request: Request) -> Ops:
    ops: Ops = request.app.state.ops
    return ops


def _render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    ops = _ops(request)
    context |= {"ops": ops, "namespace": ops.settings.namespace, "actions": ops.allow_actions}
    return _pages.TemplateResponse(request, name, context, status_code=status_code)


async def _sections(ops: Ops) -> dict[str, Any]:
    dead = await ops.dead_letters()
    letters = []
    async for seq, record in dead.entries():
        letters.append((seq, record))
        if len(letters) >= DEAD_LETTERS_SHOWN:
            break
    return {
        "workers": await overview.workers(ops.nc, ops.settings),
        "queues": await overview.queues(ops.nc, ops.topology),
        "streams": await overview.streams(ops.nc, ops.topology),
        "rates": ops.throughput.per_minute(),
        "letters": letters,
        "now": utcnow(),
    }


async def home(request: Request) -> Response:
    """The whole page: workers, queues, throughput, dead letters, job lookup, replay."""
    ops = _ops(request)
    server = server_address(ops.nc) or "?"
    return _render(request, "home.html", server=server, message=request.query_params.get("done", ""),
                   **await _sections(ops))  # fmt: skip


async def fragment(request: Request) -> Response:
    """One section of the page, for the script's refresh (no reload)."""
    name = request.path_params["name"]
    if name not in ("workers", "queues", "throughput", "deadletters"):
        raise HTTPException(404, f"no section {name!r}")
    return _render(request, f"_{name}.html", **await _sections(_ops(request)))


async def job(request: Request) -> Response:
    """A job's ledger entry (`/jobs?id=` from the lookup form redirects here)."""
    job_id = request.path_params.get("job_id") or request.query_params.get("id", "").strip()
    if "job_id" not in request.path_params:
        if not job_id:
            return RedirectResponse("/", status_code=303)
        return RedirectResponse(f"/jobs/{quote(job_id, safe='')}", status_code=303)
    ops = _ops(request)
    dead = await ops.dead_letters()
    record, revision = await dead.ledger.get(job_id)
    letter = await dead.show(job_id)
    entry = msgspec.json.format(ENCODER.encode(record), indent=2).decode() if record else ""
    return _render(request, "job.html", status_code=200 if record or letter else 404, job_id=job_id,
                   record=record, revision=revision, entry=entry, letter=letter)  # fmt: skip


async def dead_letter(request: Request) -> Response:
    """One dead letter: the error, the original message (as text) and its headers."""
    job_id = request.path_params["job_id"]
    found = await (await _ops(request).dead_letters()).show(job_id)
    if found is None:
        return _render(request, "message.html", status_code=404, text=f"No dead letter for job {job_id}.")
    seq, record = found
    original = record.original.decode("utf-8", errors="replace")
    with contextlib.suppress(msgspec.DecodeError):  # not JSON (an invalid job): shown as it came
        original = msgspec.json.format(original, indent=2)
    return _render(request, "dead_letter.html", seq=seq, letter=record, original=original)


async def _confirm(request: Request, question: str) -> tuple[FormData, Response | None]:
    """Check the POST; without `confirm=yes`, the confirmation page to answer instead."""
    if not _ops(request).allow_actions:
        raise HTTPException(403, "read-only: start the page with --allow-actions to change anything")
    form = await checked_form(request)
    if form.get("confirm") == "yes":
        return form, None
    keep = {k: v for k, v in form.items() if k not in ("csrf", "confirm") and isinstance(v, str)}
    page = _render(request, "confirm.html", question=question, action=request.url.path, fields=keep)
    return form, page


def _done(text: str) -> Response:
    return RedirectResponse("/?" + urlencode({"done": text}), status_code=303)


async def requeue_one(request: Request) -> Response:
    """Requeue one dead letter (after confirmation)."""
    job_id = request.path_params["job_id"]
    _, page = await _confirm(request, f"Requeue job {job_id}? It runs again with its attempts reset.")
    if page:
        return page
    dead = await _ops(request).dead_letters()
    found = await dead.show(job_id)
    if found is None:
        return _done(f"no dead letter for job {job_id}")
    await dead.requeue(*found)
    return _done(f"requeued job {job_id}")


async def requeue_all(request: Request) -> Response:
    """Requeue every dead letter, or those of one type (after confirmation)."""
    form = await request.form()
    job_type = str(form.get("type") or "")
    which = f" of type {job_type}" if job_type else ""
    _, page = await _confirm(request, f"Requeue every dead letter{which}? Each runs again.")
    if page:
        return page
    dead = await _ops(request).dead_letters()
    count = await dead.requeue_all(job_type or None)
    return _done(f"requeued {count} job(s)")


async def purge(request: Request) -> Response:
    """Delete every dead letter (after confirmation)."""
    _, page = await _confirm(request, "Delete every dead letter? This cannot be undone.")
    if page:
        return page
    count = await (await _ops(request).dead_letters()).purge()
    return _done(f"purged {count} dead letter(s)")


async def cancel_job(request: Request) -> Response:
    """Cancel a queued or running job (after confirmation)."""
    job_id = request.path_params["job_id"]
    _, page = await _confirm(request, f"Cancel job {job_id}?")
    if page:
        return page
    ops = _ops(request)
    result = await cancel(ops.nc, ops.settings, job_id, reason="cancelled from jetjobs ui")
    was = f" (was {result.previous})" if result.previous else ""
    return _done(f"cancel {job_id}: {result.outcome}{was}")


def _plan_args(source: Any) -> dict[str, Any]:
    status = str(source.get("status") or "any")
    return {
        "since": str(source.get("since") or "").strip(),
        "until": str(source.get("until") or "").strip() or None,
        "job_type": str(source.get("type") or "").strip() or None,
        "subject": str(source.get("subject") or "").strip() or None,
        "status": status if status in ("succeeded", "dead", "any") else "any",
    }


async def replay_page(request: Request) -> Response:
    """The replay form and, with `since`, a dry run's report (nothing is published)."""
    args = _plan_args(request.query_params)
    if not args["since"]:
        return _render(request, "replay.html", args=args, plan=None, report=None, error="")
    ops = _ops(request)
    try:
        status: StatusFilter = args["status"]
        plan = plan_replay(args["since"], until=args["until"], job_type=args["job_type"],
                           subject=args["subject"], status=status)  # fmt: skip
        report = await replay(ops.nc, ops.settings, plan, dry_run=True)
    except ConfigError as exc:
        return _render(
            request, "replay.html", status_code=400, args=args, plan=None, report=None, error=str(exc)
        )
    return _render(request, "replay.html", args=args, plan=plan, report=report, error="")


async def replay_run(request: Request) -> Response:
    """Run a replay for real (after confirmation), with the plan the dry run showed."""
    form = await request.form()
    args = _plan_args(form)
    _, page = await _confirm(request, f"Replay the jobs since {args['since']} as new jobs?")
    if page:
        return page
    ops = _ops(request)
    try:
        plan = plan_replay(args["since"], until=args["until"], job_type=args["job_type"],
                           subject=args["subject"], status=args["status"],
                           replay_id=str(form.get("replay_id") or "") or None)  # fmt: skip
        report = await replay(ops.nc, ops.settings, plan, dry_run=False)
    except ConfigError as exc:
        raise HTTPException(400, str(exc)) from None
    return _done(
        f"replay {plan.replay_id}: published {report.published}, already replayed {report.already_replayed}"
    )


def build_ops_app(
    nc: NATS,
    settings: Settings,
    *,
    allow_actions: bool = False,
    token: str | None = None,
    loopback: bool = True,
) -> Starlette:
    """The operations page over `nc` and `settings`' namespace.

    Args:
        nc: a connection the page uses for every read and action.
        settings: the deployment's settings (its namespace names every stream and bucket).
        allow_actions: offer requeue, purge, replay and cancel (each after a confirmation).
        token: the access token, required when the server listens off loopback.
        loopback: the server listens on a loopback address only.
    """
    ops = Ops(nc, settings, allow_actions=allow_actions)

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
        Route("/jobs/{job_id}/cancel", cancel_job, methods=["POST"]),
        Route("/dead/requeue-all", requeue_all, methods=["POST"]),
        Route("/dead/purge", purge, methods=["POST"]),
        Route("/dead/{job_id}", dead_letter),
        Route("/dead/{job_id}/requeue", requeue_one, methods=["POST"]),
        Route("/replay", replay_page),
        Route("/replay", replay_run, methods=["POST"]),
    ]
    app = build_app(routes, title=f"jetjobs · {settings.namespace}", token=token, loopback=loopback,
                    lifespan=lifespan)  # fmt: skip
    app.state.ops = ops
    return app
