"""`jobsearch boards find --add`: the sources found, appended to a profile file as TOML text.

The profile is the person's own file: its comments, order and layout must stay as they are, and a
TOML writer would drop the comments (tomllib cannot write at all). So each source becomes a
`[[sources]]` table of text appended at the end of the file, which TOML allows wherever the file's
last table is. A source the profile already has (the same board and slug) is not added again.
The combined text is checked before anything is written (a profile whose `sources` is an inline
array cannot take `[[sources]]` tables, and then the file is left untouched), and the file is
loaded again once written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import msgspec

from jobsearch.finding.slugs import source_key
from jobsearch.profile import Profile, ProfileError, Source, load_profile, parse_profile

_LAST_FIELDS: Final = ("name", "base_url")  # after the fields that say what is read


@dataclass(frozen=True, slots=True)
class Appended:
    """What `append_sources` did: the sources added, and those the profile already had."""

    added: list[Source]
    present: list[Source]
    profile: Profile  # the file as loaded after writing


def append_sources(path: Path, tables: Sequence[tuple[Source, str]], *, heading: str) -> Appended:
    """Append each `(source, comment)` the profile at `path` lacks, under a `heading` comment.

    Raises:
        ProfileError: the profile does not load before, or would not load after (then nothing
            is written).
    """
    before = load_profile(path)
    have = {source_key(s) for s in before.sources}
    added: list[Source] = []
    present: list[Source] = []
    blocks: list[str] = []
    for source, comment in tables:
        key = source_key(source)
        if key in have:
            present.append(source)
            continue
        have.add(key)
        added.append(source)
        blocks.append(source_table(source, comment))
    if not added:
        return Appended(added, present, before)
    text = path.read_text(encoding="utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    addition = "\n".join([toml_comment(heading), *blocks])
    if text and not text.endswith("\n"):
        addition = "\n" + addition
    addition = ("\n" if text else "") + addition
    addition = addition.replace("\n", newline)
    try:
        parse_profile(text + addition, str(path))
    except ProfileError as exc:
        raise ProfileError(f"{exc} (with the sources found appended: {path} is left as it was)") from None
    with path.open("a", encoding="utf-8", newline="") as out:
        out.write(addition)
    return Appended(added, present, load_profile(path))


def source_table(source: Source, comment: str = "") -> str:
    """`source` as a `[[sources]]` table of TOML text, `comment` above it; fields left at their
    defaults are not written."""
    values = msgspec.to_builtins(source)
    defaults = {f.name: f.default for f in msgspec.structs.fields(type(source))}
    board = values.pop("board")
    keys = [k for k in values if k not in _LAST_FIELDS] + [k for k in _LAST_FIELDS if k in values]
    lines = [toml_comment(comment)] if comment else []
    lines += ["[[sources]]", f"board = {toml_value(board)}"]
    for key in keys:
        value = values[key]
        if value is not None and value != defaults.get(key):
            lines.append(f"{key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def toml_value(value: object) -> str:
    """A TOML value for a string, number, boolean or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return toml_string(str(value))


def toml_string(value: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped, the rest as is."""
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_comment(text: str) -> str:
    """`text` as TOML comment lines (a comment may not hold control characters)."""
    lines = text.splitlines() or [""]
    clean = ("".join(c if c.isprintable() else " " for c in line).rstrip() for line in lines)
    return "\n".join(f"# {line}".rstrip() for line in clean)
