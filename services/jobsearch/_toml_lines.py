"""Where each key of a TOML document is written: the line of every table header and key.

`tomllib` parses without positions, and msgspec names a bad value by its path (`$.sources[1].board`),
so a profile error finds its line here. The document has already parsed, so this scanner only has
to follow headers, keys, strings, brackets and comments well enough to tell where statements start.
"""

from __future__ import annotations

from collections.abc import Sequence

PathPart = str | int
KeyPath = tuple[PathPart, ...]


def _split_key(text: str) -> list[str]:
    """`a."b.c".d` → ["a", "b.c", "d"] (bare or quoted segments)."""
    parts: list[str] = []
    current = ""
    quote: str | None = None
    for char in text.strip():
        if quote:
            if char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif char == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def _skip_value(text: str, pos: int) -> int:
    """The index just past the value starting at `pos` (strings, arrays, inline tables, comments)."""
    depth = 0
    while pos < len(text):
        if text.startswith(('"""', "'''"), pos):
            end = text.find(text[pos : pos + 3], pos + 3)
            pos = len(text) if end < 0 else end + 3
            # A closing triple quote may be followed by up to two more quotes of the string.
            while pos < len(text) and text[pos] == text[pos - 1]:
                pos += 1
            continue
        char = text[pos]
        if char == '"':
            pos += 1
            while pos < len(text) and text[pos] != '"':
                pos += 2 if text[pos] == "\\" else 1
        elif char == "'":
            end = text.find("'", pos + 1)
            pos = len(text) if end < 0 else end
        elif char == "#":
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end
            continue
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "\n" and depth <= 0:
            return pos
        pos += 1
    return pos


def key_lines(text: str) -> dict[KeyPath, int]:
    """Every table header and key of `text`, by its full path (array tables indexed), → its line."""
    lines: dict[KeyPath, int] = {}
    array_counts: dict[KeyPath, int] = {}
    table: KeyPath = ()
    pos = 0
    while pos < len(text):
        line_no = text.count("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        stripped = text[pos:end].strip()
        if not stripped or stripped.startswith("#"):
            pos = end + 1
            continue
        if stripped.startswith("["):
            is_array = stripped.startswith("[[")
            name = stripped.lstrip("[").split("]", 1)[0]
            table = _resolve(_split_key(name), array_counts)
            if is_array:
                index = array_counts.get(table, -1) + 1
                array_counts[table] = index
                lines.setdefault(table, line_no)
                table = (*table, index)
            lines[table] = line_no
            pos = end + 1
            continue
        equals = text.find("=", pos, end)
        if equals < 0:  # not a statement we understand: move on
            pos = end + 1
            continue
        lines[(*table, *_split_key(text[pos:equals]))] = line_no
        pos = _skip_value(text, equals + 1) + 1
    return lines


def _resolve(names: Sequence[str], array_counts: dict[KeyPath, int]) -> KeyPath:
    """A header's path, with the current index inserted after each array of tables it goes through."""
    path: KeyPath = ()
    for i, name in enumerate(names):
        path = (*path, name)
        if path in array_counts and i < len(names) - 1:
            path = (*path, array_counts[path])
    return path


def line_of(text: str, path: Sequence[PathPart]) -> int | None:
    """The line of `path`, or of its nearest written ancestor; None if nothing of it is written."""
    lines = key_lines(text)
    parts = tuple(path)
    while parts:
        if parts in lines:
            return lines[parts]
        parts = parts[:-1]
    return None
