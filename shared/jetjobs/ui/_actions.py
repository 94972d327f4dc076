"""The operations page's actions: requeue, purge, cancel and replay, each confirmed first.

Each action is a POST with the CSRF token that first answers with a confirmation naming what it
will do to what ("Requeue 12 dead letters of type email.send with reason rejected?"), and acts
only on the confirmed second POST. The confirmation carries the extent it named (the last DLQ
sequence it counted, the JOBS sequence a replay's dry run read to), so a letter or a job that
arrives between the question and the answer is not part of what was confirmed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import markupsafe
import nats.js.errors
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from jetjobs._errors import ConfigError
from jetjobs._joblog.cancel import cancel
from jetjobs._joblog.replay import ReplayPlan, ReplayReport, plan_replay, replay
from jetjobs._wire.envelope import DEAD_LETTER_DECODER, utcnow
from jetjobs._wire.timespec import rfc3339
from jetjobs.ui._access import CSRF_FIELD, checked_form
from jetjobs.ui._context import ops_of, render
from jetjobs.ui._dead_index import LetterRow
from jetjobs.ui._pages import count_text, when_html


async def _checked(request: Request) -> FormData:
    """The POST's form, once actions are allowed and its CSRF token and origin are checked."""
    if not ops_of(request).allow_actions:
        raise HTTPException(403, "read-only: start the page with --allow-actions to change anything")
    return await checked_form(request)


def _confirm(
    request: Request, form: FormData, question: str, extra: dict[str, str] | None = None
) -> Response | None:
    """Without `confirm=yes` in `form`, the confirmation page to answer instead (else None).

    The confirmation posts the form's fields again, and `extra` (the extent the question named).
    """
    if form.get("confirm") == "yes":
        return None
    keep = {k: v for k, v in form.items() if k not in (CSRF_FIELD, "confirm") and isinstance(v, str)}
    return render(request, "confirm.html", question=question, action=request.url.path,
                  fields=keep | (extra or {}))  # fmt: skip


def _done(text: str) -> Response:
    return RedirectResponse("/?" + urlencode({"done": text}), status_code=303)


def _which(job_type: str, reason: str) -> str:
    """` of type X with reason Y`, or ` (every type and reason)`."""
    parts = ([f"of type {job_type}"] if job_type else []) + ([f"with reason {reason}"] if reason else [])
    return " " + " ".join(parts) if parts else " (every type and reason)"


async def requeue_one(request: Request) -> Response:
    """Requeue one dead letter (after a confirmation naming the job, its type, queue and reason)."""
    job_id = request.path_params["job_id"]
    form = await _checked(request)
    dead = await ops_of(request).dead_letters()
    found = await dead.show(job_id)
    if found is None:
        return _done(f"no dead letter for job {job_id}")
    seq, letter = found
    question = (
        f"Requeue job {job_id} (type {letter.type or '-'}, {letter.reason} after "
        f"{count_text(letter.attempts, 'attempt')}) on queue {letter.queue or '-'}? "
        "It runs again with its attempts reset."
    )
    if page := _confirm(request, form, question):
        return page
    await dead.requeue(seq, letter)
    ops_of(request).index.forget(seq)
    return _done(f"requeued job {job_id}")


async def _selection(request: Request, job_type: str, reason: str, through: int | None) -> list[LetterRow]:
    """The dead letters of the filters, up to DLQ sequence `through` (None: all there are now)."""
    index = ops_of(request).index
    await index.refresh()
    last = index.state[1] if through is None else through
    return [
        row
        for row in index.rows.values()
        if row.seq <= last and (not job_type or row.type == job_type) and (not reason or row.reason == reason)
    ]


def _through(form: FormData) -> int | None:
    text = str(form.get("through_seq") or "")
    return int(text) if text.isdigit() else None


async def requeue_all(request: Request) -> Response:
    """Requeue the dead letters the list's filters show (after a confirmation naming how many)."""
    form = await _checked(request)
    job_type, reason = str(form.get("type") or ""), str(form.get("reason") or "")
    through = _through(form)
    rows = await _selection(request, job_type, reason, through)
    question = f"Requeue {count_text(len(rows), 'dead letter')}{_which(job_type, reason)}? Each runs again."
    extent = {"through_seq": str(max((r.seq for r in rows), default=0))}
    if page := _confirm(request, form, question, extent):
        return page
    ops = ops_of(request)
    dead = await ops.dead_letters()
    js = ops.nc.jetstream()
    count = 0
    for row in sorted(rows, key=lambda r: r.seq):
        try:
            msg = await js.get_msg(ops.topology.dlq_stream, seq=row.seq)
        except nats.js.errors.NotFoundError:
            continue  # requeued or purged meanwhile
        assert msg.data is not None
        await dead.requeue(row.seq, DEAD_LETTER_DECODER.decode(msg.data))
        ops.index.forget(row.seq)
        count += 1
    return _done(f"requeued {count_text(count, 'dead letter')}{_which(job_type, reason)}")


