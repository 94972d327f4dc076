"""A CV's text, line by line, from a PDF, a Word (DOCX), a Markdown or a plain text file.

Each format is read by the library that the field maintains for it, never by our own parser:
- PDF: `pypdf` (pure Python, actively maintained, no system libraries; it reads the text layer,
  so a scanned CV, whose pages are only images, is reported as such instead of read as empty).
- DOCX: `python-docx` (the maintained reader of the Office Open XML format): paragraphs and tables
  in document order, the page header too (where CVs often put the contact line), hyperlink targets.
- Markdown: `markdown-it-py` (CommonMark, with tables; already installed as rich's parser), so
  `**bold**`, `[links](url)` and list marks become plain text, and headings and list items are
  known as such.

Every line is NFKC-normalised (PDF ligatures such as "ﬁ" become "fi", no-break spaces plain ones),
so what the facts quote from it is what a person reads in the file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Literal
from zipfile import BadZipFile

import docx
import msgspec
import pypdf
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pypdf.errors import PyPdfError

from jobsearch.cv.errors import ScannedCv, UnreadableCv, UnsupportedFormat

Kind = Literal["pdf", "docx", "markdown", "text"]
KINDS: dict[str, Kind] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
}
_LIBRARIES: dict[Kind, str] = {"pdf": "pypdf", "docx": "python-docx", "markdown": "markdown-it-py"}
# A bullet glyph at a line's start: PDFs and text files carry it as a character.
_BULLET = re.compile("^\\s*[•·▪◦‣●■○►✓*\\-\u2013\u2014]\\s+")


class Line(msgspec.Struct, frozen=True):
    """One line of the CV as a person reads it."""

    text: str
    heading: bool = False  # the document marks it a heading (Markdown `#`, a DOCX heading style)
    item: bool = False  # a list item (its bullet removed from `text`)


class CvText(msgspec.Struct, frozen=True, kw_only=True):
    """A CV's text and how it was read."""

    path: str
    kind: Kind
    reader: str  # the library and its version, e.g. "pypdf 7.1.1"
    lines: list[Line]
    pages: int | None = None  # a PDF's

    @property
    def text(self) -> str:
        """The whole text, one line per line: what every fact must be found in."""
        return "\n".join(line.text for line in self.lines)


def read_cv(path: Path) -> CvText:
    """Read the text of the CV at `path`, by its extension.

    Raises:
        UnsupportedFormat: not .pdf, .docx, .md, .markdown or .txt.
        UnreadableCv: missing, damaged, encrypted, or not the format its name says.
        ScannedCv: a PDF (or any file) with no text in it.
    """
    kind = KINDS.get(path.suffix.lower())
    if kind is None:
        other = path.suffix.lower() in {".doc", ".odt", ".rtf", ".pages"}
        hint = " (save it as .docx or PDF)" if other else ""
        raise UnsupportedFormat(
            f"{path}: cannot read a {path.suffix or 'extensionless'} file as a CV{hint}; "
            f"give a .pdf, .docx, .md or .txt file"
        )
    if not path.is_file():
        raise UnreadableCv(f"{path}: no such file")
    pages: int | None = None
    if kind == "pdf":
        raw, pages = _pdf_lines(path)
    elif kind == "docx":
        raw = list(_docx_lines(path))
    else:
        text = _read_text(path)
        raw = _markdown_lines(text) if kind == "markdown" else [_plain(line) for line in text.splitlines()]
    lines = [clean for line in raw if (clean := _normalised(line)).text]
    if not lines:
        if kind == "pdf":
            raise ScannedCv(
                f"{path}: no text in its {pages} page(s): it looks scanned (pages that are images "
                "of text). Export the CV as a PDF from the program it was written in, or run OCR on "
                "it first (e.g. `ocrmypdf --force-ocr cv.pdf cv-text.pdf`), then try again"
            )
        raise ScannedCv(f"{path}: the file holds no text")
    library = _LIBRARIES.get(kind)
    reader = f"{library} {version(library)}" if library else "plain text"
    return CvText(path=str(path), kind=kind, reader=reader, lines=lines, pages=pages)


def _normalised(line: Line) -> Line:
    text = unicodedata.normalize("NFKC", line.text)
    text = "".join(c if c.isprintable() else " " for c in text)
    return msgspec.structs.replace(line, text=" ".join(text.split()))


def _plain(text: str) -> Line:
    """A line of a PDF or text file: a leading bullet glyph makes it a list item."""
    bullet = _BULLET.match(text)
    return Line(text[bullet.end() :], item=True) if bullet else Line(text)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableCv(f"{path}: not UTF-8 text (save it as UTF-8, or give the PDF or DOCX)") from None
    except OSError as exc:
        raise UnreadableCv(f"{path}: cannot read it: {exc.strerror}") from None


