"""A run's digest as the person reads it: a subject, a text, a small HTML table and a push.

```python
message = compose_digest(db_path, run_id, profile.digest, summary_lines=lines)  # None: nothing new
message = failure_digest(profile.digest, run_id=run_id, reason=why, schedule="mornings")
```
What goes in is `jobsearch.digest.told`'s (every scraped string already one clean line, every
link http(s)); here each is escaped for the HTML it lands in (`html.escape`, quotes too), and
nothing else is markup. A hand-written table rather than a template engine: the digest is one
small fixed shape, and a mail client ignores stylesheets and scripts anyway.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from pathlib import Path
from urllib.parse import quote

import msgspec

from jobsearch.digest.told import Entry, plain_line, printable, to_tell, web_link
from jobsearch.profile import Digest

TOP_REASONS = 3  # of a fit's reasons, the largest, in a listing's line
PUSH_LISTINGS = 3  # titles in the push (ntfy shows about four lines)
_PUSH_LINE = 80
_SUBJECT_TITLE = 80
_SUMMARY_LINE = 300

# The footer of every digest: how the person stops them (docs/digest.md).
STOP = (
    "You get this because your profile has a [digest] table: remove the table (or its channel's "
    "line) to stop these messages, or `jobsearch schedule remove NAME` to stop the scheduled runs."
)


class DigestMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One digest, ready for every channel (`jobsearch.digest.channels`)."""

    subject: str  # one line: the email's subject
    text: str  # the plain-text body (email, webhook)
    html: str  # the HTML body (email)
    push_title: str  # a push notification's title (ntfy)
    push_message: str  # its body: a few short lines
    click: str  # the URL a push opens: the review page
    listed: list[str]  # listing ids told as new or updated
    closed: list[str]  # listing ids told as taken down


def compose_digest(
    db_path: Path, run_id: str, settings: Digest, *, summary_lines: list[str]
) -> DigestMessage | None:
    """Run `run_id`'s digest: its best new or updated listings and the person's listings taken
    down (`jobsearch.digest.told` says which), then the run's summary; None when there is neither.

    At most `settings.max_listings` of each kind are named; the rest are counted, with a link to
    the review page.
    """
    found = to_tell(db_path, run_id, min_fit=settings.min_fit)
    if not found.listed and not found.closed:
        return None
    page = settings.page_url.rstrip("/") or settings.page_url
    listed, more = found.listed[: settings.max_listings], len(found.listed) - settings.max_listings
    closed, more_closed = found.closed[: settings.max_listings], len(found.closed) - settings.max_listings
    listed_words, closed_words = _headline(found.listed, found.closed)
    headline = "; ".join(words for words in (listed_words, closed_words) if words)
    best = f"{listed_words}{_best(found.listed)}" if listed_words else ""
    parts = _Parts(
        run_id=run_id,
        headline=headline,
        page=page,
        listed=listed,
        more=more,
        closed=closed,
        more_closed=more_closed,
        summary=[_summary_line(line) for line in summary_lines],
    )
    return DigestMessage(
        subject="jobsearch: " + "; ".join(words for words in (best, closed_words) if words),
        text=_text(parts),
        html=_html(parts),
        push_title=f"jobsearch: {headline}",
        push_message=_push(listed, max(more, 0), found.closed),
        click=settings.page_url,
        listed=[e.listing_id for e in listed],
        closed=[e.listing_id for e in closed],
    )


