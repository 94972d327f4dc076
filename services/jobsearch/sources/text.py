"""Board text to plain text: HTML to text, entities decoded, control characters removed.

Everything a board sends is untrusted. These functions only make it readable plain text; they do
not make it safe for any particular sink (a web page escapes it, the tracker never writes it as a
formula, a prompt delimits it). Hostile text survives as the plain characters it is.

Text nobody sees is not text: the parts of a description a browser would not show (hidden by
their attributes or inline style, `jobsearch.sources.hidden`) are left out and counted
(`visible_text`), since a program reading the markup would otherwise take them for the posting.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser

from jobsearch.sources import hidden

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


# Elements that never have content or an end tag: never open, so never left "open" either.
_VOID = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr",
    }
)  # fmt: skip
# Start tags that end an open element without its end tag (as an HTML parser does): each maps to
# the elements it ends and the ones that stop the search (`<li>` ends an `<li>` in the same list).
_ENDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "li": (frozenset({"li"}), frozenset({"ul", "ol", "menu"})),
    "dt": (frozenset({"dt", "dd"}), frozenset({"dl"})),
    "dd": (frozenset({"dt", "dd"}), frozenset({"dl"})),
    "tr": (frozenset({"tr", "td", "th"}), frozenset({"table", "thead", "tbody", "tfoot"})),
    "td": (frozenset({"td", "th"}), frozenset({"tr", "table"})),
    "th": (frozenset({"td", "th"}), frozenset({"tr", "table"})),
    "option": (frozenset({"option"}), frozenset({"select", "datalist", "optgroup"})),
}
_ENDS_P = (frozenset({"p"}), frozenset({"table", "td", "th", "button", "caption"}))
_FOREIGN = frozenset({"svg", "math"})  # where `/>` closes an element, as in XML
# Chromium's parser stops nesting at 512 levels; the cap also keeps the parse linear.
_MAX_DEPTH = 512
_WORDS = re.compile(r"\w")  # hidden text is counted only when it says something (not an icon)


@dataclass(slots=True)
class _Open:
    """An element whose end tag has not come yet."""

    tag: str
    look: hidden.Look
    dropped: bool  # inside script, style, head...: never text, seen or not


_PAGE = _Open("", hidden.Look(), dropped=False)


class _TextExtractor(HTMLParser):
    """The text a reader sees, and the hidden parts left out (`owners`: who hid text).

    HTMLParser does not balance tags, so the extractor keeps the open elements itself: an end tag
    closes the nearest open element of its name and all opened inside it (an unclosed `<p>` or
    `<li>` in a hidden `<div>` ends with it), a stray end tag is ignored, and an element the
    document never closes lasts to its end.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.owners: set[int] = set()  # the serials of the hidden elements that held text
        self.hidden_inputs = 0
        self._open: list[_Open] = []
        self._opened: Counter[str] = Counter()  # open elements by tag: a stray end tag costs no search
        self._serial = 0

    @property
    def _top(self) -> _Open:
        return self._open[-1] if self._open else _PAGE

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            self._void(tag, attrs)
            return
        self._end_implied(tag)
        if len(self._open) >= _MAX_DEPTH:
            self._pop(len(self._open) - 1)
        parent = self._top
        self._serial += 1
        element = _Open(
            tag, hidden.look(parent.look, tag, dict(attrs), self._serial), parent.dropped or tag in _DROPPED
        )
        self._open.append(element)
        self._opened[tag] += 1
        if tag in _BLOCKS and self._shown(element):
            self.parts.append("\n")
            if tag == "li":
                self.parts.append("- ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _FOREIGN or any(self._opened[name] for name in _FOREIGN):
            if tag in _BLOCKS and self._shown(self._top):
                self.parts.append("\n")
            return  # `<svg/>`, `<path/>`: SVG and MathML elements closed as they open, empty
        # HTML ignores `/>` on its own elements that are not void: `<span hidden/>` opens a span.
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._opened[tag]:
            for i in range(len(self._open) - 1, -1, -1):
                if self._open[i].tag == tag:
                    self._pop(i)
                    return
        if tag in _BLOCKS and self._shown(self._top):  # `</br>`, or a `</p>` with none open
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        top = self._top
        if top.dropped:
            return
        if top.look.hidden:
            if _WORDS.search(data):
                self.owners.add(top.look.owner)
            return
        self.parts.append(data)

    def _void(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        top = self._top
        if top.dropped:
            return
        values = dict(attrs)
        hidden_input = tag == "input" and (values.get("type") or "").lower() == "hidden"
        if hidden_input and _WORDS.search(values.get("value") or ""):
            if top.look.hidden:
                self.owners.add(top.look.owner)  # part of the hidden element it sits in
            else:
                self.hidden_inputs += 1
        if tag in _BLOCKS and self._shown(top):
            self.parts.append("\n")

    def _end_implied(self, tag: str) -> None:
        ends, stops = _ENDS.get(tag) or (_ENDS_P if tag in _BLOCKS else (frozenset(), frozenset()))
        if not any(self._opened[name] for name in ends):
            return
        for i in range(len(self._open) - 1, -1, -1):
            open_tag = self._open[i].tag
            if open_tag in ends:
                self._pop(i)
                return
            if open_tag in stops:
                return

    def _pop(self, index: int) -> None:
        """Close the open element at `index` and every element opened inside it."""
        while len(self._open) > index:
            element = self._open.pop()
            self._opened[element.tag] -= 1
            if element.tag in _BLOCKS and self._shown(element):
                self.parts.append("\n")

    @staticmethod
    def _shown(element: _Open) -> bool:
        """Whether the element takes a place on the page (its text may still be hidden in it)."""
        return not element.dropped and not element.look.gone


def visible_text(markup: str | None, *, escaped: bool = False, limit: int = 50_000) -> tuple[str, int]:
    """The text a reader of the page sees, and how many hidden parts were left out of it.

    A hidden part is an element a browser would not show, judged from its attributes and inline
    style (`jobsearch.sources.hidden`: `display:none`, `visibility:hidden`, a zero font size,
    `opacity:0`, white on white, a box clipped to nothing, `hidden`, `aria-hidden="true"`...),
    removed with all it holds and counted once if it held any words; an `<input type=hidden>`
    with a value counts too. Comments, scripts and styles are never text and are not counted.

    Args:
        markup: the HTML (None or empty gives "").
        escaped: the HTML is itself HTML-escaped (Greenhouse's `content`): unescape it first.
        limit: keep at most this many characters (a job carries the text; boards send megabytes).
    """
    if not markup:
        return "", 0
    if escaped:
        markup = html.unescape(markup)
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    return tidy("".join(parser.parts), limit=limit), len(parser.owners) + parser.hidden_inputs


def html_to_text(markup: str | None, *, escaped: bool = False, limit: int = 50_000) -> str:
    """Plain text from an HTML fragment: tags stripped, script/style and hidden parts dropped,
    entities decoded (`visible_text` without the count).

    Args:
        markup: the HTML (None or empty gives "").
        escaped: the HTML is itself HTML-escaped (Greenhouse's `content`): unescape it first.
        limit: keep at most this many characters (a job carries the text; boards send megabytes).
    """
    return visible_text(markup, escaped=escaped, limit=limit)[0]


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