# --- PDF -------------------------------------------------------------------------------------------


def _pdf_lines(path: Path) -> tuple[list[Line], int]:
    try:
        reader = pypdf.PdfReader(path)
        # Many CVs are "encrypted" only against editing, with an empty password to open them.
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnreadableCv(f"{path}: the PDF is protected by a password; give an unprotected copy")
        lines = [_plain(line) for page in reader.pages for line in page.extract_text().splitlines()]
        return lines, len(reader.pages)
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise UnreadableCv(f"{path}: not a readable PDF ({exc})") from None
    except OSError as exc:
        raise UnreadableCv(f"{path}: cannot read it: {exc.strerror}") from None


# --- DOCX ------------------------------------------------------------------------------------------


def _docx_lines(path: Path) -> Iterator[Line]:
    try:
        document = docx.Document(str(path))
    except (PackageNotFoundError, BadZipFile, KeyError, ValueError) as exc:
        raise UnreadableCv(f"{path}: not a readable DOCX file ({exc})") from None
    seen_headers: set[str] = set()
    for section in document.sections:
        if section.header.is_linked_to_previous:
            continue
        for paragraph in section.header.paragraphs:
            if paragraph.text.strip() and paragraph.text not in seen_headers:
                seen_headers.add(paragraph.text)
                yield from _paragraph_lines(paragraph)
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            yield from _paragraph_lines(block)
        else:
            yield from _table_lines(block)


def _paragraph_lines(paragraph: Paragraph) -> Iterator[Line]:
    style = paragraph.style.name if paragraph.style is not None else ""
    heading = bool(style) and style.startswith(("Heading", "Title"))
    # A list paragraph: a "List ..." style, or Word's own numbering on a plain paragraph.
    item = "List" in (style or "") or bool(paragraph._p.xpath("./w:pPr/w:numPr"))
    text = paragraph.text
    for link in paragraph.hyperlinks:
        url = link.url
        if url.startswith(("http://", "https://")) and url not in text:
            text += f" ({url})"
    for i, part in enumerate(text.splitlines()):
        yield Line(part, heading=heading, item=item and i == 0)


def _table_lines(table: Table) -> Iterator[Line]:
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:  # a merged cell is listed once per grid column it spans
            if cell.text not in cells:
                cells.append(cell.text)
        if all("\n" not in c for c in cells):
            yield Line(" | ".join(c.strip() for c in cells if c.strip()))
            continue
        # A layout table (dates left, the role and its bullets right): each paragraph a line.
        done: set[int] = set()
        for cell in row.cells:
            if id(cell._tc) in done:
                continue
            done.add(id(cell._tc))
            for paragraph in cell.paragraphs:
                yield from _paragraph_lines(paragraph)


# --- Markdown --------------------------------------------------------------------------------------


def _markdown_lines(source: str) -> list[Line]:
    """Headings, paragraphs (a line each), list items (one line each), table rows, code."""
    lines: list[Line] = []
    heading = False
    item_starts = False
    row: list[str] | None = None
    for token in MarkdownIt("commonmark").enable("table").parse(source):
        if token.type == "heading_open":
            heading = True
        elif token.type == "heading_close":
            heading = False
        elif token.type == "list_item_open":
            item_starts = True
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            lines.append(Line(" | ".join(c for c in row if c)))
            row = None
        elif token.type in {"fence", "code_block"}:
            lines += [Line(text) for text in token.content.splitlines()]
        elif token.type == "inline":
            parts = _inline_text(token).split("\n")
            if row is not None:
                row.append(" ".join(parts))
            elif item_starts:  # a list item's wrapped lines are one item
                lines.append(Line(" ".join(parts), item=True))
            else:
                lines += [Line(part, heading=heading) for part in parts]
            item_starts = False
    return lines


def _inline_text(token: Token) -> str:
    """An inline token's text; a link keeps its target when the text does not show it."""
    out: list[str] = []
    href: str | None = None
    link_start = 0
    for child in token.children or []:
        if child.type in {"text", "code_inline"}:
            out.append(child.content)
        elif child.type in {"softbreak", "hardbreak"}:
            out.append("\n")
        elif child.type == "link_open":
            target = child.attrGet("href")
            href = target if isinstance(target, str) else None
            link_start = len(out)
        elif child.type == "link_close" and href:
            shown = "".join(out[link_start:])
            address = href.removeprefix("mailto:")
            if address not in shown and href.startswith(("http://", "https://", "mailto:")):
                out.append(f" ({address})")
            href = None
    return "".join(out)
