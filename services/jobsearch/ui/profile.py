"""Read the profile a re-draft writes from.

A stand-in until the profile loader (`jobsearch.profile.load_profile`, on the dedupe and run
branches) reaches main: then `read_profile` should become that function.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import msgspec

from jetjobs import ConfigError
from jobsearch.profile import Profile


def read_profile(path: Path) -> Profile:
    """The profile in the TOML file at `path`.

    Raises:
        ConfigError: the file is missing, not TOML, or not a valid profile (the message says which).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the profile ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data, Profile)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{path}: not a valid profile: {exc}") from None
