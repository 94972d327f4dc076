"""The `jobsearch` commands that need no NATS server: `init`, `listings`, `namespace`, `schemas`.

Each is a plain function of its parsed arguments returning the exit code; `jobsearch.cli` adds
them with `add_local_commands` and runs them without connecting.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import msgspec

from jobsearch.dedupe.report import StoredListing, explain, read_listings
from jobsearch.profile import ProfileError, write_example_profile
from jobsearch.profile_location import default_profile_path
from jobsearch.schema_export import check_schemas, write_schemas
from jobsearch.settings import load_pipeline_settings
from jobsearch.store.identity import namespace_of


def cmd_init(args: argparse.Namespace) -> int:
    """Write the commented example profile, or with --from-cv one whose person is read from a CV
    (never over an existing file)."""
    path = Path(args.path) if args.path else default_profile_path()
    then = "`jobsearch run`" if path == default_profile_path() else f"`jobsearch run --profile {path}`"
    if args.from_cv is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_example_profile(path)
        print(f"wrote {path}: edit the person, the search and the sources, then {then}")
        return 0
    if path.exists():  # before the CV is read, which may cost a model call
        raise ProfileError(f"{path} already exists: not overwriting it (choose another path)")
    # pypdf, python-docx and markdown-it load only for this command.
    from jobsearch.cv import import_cv, write_new_profile  # noqa: PLC0415

    result = import_cv(Path(args.from_cv))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_new_profile(path, result.text)
    for note in result.notes:
        print(note)
    print(f"wrote {path}: confirm each line marked `# check`, set the search and the sources, then {then}")
    return 0


def cmd_listings(args: argparse.Namespace) -> int:
    """Print the merged listings and their sources from the pipeline's SQLite file."""
    db_path = load_pipeline_settings().db_path
    if args.explain:
        return _explain(db_path, args.explain)
    stored = read_listings(db_path, include_dropped=args.all)
    # best fit first (unscored listings last), then newest first as read
    stored = sorted(stored, key=lambda s: -(s.fit if s.fit is not None else -1))
    if args.min_fit is not None:
        stored = [s for s in stored if s.fit is not None and s.fit >= args.min_fit]
    if args.json:
        sys.stdout.write(msgspec.json.encode([msgspec.to_builtins(s) for s in stored]).decode() + "\n")
        return 0
    if not stored:
        print(f"no listings yet in {db_path}")
        return 0
    for item in stored:
        print(_describe(item))
    kept = sum(1 for s in stored if s.state != "dropped")
    print(f"\n{kept} listing(s)" + (f", {len(stored) - kept} dropped" if args.all else "") + f" in {db_path}")
    return 0


def _explain(db_path: Path, listing_id: str) -> int:
    """`jobsearch listings --explain ID`: each posting of the listing and why it joined it."""
    postings = explain(db_path, listing_id)
    if not postings:
        print(
            f"no listing has the id {listing_id!r} in {db_path} (or the prefix names several)",
            file=sys.stderr,
        )
        return 1
    for p in postings:
        scores = []
        if p.title_score is not None:
            scores.append(f"title {p.title_score:.0f}/100")
        if p.text_score is not None:
            scores.append(f"text {p.text_score:.2f}")
        shown = f" ({', '.join(scores)})" if scores else ""
        print(f"{_line(p.key)}  {p.board}  {_line(p.url)}")
        seen = f"first seen {p.first_seen[:10]}, last {p.last_seen[:10]}"
        print(f"    joined by {p.how}: {_line(p.why)}{shown}; {seen}")
    return 0


