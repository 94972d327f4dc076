"""Values from the profile and the listing made fit for a sentence.

- `plain`: one line of text: control and zero-width characters gone, every run of whitespace
  (a TOML multi-line string's hard line breaks included) one space.
- `sentence`: a sentence ends with exactly one stop, so "Acme Inc." ending a sentence is not "Inc..".
- `role_name`: the role a scraped title names, for prose. Taken off: gender tags ("(m/w/d)",
  "(f/m/x)", "(all genders)"), reference numbers ("[Ref#12345]", "Job ID: 4711", "#4711"), hype
  ("URGENT", "ab sofort", "we're hiring"), emoji and decorative punctuation ("!!!", "***"), parts
  in brackets or after a dash or bar that only say where or how ("- 100% Remote", "(EMEA)",
  "| Berlin", "[Contract]") and the company's own name ("Acme | Backend Engineer"); a title in
  capitals is written in title case. A title that is a spreadsheet formula (`=HYPERLINK(...)`) or
  is still not a readable name after all that gives None: the template then says "the role".

The dedupe stage has its own title forms (`jobsearch.reading.normalise.title_tags`), but those
are for comparing: lower case, punctuation gone. Prose needs the title as a person would write
it, so this module keeps case and meaningful punctuation ("C++", "C#", ".NET", "R&D"); it shares
dedupe's list of countries and regions (`jobsearch.reading.vocabulary.REGIONS`).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable

from jobsearch.reading import vocabulary

# C0/C1 controls (tab and newline are whitespace, folded by `plain`), zero-width characters,
# bidirectional overrides and the byte-order mark: none of them is text a person reads.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
FORMULA_STARTS = "=+-@\uff1d\uff0b\uff0d\uff20"  # what a spreadsheet reads as a formula, full-width too
_STOPS = (".", "!", "?", "…")

# "=HYPERLINK(...)", "+SUM(A1)", "@IMPORTXML(...)", "-2+3+cmd|' /C calc'!A0" (a DDE payload).
_FORMULA = re.compile(
    r"^[=\uff1d]|^[+\-@\uff0b\uff0d\uff20]\s*(?:[\w.]+\(|.*\|.*!)|\b[A-Z][A-Z0-9.]{2,}\(", re.ASCII
)
_LINK = re.compile(
    r"\bhttps?://\S+|\bwww\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|io|net|org|dev|ai|co|de|app|jobs)\b(?:/\S*)?",
    re.IGNORECASE,
)
_GENDER = re.compile(
    r"""[(\[{]\s*(?:[mwfdhx]|div|divers|diverse|nb)\.?(?:\s*[/|,*]\s*(?:[mwfdhx]|div|divers|diverse|nb|\*)\.?){1,3}\s*[)\]}]
      | (?<![\w/])(?:[mwfdx]\s*/\s*){1,2}(?:[mwfdx]|div|divers)\.?(?![\w/])
      | [(\[{]\s*(?:all\s+genders?|alle\s+geschlechter|any\s+gender|gn\*?|genderneutral)\s*[)\]}]""",
    re.IGNORECASE | re.VERBOSE,
)
_REF = re.compile(
    r"""[(\[{]?\s*\b(?:ref(?:erence)?|req(?:uisition)?|job\s*(?:id|no|nr|code)|stellen(?:-?id|nummer)
        |kennziffer|id|nr|no)\b\.?\s*[#:.]?\s*(?:no\.?\s*|nr\.?\s*)?[\w/-]*\d[\w/-]*\s*[)\]}]?
      | (?<![\w#])\#\w+""",
    re.IGNORECASE | re.VERBOSE,
)
_PAY = re.compile(
    r"[€$£]\s*\d[\d.,]*\s*[kK]?(?:\s*[-\u2013]\s*[€$£]?\s*\d[\d.,]*\s*[kK]?)?"
    r"|\b\d[\d.,]*\s*[kK]?(?:\s*[-\u2013]\s*\d[\d.,]*\s*[kK]?)?\s*(?:€|\$|£|\beur\b|\busd\b|\bgbp\b)",
    re.IGNORECASE,
)
_HYPE = re.compile(
    r"""^\W*(?:job|jobs|stellenangebot|stellenanzeige|vacancy|opening|wanted|hiring|now\s+hiring
        |we(?:'re|\s+are)\s+hiring|gesucht|wir\s+suchen)\s*[:|\-\u2013\u2014]+
      | \b(?:urgent(?:ly)?(?:\s+hiring)?|dringend(?:\s+gesucht)?|asap|immediate\s+start
        |apply(?:\s+(?:now|here|today))?|jetzt\s+bewerben|bewirb\s+dich|ab\s+sofort|sofort|now\s+hiring|we(?:'re|\s+are)\s+hiring|hiring\s+now
        |top[\s-]?job|hot\s+job|new)\b""",
    re.IGNORECASE | re.VERBOSE,
)
# Ways of saying "remote" or "on site", folded to one word so a part made of them reads as a note.
_WORKPLACE = re.compile(
    r"\b(?:\d{1,3}\s*%\s*)?(?:fully\s+|full\s+|komplett\s+)?(?:remote(?:[\s-](?:first|friendly|only|possible"
    r"|möglich|option))?|home[\s-]?office|work\s+from\s+(?:home|anywhere)|mobiles\s+arbeiten)\b"
    r"|\bvor\s+ort\b|\bon[\s-]site\b",
    re.IGNORECASE,
)
# The words of a note on where or how a job is done; a part made only of them (and the posting's
# places, and one-word countries and regions) is a note, not the role. A city is known only as
# one of the posting's own places: "Engineer - Hamburg" at a Hamburg posting is "Engineer".
_NOTE_WORDS = frozenset({
    "remote", "hybrid", "onsite", "vor", "ort", "wfh", "anywhere", "worldwide", "weltweit",
    "european", "deutschlandweit", "bundesweit", "österreich", "schweiz",
    "full-time", "fulltime", "full", "part", "part-time", "parttime", "time", "vollzeit",
    "teilzeit", "contract", "contractor", "freelance", "freelancer", "festanstellung", "permanent",
    "temporary", "befristet", "unbefristet", "relocation", "visa", "sponsorship",
    "cet", "cest", "utc", "gmt", "est", "pst", "timezone", "based", "within", "only",
    "optional", "possible", "möglich", "flexible", "flexibel",
    *(region for region in vocabulary.REGIONS if " " not in region),
})  # fmt: skip
_DASHES = "-\u2013\u2014"  # hyphen-minus, en dash, em dash
_CONNECTORS = frozenset({"in", "at", "from", "or", "and", "oder", "und", "bei", "/", "&", ",", *_DASHES})
_SMALL_WORDS = frozenset({
    "a", "an", "and", "or", "of", "the", "for", "in", "at", "to", "on", "with",
    "und", "oder", "für", "mit", "bei", "der", "die", "das", "im", "am",
})  # fmt: skip
# Emoji and pictographs ("🚀", "★", "✅"), modifier symbols, private-use and unassigned characters.
_SYMBOLS = frozenset({"So", "Sk", "Co", "Cn", "Cs", "Me"})
_BRACKETED = re.compile(r"[(\[{]([^()\[\]{}]*)[)\]}]")
_SEPARATOR = re.compile(r"\s+[-\u2013\u2014]+\s+|\s*[|\u00a6\u2022\u00b7]\s*|\s*//\s*|\s+::\s+")
# Decoration: "!!!", "...", quotes and guillemets, "***" (but not the "*in" of "Entwickler*in").
_DECORATION = re.compile(
    r"\.{2,}|\u2026|[!?¡¿~^=<>\"\u201c\u201d\u201e\u00ab\u00bb\u2039\u203a_]+"
    r"|(?<!\w)[*'\u2019]+|[*'\u2019]+(?!\w)|\*(?!in(?:nen)?\b)|@"
)
_PUNCTUATION_KEPT = " &+#/.,'\u2019()-\u2013:*"  # "C++", "C#", "R&D", ".NET", "DevOps/SRE"
_STRIPPED_AT_ENDS = f" ,;:/&{_DASHES}"
_MAX_WORDS = 12
_MAX_CHARS = 90


def plain(value: str) -> str:
    """`value` on one line: invisible characters gone, every run of whitespace one space."""
    return " ".join(_INVISIBLE.sub("", value).split())


def cell_safe(value: str) -> str:
    """`plain(value)` without leading characters a spreadsheet would read as a formula."""
    return plain(value).lstrip(FORMULA_STARTS + " ")


def sentence(text: str) -> str:
    """`text` ending in exactly one stop: "at Acme Inc." stays, "at Acme" gets its full stop."""
    text = text.rstrip()
    return text if text.endswith(_STOPS) else text + "."


def _is_note(part: str, places: frozenset[str]) -> bool:
    """Whether `part` only says where or how the job is done (or is empty)."""
    words = re.findall(r"[^\W\d_]+|\d+", part.lower())
    return all(w in _NOTE_WORDS or w in _CONNECTORS or w in places or w.isdigit() for w in words)


def _is_code(token: str) -> bool:
    """A code word rather than a word: "CANARY-7f3a9c", "JR-1234", "ZEBRA_991" (never "Web3-Developer")."""
    token = token.strip(".,;:()")
    digits = sum(c.isdigit() for c in token)
    return digits >= 2 and ("-" in token or "_" in token) and any(c.isalpha() for c in token)


def _is_number(token: str) -> bool:
    """A reference or a year at a title's end: "12345", "JR12345", "2025"."""
    token = token.strip(".,;:()#")
    return sum(c.isdigit() for c in token) >= 3 and token.replace("-", "").replace("/", "").isalnum()


def _trim(part: str, places: frozenset[str]) -> str:
    """`part` without trailing notes and connectors ("Engineer in Berlin or remote") or codes."""
    words = part.split()
    while len(words) > 1:
        last = words[-1].lower().strip(".,;:")
        if last in _CONNECTORS or _is_note(last, places) or _is_code(last) or _is_number(last):
            words.pop()
        else:
            break
    while len(words) > 1 and (words[0].lower() in _CONNECTORS or _is_code(words[0]) or _is_number(words[0])):
        words.pop(0)
    return " ".join(words)


def _recased(text: str, casings: dict[str, str]) -> str:
    """A title in capitals in title case; known spellings ("PostgreSQL") and acronyms kept."""
    out = []
    for index, word in enumerate(text.split()):
        core = word.strip("(),.")
        key = core.casefold()
        if key in casings:
            new = casings[key]
        elif index and key in _SMALL_WORDS:
            new = core.lower()
        elif len(core) <= 3:
            new = core  # QA, SRE, AWS, UX
        else:
            new = "-".join(piece.capitalize() for piece in core.split("-"))
        out.append(word.replace(core, new, 1) if core else word)
    return " ".join(out)


def _shouting(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) >= 0.8 * len(letters)


def _readable(text: str) -> bool:
    words = text.split()
    if not words or len(words) > _MAX_WORDS or len(text) > _MAX_CHARS:
        return False
    if not any(sum(c.isalpha() for c in w) >= 2 for w in words):
        return False
    if any(_is_code(w) for w in words):
        return False
    allowed = sum(c.isalnum() or c in _PUNCTUATION_KEPT for c in text)
    letters = sum(c.isalpha() for c in text)
    return allowed == len(text) and letters >= 0.6 * len(text.replace(" ", ""))


def role_name(
    title: str, *, company: str = "", places: Iterable[str] = (), casings: Iterable[str] = ()
) -> str | None:
    """The role `title` names, fit for a sentence, or None when no readable name is left.

    Args:
        title: the listing's title, as scraped.
        company: the hiring company, whose name is taken off a title that repeats it.
        places: the listing's locations; a part of the title naming only them is a note.
        casings: spellings to keep when a title in capitals is recased (the person's skills).
    """
    text = plain(html.unescape(unicodedata.normalize("NFKC", title)))
    if not text or _FORMULA.search(text):
        return None
    place_words = frozenset(w for p in places for w in re.findall(r"[^\W\d_]+", p.lower()))
    company = plain(company)
    text = _without_brackets_of_notes(_without_noise(_without_company(text, company)), place_words)
    parts = [
        part
        for part in (_cleaned(raw, place_words) for raw in _SEPARATOR.split(text))
        if part and not _is_note(part, place_words) and part.casefold() != company.casefold()
    ]
    if not parts:
        return None
    head, *tail = parts  # "Data Engineer - Payments" -> "Data Engineer (Payments)"
    name = head + (f" ({', '.join(tail)})" if tail and "(" not in head else "")
    name = plain(re.sub(r"\s+([,)])", r"\1", re.sub(r"\(\s+", "(", name)))
    if re.search(r"[^\W\d_]{5,}\.$", name):  # "Engineer." loses the stop; "Sr." keeps it
        name = name[:-1]
    if _shouting(name):
        name = _recased(name, {c.casefold(): c for c in casings})
    return name if _readable(name) else None


def _without_company(text: str, company: str) -> str:
    """The title without the company it names: "Backend Engineer at Acme", "Acme: Backend Engineer"."""
    if not company:
        return text
    name = re.escape(company)
    return re.sub(rf"\s+(?:at|@|bei|for)\s+{name}\s*$|^{name}\s*:\s+", "", text, flags=re.IGNORECASE)


def _without_noise(text: str) -> str:
    """Links, gender tags, pay, references, hype and symbols gone; ways of saying remote folded."""
    text = _WORKPLACE.sub(" remote ", _GENDER.sub(" ", _LINK.sub(" ", text)))
    text = _HYPE.sub(" ", _REF.sub(" ", _PAY.sub(" ", text)))
    return "".join(" " if unicodedata.category(c) in _SYMBOLS or c == "\ufe0f" else c for c in text)


def _cleaned(part: str, places: frozenset[str]) -> str:
    """One part of a title without decoration at all, or separators and notes at its ends."""
    part = plain(_DECORATION.sub(" ", part)).strip(_STRIPPED_AT_ENDS).lstrip(FORMULA_STARTS)
    return _trim(part, places)


def _without_brackets_of_notes(text: str, places: frozenset[str]) -> str:
    """Brackets that hold a note or a number gone ("(Remote, EMEA)", "[12345]"), others kept as (...)."""

    def bracketed(match: re.Match[str]) -> str:
        inner = _cleaned(match.group(1), places)
        return " " if _is_note(inner, places) or _is_number(inner) else f" ({inner}) "

    for _ in range(2):  # nested once: "(Remote (EU))"
        text = _BRACKETED.sub(bracketed, text)
    if re.search(r"[\[\]{}]", text) or text.count("(") != text.count(")"):
        text = re.sub(r"[()\[\]{}]", " ", text)  # what is left unbalanced is decoration
    return text
