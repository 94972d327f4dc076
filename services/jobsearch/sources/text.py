"""Board text to plain text: HTML to text, entities decoded, control characters removed.

Everything a board sends is untrusted. These functions only make it readable plain text; they do
not make it safe for any particular sink (a web page escapes it, the tracker never writes it as a
formula, a prompt delimits it). Hostile text survives as the plain characters it is.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

# Elements whose content is not text a person reads.
_DROPPED = frozenset({"script", "style", "head", "title", "noscript", "template", "svg", "iframe", "object"})
# Elements that start a new line (or paragraph) in the text.
_BLOCKS = frozenset(
    {
        "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table",
        "section", "article", "header", "footer", "blockquote", "pre", "hr", "dd", "dt", "dl",
    }
)  # fmt: skip
# C0/C1 controls except tab and newline, and the bidirectional overrides that can reorder text.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufeff]")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_NEWLINES = re.compile(r"\n\s*\n\s*(\n\s*)*")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._dropping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROPPED:
            self._dropping += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
            if tag == "li":
                self.parts.append("- ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self._dropping = max(0, self._dropping - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._dropping:
            self.parts.append(data)


def html_to_text(markup: str | None, *, escaped: bool = False, limit: int = 50_000) -> str:
    """Plain text from an HTML fragment: tags stripped, script/style dropped, entities decoded.

    Args:
        markup: the HTML (None or empty gives "").
        escaped: the HTML is itself HTML-escaped (Greenhouse's `content`): unescape it first.
        limit: keep at most this many characters (a job carries the text; boards send megabytes).
    """
    if not markup:
        return ""
    if escaped:
        markup = html.unescape(markup)
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    return tidy("".join(parser.parts), limit=limit)


def tidy(text: str | None, *, limit: int = 50_000) -> str:
    """Plain text with control characters removed, runs of spaces and blank lines collapsed."""
    if not text:
        return ""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    text = _NEWLINES.sub("\n\n", "\n".join(lines)).strip()
    return text[:limit]


def line(text: str | None, *, limit: int = 500) -> str:
    """One line of plain text (a title, a company, a location): entities decoded, spaces collapsed.

    Tags are not stripped: these fields are plain text in every board's API, so a title that reads
    `<script>` is a title with those characters in it, carried as data (and escaped by each sink).
    """
    if not text:
        return ""
    if "&" in text:
        text = html.unescape(text)
    return " ".join(_CONTROL.sub("", text).split())[:limit]