async def purge(request: Request) -> Response:
    """Delete every dead letter (after a confirmation naming how many, by type)."""
    form = await _checked(request)
    through = _through(form)
    rows = await _selection(request, "", "", through)
    by_type: dict[str, int] = {}
    for row in rows:
        by_type[row.type or "-"] = by_type.get(row.type or "-", 0) + 1
    kinds = ", ".join(f"{t} {n:,}" for t, n in sorted(by_type.items()))
    question = (
        f"Delete all {count_text(len(rows), 'dead letter')}{f' ({kinds})' if kinds else ''}? "
        "This cannot be undone."
    )
    if page := _confirm(request, form, question, {"through_seq": str(max((r.seq for r in rows), default=0))}):
        return page
    ops = ops_of(request)
    last = max((r.seq for r in rows), default=0)
    if last:
        await ops.nc.jetstream().purge_stream(ops.topology.dlq_stream, seq=last + 1)
    await ops.index.refresh()
    return _done(f"purged {count_text(len(rows), 'dead letter')}")


async def cancel_job(request: Request) -> Response:
    """Cancel a queued or running job (after a confirmation naming it, its type and state)."""
    job_id = request.path_params["job_id"]
    form = await _checked(request)
    ops = ops_of(request)
    record, _ = await (await ops.dead_letters()).ledger.get(job_id)
    what = f"job {job_id}"
    if record is not None:
        where = f" on worker {record.worker}" if record.worker else ""
        what += f" (type {record.type}, {record.state}{where}, attempt {record.attempt})"
    if page := _confirm(request, form, f"Cancel {what}? It will not run (again)."):
        return page
    result = await cancel(ops.nc, ops.settings, job_id, reason="cancelled from jetjobs ui")
    was = f" (was {result.previous})" if result.previous else ""
    return _done(f"cancel {job_id}: {result.outcome}{was}")


def plan_args(source: Any) -> dict[str, Any]:
    """The replay form's fields, cleaned (`source`: the query or the posted form)."""
    status = str(source.get("status") or "any")
    through = str(source.get("through_seq") or "")
    return {
        "since": str(source.get("since") or "").strip(),
        "until": str(source.get("until") or "").strip() or None,
        "job_type": str(source.get("type") or "").strip() or None,
        "subject": str(source.get("subject") or "").strip() or None,
        "status": status if status in ("succeeded", "dead", "any") else "any",
        "again": source.get("again") in ("1", "on", "yes"),
        "include_replays": source.get("include_replays") in ("1", "on", "yes"),
        "through_seq": int(through) if through.isdigit() else None,
        "replay_id": str(source.get("replay_id") or "").strip() or None,
    }


def make_plan(args: dict[str, Any]) -> ReplayPlan:
    """The plan of the form's fields.

    Raises:
        ConfigError: a bad time, both a type and a subject, and the like.
    """
    return plan_replay(args["since"], until=args["until"], job_type=args["job_type"], subject=args["subject"],
                       status=args["status"], again=args["again"], include_replays=args["include_replays"],
                       through_seq=args["through_seq"], replay_id=args["replay_id"])  # fmt: skip


def replay_question(plan: ReplayPlan, report: ReplayReport, end: datetime) -> markupsafe.Markup:
    """`Replay 1,204 jobs of type jobsearch.draft from 07:00-08:00?` (times in the reader's zone)."""
    if plan.job_type:
        what = f" of type {plan.job_type}"
    elif plan.subject:
        what = f" on {plan.subject}"
    else:
        kinds = ", ".join(f"{t} {n:,}" for t, n in sorted(report.to_publish_by_type.items()))
        what = f" ({kinds})" if kinds else ""
    return markupsafe.Markup("Replay {}{} from {}\N{EN DASH}{}? Each runs again as a new job.").format(
        count_text(report.to_publish, "job"), what, when_html(plan.since, "clock"), when_html(end, "clock")
    )


async def replay_run(request: Request) -> Response:
    """Run a replay for real (after a confirmation naming how many jobs, of what, from when)."""
    form = await _checked(request)
    ops = ops_of(request)
    try:
        plan = make_plan(plan_args(form))
        if form.get("confirm") != "yes":
            preview = await replay(ops.nc, ops.settings, plan, dry_run=True)
            extent = {"since": rfc3339(plan.since), "replay_id": plan.replay_id,
                      "through_seq": str(plan.through_seq or preview.end_seq)}  # fmt: skip
            question = replay_question(plan, preview, plan.until or utcnow())
            if page := _confirm(request, form, question, extent):
                return page
    except ConfigError as exc:
        raise HTTPException(400, str(exc)) from None
    try:
        report = await replay(ops.nc, ops.settings, plan, dry_run=False)
    except ConfigError as exc:
        raise HTTPException(400, str(exc)) from None
    return _done(
        f"replay {plan.replay_id}: published {report.published:,} of {count_text(report.to_publish, 'job')}, "
        f"already replayed {report.already_replayed:,}, replayed before by another replay "
        f"{report.replayed_before:,} (window {rfc3339(plan.since)} to "
        f"{rfc3339(plan.until) if plan.until else 'the log as previewed'})"
    )
