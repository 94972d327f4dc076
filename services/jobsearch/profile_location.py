"""Where the person's profile lives when a command is not told: `$JOBSEARCH_PROFILE`, else
`$XDG_CONFIG_HOME/jobsearch/profile.toml` (`~/.config/jobsearch/profile.toml`).

`jobsearch init` writes there by default, and `run`, `draft`, `ui` and `schedule add` read it, so
a person who set things up once types `jobsearch run` and nothing else; each says which file it
read, so a stale `$JOBSEARCH_PROFILE` is never a mystery.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path


def default_profile_path(env: Mapping[str, str] | None = None) -> Path:
    """The profile a command reads when given none."""
    env = os.environ if env is None else env
    given = env.get("JOBSEARCH_PROFILE")
    if given:
        return Path(given).expanduser()
    config = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(config).expanduser() / "jobsearch" / "profile.toml"


def profile_path(given: str | Path | None, command: str) -> Path:
    """`given`, or the default profile (saying so on stderr, with how to choose another)."""
    if given:
        return Path(given)
    path = default_profile_path()
    where = "$JOBSEARCH_PROFILE" if os.environ.get("JOBSEARCH_PROFILE") else "the default place"
    if path.exists():
        print(
            f"jobsearch {command}: reading the profile {path} ({where}; --profile for another)",
            file=sys.stderr,
        )
    else:
        print(
            f"jobsearch {command}: no profile at {path} ({where}): write one with `jobsearch init`, "
            "or name one with --profile",
            file=sys.stderr,
        )
    return path
