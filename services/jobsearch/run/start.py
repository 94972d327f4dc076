"""What a run checks before it starts anything: the profile, and that the drafting it asks for can
be done (a bad profile, or a language the offline template does not write, fails at start naming
what to fix, with exit status 2)."""

from __future__ import annotations

import sys
from pathlib import Path

from jetjobs import ConfigError
from jobsearch.llm import check_offline_language, load_llm_settings
from jobsearch.profile import Profile, ProfileError, load_profile


def read_profile(path: str) -> Profile:
    """The profile at `path`, checked against the provider settings of this environment (the
    stage services share it).

    Raises:
        ProfileError, ConfigError: what to fix.
    """
    profile = load_profile(Path(path))
    if profile.drafting.enabled:
        check_offline_language(profile, load_llm_settings())
    return profile


def checked_profile(path: str, command: str) -> Profile | None:
    """The profile at `path` as `read_profile` checks it; None after printing why it cannot run."""
    try:
        return read_profile(path)
    except (ProfileError, ConfigError) as exc:
        print(f"jobsearch {command}: {exc}", file=sys.stderr)
        return None
