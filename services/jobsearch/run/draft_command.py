"""`jobsearch draft --failed` (and `--missing`): draft the listings owed a draft now, without
reading the boards (`jobsearch.run.owed` says which; every plain run does it first); and
`jobsearch draft LISTING_ID ...`: draft the listings the person names (an id or a unique prefix
each, as `jobsearch mark` takes them), whatever their status or fit."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from nats.aio.client import Client as NATS

from jetjobs import Settings
from jobsearch.listing import MergedListing
from jobsearch.profile_location import profile_path
from jobsearch.run.orchestra import Orchestra, conclude, new_run_id
from jobsearch.run.owed import submit_drafts, submit_owed_drafts
from jobsearch.run.start import checked_profile
from jobsearch.run.summary import CANNOT_RUN
from jobsearch.store import AmbiguousListing, Store, UnknownListing


async def cmd_draft(args: argparse.Namespace, settings: Settings, nc: NATS) -> int:
    """`jobsearch draft --failed --profile PROFILE`: draft the listings owed a draft, now."""
    args.profile = str(profile_path(args.profile, "draft"))
    profile = checked_profile(args.profile, "draft")
    if profile is None:
        return CANNOT_RUN
    if not profile.drafting.enabled:
        print(
            f"jobsearch draft: drafting is off in {args.profile} ([drafting] enabled = false)",
            file=sys.stderr,
        )
        return CANNOT_RUN
    run_id = new_run_id()
    orchestra = Orchestra(args, settings, nc, run_id)
    orchestra.command = "draft"
    db_path = orchestra.pipeline.db_path
    named: list[MergedListing] = []
    with Store.open(db_path) as store:
        try:
            named = [store.merged_listing(store.resolve_id(given)) for given in args.listings]
        except (UnknownListing, AmbiguousListing) as exc:
            print(f"jobsearch draft: {exc}", file=sys.stderr)
            return CANNOT_RUN
        owed = len(named) if named else len(store.owed_drafts(missing=args.missing))
        which = " ".join(m.id for m in named) if named else f"--{'missing' if args.missing else 'failed'}"
        store.start_run(run_id, profile=f"draft {which}", trigger="draft")
    if owed == 0:
        what = "no listing without a draft" if args.missing else "no listing whose draft failed or waits"
        print(f"jobsearch draft: nothing to draft: {what}")

    async def submit() -> None:
        if named:
            orchestra.owner.drafts_owed = await submit_drafts(orchestra.publisher, run_id, profile, named)
        else:
            orchestra.owner.drafts_owed = await submit_owed_drafts(
                orchestra.publisher, db_path, run_id, profile, missing=args.missing
            )

    return await conclude(orchestra, submit)


def add_draft_command(sub: Any, add_service_options: Any) -> None:
    """Add `draft` to the `jobsearch` parser."""
    p = sub.add_parser(
        "draft",
        help="draft the listings you name, or those whose drafts failed or wait (what every run does first)",
        description="Draft again, now, every Saved listing whose drafting failed (a provider was "
        "down, out of quota) or waits (a provider asked to be called later), with the profile's "
        "writing settings; start the stage services, wait, render the tracker, print a summary. "
        "A plain `jobsearch run` does the same before it reads the boards.",
    )
    p.add_argument(
        "listings",
        nargs="*",
        metavar="LISTING_ID",
        help="draft these listings (an id or a unique prefix each), whatever their status or fit",
    )
    p.add_argument(
        "--profile",
        metavar="PROFILE",
        help="the profile TOML file (default $JOBSEARCH_PROFILE, else ~/.config/jobsearch/profile.toml)",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--failed", action="store_true", help="the listings whose drafting failed or waits (the default)"
    )
    which.add_argument("--missing", action="store_true", help="every Saved listing that has no draft at all")
    add_service_options(p)
    p.set_defaults(func=cmd_draft)
