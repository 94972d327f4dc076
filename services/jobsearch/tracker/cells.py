"""Scraped text made safe for a spreadsheet cell: never a formula, never an illegal character.

openpyxl stores any string that starts with `=` as a formula, and a spreadsheet program treats a
cell starting with `= + - @` (or a tab or CR before them, or their full-width forms, which some
programs fold to ASCII) as the start of one when the person edits it or opens a CSV. So:
1. control characters are stripped (XML cannot carry most of them; the rest hide text);
2. a text starting with a dangerous character gets a leading apostrophe, as OWASP advises for
   CSV; in the xlsx it stays visible, so the person sees that the text was escaped;
3. line ends become LF (an xlsx reader turns CR into LF anyway);
4. a text longer than a cell holds (32,767 characters) is cut, with a marker saying so.
"""

from __future__ import annotations

import re

CELL_LIMIT = 32_767  # Excel's maximum characters in one cell
# C0 controls except tab, LF and CR; DEL; C1 controls; lone surrogates; the two XML non-characters.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
FORMULA_STARTS = frozenset("=+-@\t\r\uff1d\uff0b\uff0d\uff20")  # with full-width = + - @
ESCAPE = "'"


def cut_marker(length: int) -> str:
    """The marker that ends a cut cell; it names the full length."""
    return f" […cut: {length:,} characters in all; the full text is in the database]"


def safe_text(value: str | None, *, limit: int = CELL_LIMIT) -> str:
    """`value` as text that no spreadsheet program turns into a formula, within `limit` characters."""
    if not value:
        return ""
    text = _CONTROL.sub("", value)
    if text and text[0] in FORMULA_STARTS:
        text = ESCAPE + text
    # XML readers turn CR into LF, so a cell with CR would never read back as written.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > limit:
        marker = cut_marker(len(text))
        text = text[: limit - len(marker)] + marker
    return text


def is_escaped(text: str) -> bool:
    """Whether `text` is what `safe_text` made of a text starting with a formula character."""
    return len(text) > 1 and text[0] == ESCAPE and text[1] in FORMULA_STARTS
