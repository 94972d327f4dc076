"""`jobsearch fit show` and `jobsearch fit reset`: the fit weights learned from your decisions.

No server needed: both read (and `reset` writes) the data dir's SQLite file
(`jobsearch.store.learned`). `show` learns first when a decision was made since the last time,
as the next scoring would.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from jobsearch.fit.learn import FIXED
from jobsearch.profile import load_profile
from jobsearch.profile_location import profile_path
from jobsearch.settings import load_pipeline_settings
from jobsearch.store import Store
from jobsearch.store.learned import forget, learning_state


def cmd_fit_show(args: argparse.Namespace) -> int:
    """Print the multipliers learned for the profile's person, and the decisions counted."""
    profile = load_profile(profile_path(args.profile, "fit show"))
    with Store.open(load_pipeline_settings().db_path) as store:
        state = learning_state(store.conn, profile)
    reset = f" (since the reset of {state.reset_at[:10]})" if state.reset_at else ""
    if state.learned is None:
        print(
            f"{state.person}: {state.decisions} decision(s){reset}; the score learns from "
            f"{state.needed}: until then it uses the profile's weights"
        )
        return 0
    learned = state.learned
    print(
        f"{state.person}: weights learned from {learned.decisions} decision(s){reset}, "
        f"{learned.wanted} wanted, {learned.decisions - learned.wanted} dismissed"
    )
    for component, factor in sorted(learned.multipliers.items(), key=lambda kv: (-abs(kv[1] - 1), kv[0])):
        print(f"  {component:<15} x{factor:.2f}")
    print(f"  (any other component x1.00; {', '.join(sorted(FIXED))} is never re-weighted)")
    return 0


def cmd_fit_reset(args: argparse.Namespace) -> int:
    """Forget the learned weights: the decisions made so far no longer count."""
    profile = load_profile(profile_path(args.profile, "fit reset"))
    with Store.open(load_pipeline_settings().db_path) as store:
        forgotten = forget(store.conn, profile)
    print(
        f"{profile.person.name}: forgot the weights learned from {forgotten} decision(s); the score "
        "uses the profile's weights until 20 new decisions are made",
        file=sys.stdout,
    )
    return 0


def add_fit_commands(sub: Any) -> None:
    """Add `fit show` and `fit reset` to the `jobsearch` parser."""
    fit = sub.add_parser(
        "fit",
        help="the fit weights learned from your decisions: show them, or reset them",
        description="After 20 decisions (a listing set to Applied, Screen, Interview or Offer, or "
        "to Dismissed), the fit score re-weights its components from them (docs/fit.md).",
    )
    commands = fit.add_subparsers(dest="fit_command", required=True, metavar="COMMAND")
    for name, func, text in (
        ("show", cmd_fit_show, "the multipliers learned, and how many decisions count"),
        ("reset", cmd_fit_reset, "forget the learned weights; only decisions made after count"),
    ):
        p = commands.add_parser(name, help=text, description=func.__doc__)
        p.add_argument(
            "--profile",
            help="the profile TOML (default $JOBSEARCH_PROFILE, else ~/.config/jobsearch/profile.toml)",
        )
        p.set_defaults(func=None, local=func)