def failure_digest(settings: Digest, *, run_id: str, reason: str, schedule: str) -> DigestMessage:
    """The digest of a scheduled run that could not start (its profile became invalid, say):
    what went wrong and what to fix; it tells no listings."""
    name = plain_line(schedule, 80)
    # The reason may be several lines (a profile's errors); each is kept, made safe.
    lines = [clean for line in reason.splitlines() if (clean := _summary_line(line).strip())]
    lines = lines or ["(no reason was given)"]
    fix = (
        "What to fix: what the reason names, most often the profile file (a key misspelt, a value "
        "out of range, a file moved or unreadable). `jobsearch run --profile FILE` at a terminal "
        "says what is wrong before anything starts. The schedule stays: its next firing runs again, "
        "and `jobsearch schedule list` shows how its last runs went."
    )
    subject = f"jobsearch: the scheduled run '{name}' did not run"
    text = "\n".join(
        [
            f"The scheduled run '{name}' (run {plain_line(run_id)}) did not run:",
            "",
            *(f"  {line}" for line in lines),
            "",
            fix,
            "",
            f"Review page: {settings.page_url}",
        ]
    )
    body = "".join(f"{escape(line)}\n" for line in lines)
    html = _page(
        subject,
        f"<p>The scheduled run <b>{escape(name)}</b> (run {escape(plain_line(run_id))}) did not run:</p>"
        f"<pre>{body}</pre><p>{escape(fix)}</p>"
        f"<p>{_anchor(settings.page_url, 'Review page')}</p>",
    )
    return DigestMessage(
        subject=subject,
        text=text,
        html=html,
        push_title=f"jobsearch: '{name}' did not run",
        push_message=plain_line(lines[0], 2 * _PUSH_LINE) + "\nFix it; the next firing runs again.",
        click=settings.page_url,
        listed=[],
        closed=[],
    )


# -- the parts ------------------------------------------------------------------------------


class _Parts(msgspec.Struct, frozen=True, kw_only=True):
    """What the text and the HTML both show: the entries named, and how many were not."""

    run_id: str
    headline: str
    page: str  # the review page, without a trailing slash
    listed: list[Entry]
    more: int  # new or updated listings not named (<= 0: none)
    closed: list[Entry]
    more_closed: int
    summary: list[str]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _headline(listed: list[Entry], closed: list[Entry]) -> tuple[str, str]:
    """(`3 new listings` or `2 new and 1 updated listings`, `1 listing of yours taken down`);
    "" for a kind with none."""
    new = sum(not e.updated for e in listed)
    updated = len(listed) - new
    if new and updated:
        listed_words = f"{new} new and {_plural(updated, 'updated listing')}"
    elif listed:
        listed_words = _plural(len(listed), "new listing" if new else "updated listing")
    else:
        listed_words = ""
    closed_words = f"{_plural(len(closed), 'listing')} of yours taken down" if closed else ""
    return listed_words, closed_words


def _best(listed: list[Entry]) -> str:
    """` (best: Senior Python Engineer at Acme, fit 82)`, or "" with no listing."""
    if not listed:
        return ""
    best = listed[0]
    fit = f", fit {best.fit}" if best.fit is not None else ""
    return f" (best: {plain_line(best.title, _SUBJECT_TITLE)} at {plain_line(best.company, 60)}{fit})"


def _fit_words(entry: Entry) -> str:
    """`fit 82: the title is your role (+25); python (+10)`, or `fit not scored`."""
    if entry.fit is None:
        return "fit not scored"
    reasons = "; ".join(f"{r.text} ({r.points:+d})" for r in entry.reasons[:TOP_REASONS])
    return f"fit {entry.fit}: {reasons}" if reasons else f"fit {entry.fit}"


def _review_link(page: str, entry: Entry) -> str:
    return f"{page}/listings/{quote(entry.listing_id, safe='')}"


def _summary_line(line: str) -> str:
    """A summary line as printed (its columns kept), with nothing that could break the message."""
    line = printable(line).rstrip()
    return line if len(line) <= _SUMMARY_LINE else line[: _SUMMARY_LINE - 1] + "…"


def _text(p: _Parts) -> str:
    lines = [f"jobsearch: {p.headline} (run {plain_line(p.run_id)})", ""]
    for n, e in enumerate(p.listed, 1):
        kind = " (updated)" if e.updated else ""
        facts = [f"{e.title}{kind}", e.company, e.place or "place not stated", e.salary, _fit_words(e)]
        lines.append(f"{n}. " + " — ".join(fact for fact in facts if fact))
        lines.append(f"   {e.link or '(no web link)'}")
        lines.append(f"   review: {_review_link(p.page, e)}")
    if p.more > 0:
        lines.append(f"and {p.more} more on the review page: {p.page}")
    if p.closed:
        if p.listed:
            lines.append("")
        lines.append("Taken down by their boards (you were following them):")
        for e in p.closed:
            when = f"closed {e.closed_at.isoformat()}" if e.closed_at else "closed"
            lines.append("- " + " — ".join([e.title, e.company, f"your status: {e.status}", when]))
            lines.append(f"  {e.link or '(no web link)'}")
        if p.more_closed > 0:
            lines.append(f"and {p.more_closed} more on the review page: {p.page}")
    if p.summary:
        lines += ["", "The run:", *p.summary]
    lines += ["", f"Review page: {p.page}", STOP]
    return "\n".join(lines) + "\n"