def _describe(item: StoredListing) -> str:
    listing = item.listing
    where = "; ".join(listing.locations) or ("remote" if listing.remote else "-")
    posted = listing.posted_at.isoformat() if listing.posted_at else "----------"
    # Scraped text: printed as data, one line per field, control characters shown escaped.
    head = (
        f"{posted}  {_line(listing.company) or '-'}: {_line(listing.title)}  [{_line(where)}]  {listing.id}"
    )
    state = f"    state: {item.state}" + (f" ({item.drop_reason})" if item.drop_reason else "")
    if item.closed_at is not None:
        state += f"; closed {item.closed_at.isoformat()} (taken down by every board that posted it)"
    elif item.stale_at is not None:
        state += f"; stale since {item.stale_at.isoformat()} (no board carried it lately)"
    lines = [head, state]
    if item.fit is not None:
        why = "; ".join(f"{r.points:+d} {_line(r.text)}" for r in item.fit_reasons[:4])
        lines.append(f"    fit: {item.fit}" + (f" ({why})" if why else ""))
    lines += [f"    {s.board:<15} {_line(s.external_id):<24} {_line(s.url)}" for s in listing.sources]
    return "\n".join(lines)


def _line(text: str) -> str:
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


def cmd_namespace(args: argparse.Namespace) -> int:
    """Print the jetjobs namespace of the data dir's jobs (for `jetjobs dlq list` and the like)."""
    env_namespace = os.environ.get("JETJOBS_NAMESPACE")
    print(env_namespace or namespace_of(load_pipeline_settings().db_path))
    return 0


def cmd_schemas(args: argparse.Namespace) -> int:
    """Write (or with --check, verify) the pipeline's JSON Schemas."""
    directory = Path(args.directory)
    if args.check:
        stale = check_schemas(directory)
        for name in stale:
            print(f"stale: {directory / name}", file=sys.stderr)
        return 1 if stale else 0
    for name in write_schemas(directory):
        print(directory / name)
    return 0


def add_local_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `init`, `listings`, `namespace` and `schemas` to the `jobsearch` parser."""
    p = sub.add_parser("init", help="write a commented example profile", description=cmd_init.__doc__)
    p.add_argument(
        "path",
        nargs="?",
        help="where to write it (default $JOBSEARCH_PROFILE, else ~/.config/jobsearch/profile.toml, "
        "where run, draft, ui and schedule add look when given no --profile)",
    )
    p.add_argument(
        "--from-cv",
        metavar="FILE",
        help="fill the person (name, contact, experience, education, skills) from a CV: .pdf, .docx, "
        ".md or .txt; read by the model LLM_PROVIDER names, else by rules; each fact marked `# check`",
    )
    p.set_defaults(func=None, local=cmd_init)

    p = sub.add_parser(
        "listings",
        help="print the merged listings and their sources",
        description="Print the merged listings (one real job each) with every board posting it was "
        "seen on, from the pipeline's SQLite file (JOBSEARCH_DATA_DIR, JOBSEARCH_DB).",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON (the MergedListing, state, closed_at, stale_at, drop_reason, fit, fit_reasons)",
    )
    p.add_argument(
        "--min-fit", type=int, metavar="N", help="only the listings whose fit is at least N (0-100)"
    )
    p.add_argument("--all", action="store_true", help="include the listings the profile's filters dropped")
    p.add_argument(
        "--explain",
        metavar="ID",
        help="why each posting joined the listing ID (a unique prefix will do): which key, which scores",
    )
    p.set_defaults(func=None, local=cmd_listings)

    p = sub.add_parser(
        "namespace",
        help="print the data dir's jetjobs namespace",
        description="Print the jetjobs namespace that holds this data dir's queues, ledger and dead "
        "letters (`jobsearch-<id>`, the id stored in its database; JETJOBS_NAMESPACE overrides it), "
        "e.g. `JETJOBS_NAMESPACE=$(jobsearch namespace) jetjobs dlq list`.",
    )
    p.set_defaults(func=None, local=cmd_namespace)

    p = sub.add_parser(
        "schemas",
        help="write the pipeline's JSON Schemas",
        description="Write the JSON Schemas of the pipeline's job payloads and the profile.",
    )
    p.add_argument("directory", nargs="?", default="schemas/jobsearch", help="default schemas/jobsearch")
    p.add_argument("--check", action="store_true", help="exit 1 if the files there are stale")
    p.set_defaults(func=None, local=cmd_schemas)
