"""A Hacker News comment's HTML as the lines a reader sees, each with the links in it.

HN stores a comment as it renders it: paragraphs start with `<p>`, a preformatted block is
`<pre><code>`, a URL is `<a href>` (its text cut short with "..."), and `/ ' "` are entities
(`&#x2F; &#x27; &quot;`). A single newline typed in HN's box is not kept, so `Key: value` lines
typed one under another arrive as one paragraph: `lines` cuts those at each known key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Final

LIMIT: Final = 20_000  # characters of a comment read (the longest real ones are a few thousand)
_KEYS: Final = (
    r"company|employer|roles?|positions?|titles?|jobs?|locations?|where|salary|salaries|compensation"
    r"|comp|pay|type|employment|remote|visa|stack|tech(?:\s+stack)?|apply|how\s+to\s+apply|link"
    r"|url|e-?mail|contact|website|equity|benefits|about|hours|schedule|office"
)
_KEY_CUT: Final = re.compile(rf"(?<!\bto)\s+(?=(?:{_KEYS})\s?:\s)", re.I)
_STARTS_WITH_KEY: Final = re.compile(rf"^(?:{_KEYS})\s?:\s", re.I)
_SPACES: Final = re.compile(r"[ \t\r\f\v\u00a0]+")


@dataclass
class Line:
    """One line of the comment: its text, the links' targets in it, whether preformatted."""

    text: str
    links: list[str] = field(default_factory=list)
    pre: bool = False


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[list[str], list[str], bool]] = [([], [], False)]
        self.pre = 0

    def _new(self, pre: bool) -> None:
        self.blocks.append(([], [], pre))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("p", "br", "div", "li"):
            self._new(self.pre > 0)
        elif tag == "pre":
            self.pre += 1
            self._new(True)
        elif tag == "a":
            href = dict(attrs).get("href") or ""
            if href.startswith(("http://", "https://", "mailto:")):
                self.blocks[-1][1].append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
            self._new(False)

    def handle_data(self, data: str) -> None:
        self.blocks[-1][0].append(data)


def lines(html: str) -> list[Line]:
    """The comment's lines, in order; a paragraph of `Key: value` pairs is cut at each key."""
    reader = _Reader()
    reader.feed(html[:LIMIT])
    reader.close()
    out: list[Line] = []
    for parts, links, pre in reader.blocks:
        raw = "".join(parts)
        if pre:
            for row in raw.split("\n"):
                if row.strip():
                    out.append(Line(row.rstrip(), [u for u in links if u in row or _shown(u) in row], True))
            continue
        text = _SPACES.sub(" ", raw.replace("\n", " ")).strip()
        if not text:
            continue
        pieces = _KEY_CUT.split(text) if _STARTS_WITH_KEY.match(text) else [text]
        for piece in pieces:
            mine = [u for u in links if _shown(u) in piece or u in piece] if len(pieces) > 1 else links
            out.append(Line(piece.strip(), mine))
    return out


def _shown(url: str) -> str:
    """How HN shows a long link: its first 57 characters and "..."."""
    return url if len(url) <= 60 else url[:57]