def _anchor(url: str | None, label: str) -> str:
    """`<a href>` for an http(s) address (escaped); the bare escaped label for anything else."""
    link = web_link(url)
    return f'<a href="{escape(link)}">{escape(label)}</a>' if link else escape(label)


def _cells(values: Iterable[str], tag: str = "td") -> str:
    style = ' style="border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top"'
    return "<tr>" + "".join(f"<{tag}{style}>{value}</{tag}>" for value in values) + "</tr>"


def _table(head: list[str], rows: list[list[str]]) -> str:
    return (
        '<table style="border-collapse:collapse;font-size:14px">'
        f"<thead>{_cells(map(escape, head), 'th')}</thead><tbody>{''.join(map(_cells, rows))}</tbody></table>"
    )


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
        f"{escape(title)}</title></head>"
        f'<body style="font-family:sans-serif">{body}</body></html>'
    )


def _html(p: _Parts) -> str:
    html = [f"<h2>jobsearch: {escape(p.headline)}</h2>"]
    if p.listed:
        rows = [
            [
                escape(str(e.fit) if e.fit is not None else "-"),
                _anchor(e.link, e.title) + (" <i>(updated)</i>" if e.updated else "")
                + f"<br>{escape(e.company)}",
                escape(e.place),
                escape(e.salary),
                escape("; ".join(f"{r.text} ({r.points:+d})" for r in e.reasons[:TOP_REASONS])),
                _anchor(_review_link(p.page, e), "review"),
            ]
            for e in p.listed
        ]  # fmt: skip
        html.append(_table(["Fit", "Listing", "Place", "Salary", "Why", ""], rows))
    if p.more > 0:
        html.append(f"<p>and {p.more} more on the {_anchor(p.page, 'review page')}.</p>")
    if p.closed:
        html.append("<h3>Taken down by their boards</h3>")
        rows = [
            [
                _anchor(e.link, e.title) + f"<br>{escape(e.company)}",
                escape(e.status),
                escape(e.closed_at.isoformat() if e.closed_at else ""),
            ]
            for e in p.closed
        ]
        html.append(_table(["Listing", "Your status", "Closed"], rows))
        if p.more_closed > 0:
            html.append(f"<p>and {p.more_closed} more on the {_anchor(p.page, 'review page')}.</p>")
    if p.summary:
        body = "".join(f"{escape(line)}\n" for line in p.summary)
        html.append(f'<h3>The run</h3><pre style="font-size:12px">{body}</pre>')
    html.append(f"<p>{_anchor(p.page, 'Review page')} · run {escape(plain_line(p.run_id))}</p>")
    html.append(f'<p style="color:#666;font-size:smaller">{escape(STOP)}</p>')
    return _page(f"jobsearch: {p.headline}", "".join(html))


def _push(listed: list[Entry], more: int, closed: list[Entry]) -> str:
    """Up to three `82 Senior Python Engineer · Acme` lines, then one line for the rest."""
    lines = []
    for e in listed[:PUSH_LISTINGS]:
        fit = f"{e.fit} " if e.fit is not None else ""
        lines.append(plain_line(f"{fit}{e.title} · {e.company}", _PUSH_LINE))
    rest = []
    unnamed = max(len(listed) - PUSH_LISTINGS, 0) + more
    if unnamed:
        rest.append(f"+{unnamed} more")
    if closed:
        rest.append(f"{len(closed)} of yours taken down")
        if not listed:
            lines.extend(plain_line(f"taken down: {e.title} · {e.company}", _PUSH_LINE) for e in closed[:2])
    if rest:
        lines.append("; ".join(rest))
    return "\n".join(lines)
