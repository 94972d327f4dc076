"""A profile's TOML text from a CV's facts: the example profile with its `[person]` replaced.

Every value read from the CV is written on a line ending in `# check`, and each role and degree
under a comment quoting the CV line(s) it came from, so the person confirms each fact against
their CV. Dates keep the CV's wording in their comment ("the CV says 03/2019"): a TOML date needs a
day, and a CV rarely gives one. The rest of the file (`[search]`, `[writing]`, `[[sources]]`) is
the example's, to be made the person's own; only the example person's signature is taken out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from jobsearch.cv.extract import CvText
from jobsearch.cv.facts import CvFacts, Degree, Role
from jobsearch.finding.profile_append import toml_comment, toml_string
from jobsearch.profile import ProfileError, example_profile

CHECK = "# check"
_WIDTH = 100
_TABLE = re.compile(r"^\[\[?\s*(?P<name>[^\]]+?)\s*\]")


def profile_text(facts: CvFacts, cv: CvText) -> str:
    """The whole profile file for `facts` read from `cv`."""
    pages = f", {cv.pages} page(s)" if cv.pages else ""
    how = "rules" if facts.how == "rules" else f"the model {facts.how}"
    head = [
        f"A jobsearch profile written by `jobsearch init --from-cv` from {Path(cv.path).name}",
        f"(text read with {cv.reader}{pages}; facts by {how}).",
        f"Every line marked `{CHECK}` was read from the CV: confirm it, correct it or delete it.",
        "Nothing the CV does not state is filled in: add what it leaves out (docs/profile.md).",
        "The [search], [writing] and [[sources]] below are the example's: make them yours.",
        "A wrong key, type or board fails at start with the file, the line and the key.",
    ]
    parts = [toml_comment("\n".join(head)), "", *_person(facts)]
    for role in facts.experience:
        parts += ["", *_role(role)]
    for degree in facts.education:
        parts += ["", *_degree(degree)]
    if facts.unread:
        note = "Not read (a role or a degree whose parts the rules could not tell apart):"
        parts += ["", toml_comment("\n".join([note, *(f"  {u}" for u in facts.unread)]))]
    if facts.dropped:
        note = f"Not written: {len(facts.dropped)} value(s) the reader gave that the CV does not state:"
        parts += ["", toml_comment("\n".join([note, *(f"  {d}" for d in facts.dropped)]))]
    return "\n".join(parts) + "\n\n" + _rest_of_example()


def write_new_profile(path: Path, text: str) -> None:
    """Write `text` to `path`; never over an existing file.

    Raises:
        ProfileError: `path` already exists.
    """
    try:
        with path.open("x", encoding="utf-8") as out:
            out.write(text)
    except FileExistsError:
        raise ProfileError(f"{path} already exists: not overwriting it (choose another path)") from None


def _checked(key: str, value: str, note: str = "") -> str:
    return f"{key} = {value}  {CHECK}{': ' + note if note else ''}"


def _array(key: str, values: Iterable[str], *, one_per_line: bool) -> list[str]:
    """A TOML array over several lines, each line marked for checking."""
    lines = [f"{key} = [  {CHECK}"]
    row: list[str] = []
    for value in values:
        item = toml_string(value)
        if one_per_line or (row and len("    " + ", ".join([*row, item])) > _WIDTH):
            if row:
                lines.append(f"    {', '.join(row)},  {CHECK}")
            row = []
        row.append(item)
    if row:
        lines.append(f"    {', '.join(row)},  {CHECK}")
    return [*lines, "]"]


def _person(facts: CvFacts) -> list[str]:
    lines = ["[person]"]
    if facts.name:
        lines.append(_checked("name", toml_string(facts.name)))
    else:
        lines.append('# name = ""               # required: no name found in the CV; write yours')
    for key, value in (("email", facts.email), ("phone", facts.phone), ("summary", facts.summary)):
        if value:
            lines.append(_checked(key, toml_string(value)))
    if facts.links:
        lines += _array("links", facts.links, one_per_line=True)
    if facts.skills:
        lines += _array("skills", facts.skills, one_per_line=False)
    return lines


def _date(value: date | None, stated: str | None) -> str | None:
    if value is None or stated is None:
        return None
    return f"{value.isoformat()}  {CHECK}: the CV says {stated!r}"


def _from(source: str) -> str:
    """The comment above a role or degree: the CV line(s) the rules read it from."""
    return toml_comment(f"check: read from {source!r}" if source else "check: as the model read it")


def _role(role: Role) -> list[str]:
    lines = [_from(role.source), "[[person.experience]]"]
    lines += [_checked("employer", toml_string(role.employer)), _checked("title", toml_string(role.title))]
    if (start := _date(role.start, role.start_text)) is not None:
        lines.append(f"start = {start}")
    if role.current:
        lines.append(f"# no `end`: the current role (the CV says {role.end_text!r})  {CHECK}")
    elif (end := _date(role.end, role.end_text)) is not None:
        lines.append(f"end = {end}")
    if role.location:
        lines.append(_checked("location", toml_string(role.location)))
    if role.highlights:
        lines += _array("highlights", role.highlights, one_per_line=True)
    return lines


def _degree(degree: Degree) -> list[str]:
    lines = [_from(degree.source), "[[person.education]]"]
    lines.append(_checked("institution", toml_string(degree.institution)))
    for key, value in (("degree", degree.degree), ("field", degree.field)):
        if value:
            lines.append(_checked(key, toml_string(value)))
    if degree.year is not None:
        lines.append(_checked("year", str(degree.year)))
    return lines


def _other_table(line: str) -> bool:
    """Whether `line` opens a table that is not the person's (`[search]`, `[[sources]]`...)."""
    table = _TABLE.match(line)
    return table is not None and not table["name"].startswith("person")


def _rest_of_example() -> str:
    """The example profile after its person: from the comment above its first other table."""
    lines = example_profile().splitlines()
    person = next(i for i, line in enumerate(lines) if line.strip() == "[person]")
    start = next((i for i in range(person + 1, len(lines)) if _other_table(lines[i])), len(lines))
    while start > person + 1 and lines[start - 1].startswith("#"):
        start -= 1
    rest = "\n".join(lines[start:]) + "\n"
    # The example person's signature is not this person's.
    return re.sub(
        r"(?m)^signature = .*$",
        '# signature = "..."                         # how your drafts are signed (optional)',
        rest,
    )
