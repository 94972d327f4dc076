"""What a render could not keep of the person's workbook, found by comparing the two files.

openpyxl keeps cells, styles, formulas, comments, charts, conditional formats, validations and
defined names, but not shapes, form controls, slicers, pivot tables, embedded objects, threaded
comments, or images (without Pillow). Rather than trust a list, the parts of the file before the
render and after it are counted by kind: a kind with fewer parts after it names what was lost,
and the caller keeps a copy of the old file before it replaces it.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

# Kinds of parts of an xlsx package that hold something the person made, as Excel and openpyxl
# name them.
_KINDS: dict[str, re.Pattern[str]] = {
    "sheets": re.compile(r"^xl/(worksheets|chartsheets)/sheet\d+\.xml$"),
    "charts": re.compile(r"^xl/charts/chart\d+\.xml$"),
    "drawings (shapes, pictures)": re.compile(r"^xl/drawings/drawing\d+\.xml$"),
    "images": re.compile(r"^xl/media/"),
    "comments": re.compile(r"^xl/comments(/comment)?\d+\.xml$"),
    "threaded comments": re.compile(r"^xl/threadedComments/"),
    "tables": re.compile(r"^xl/tables/table\d+\.xml$"),
    "pivot tables": re.compile(r"^xl/pivotTables/"),
    "slicers": re.compile(r"^xl/slicers/"),
    "timelines": re.compile(r"^xl/timelines/"),
    "form controls": re.compile(r"^xl/ctrlProps/"),
    "embedded objects": re.compile(r"^xl/embeddings/"),
    "macros": re.compile(r"^xl/vbaProject\.bin$"),
    "external links": re.compile(r"^xl/externalLinks/externalLink\d+\.xml$"),
}


def _counts(path: Path) -> dict[str, int]:
    with zipfile.ZipFile(path) as package:
        names = package.namelist()
    return {kind: sum(1 for name in names if pattern.match(name)) for kind, pattern in _KINDS.items()}


def lost_parts(before: Path, after: Path) -> list[str]:
    """What `before` held that `after` lacks, in words (`2 of 3 images`); empty if nothing."""
    old, new = _counts(before), _counts(after)
    return [
        f"the workbook lost {old[kind] - new[kind]} of its {old[kind]} {kind}: openpyxl cannot keep them"
        for kind in _KINDS
        if new[kind] < old[kind]
    ]
