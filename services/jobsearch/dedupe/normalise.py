"""Normal forms of a posting's parts, so that two boards' spellings of one job compare equal.

Text: Unicode NFKC, case folded, accents and punctuation dropped, spaces collapsed. Company: legal
forms removed (Inc, GmbH, Ltd, LLC, SE, AG, N.A., 株式会社 ...) and spaces closed up. Title:
gender tags ((m/w/d), (f/m/x), all genders), remote markers and abbreviations (Sr, Jr, Eng, Dev,
Mgr) normalised, the seniority level split off. Place: city names with their common exonyms
(München = Munich). URL: scheme, host aliases, tracking parameters (utm_*, gh_src, lever-source,
ref ...), fragments and trailing slashes removed.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from jobsearch.dedupe import vocabulary

_PUNCT = re.compile(r"[^\w]+")
_SPACES = re.compile(r"\s+")


def text(value: str) -> str:
    """NFKC, case folded, without accents; punctuation as spaces; one space between words."""
    if value.isascii():  # most text: nothing to fold but case (and the Unicode passes are slow)
        bare = value.lower()
    else:
        folded = unicodedata.normalize("NFKC", value).casefold()
        bare = unicodedata.normalize("NFC", _without_accents(folded))
    return " ".join(_PUNCT.sub(" ", bare.replace("_", " ")).split())


def _without_accents(value: str) -> str:
    """Latin letters lose their accents (é → e); other scripts keep their marks (バ stays バ)."""
    out: list[str] = []
    for char in unicodedata.normalize("NFD", value):
        if unicodedata.combining(char) and out and out[-1] < "\u0250":
            continue
        out.append(char)
    return "".join(out)


def words(value: str) -> list[str]:
    """The normalised words of `value`."""
    return text(value).split()


# --- company -------------------------------------------------------------------------------------

_AMPERSAND = re.compile(r"\s*&\s*")


def company_key(name: str) -> str:
    """The company's name without its legal form, without spaces: the block fuzzy matching uses.

    "Northwind Robotics GmbH", "Northwind Robotics" and "NorthwindRobotics Inc." → "northwindrobotics".
    """
    base = unicodedata.normalize("NFKC", name).casefold().replace(".", "")
    base = _AMPERSAND.sub(" and ", base)
    for affix in vocabulary.LEGAL_AFFIXES:
        base = base.replace(affix, " ")
    tokens = words(base)
    # "X & Co. KG" loses "kg", "co" and the dangling "and".
    while len(tokens) > 1 and (tokens[-1] in vocabulary.LEGAL_FORMS or tokens[-1] == "and"):
        tokens.pop()
    if len(tokens) > 1 and tokens[0] == "the":
        tokens.pop(0)
    return "".join(tokens)


# --- title ---------------------------------------------------------------------------------------

# (m/w/d), (f/m/x), (w/m/div), m/f/d, (h/f), (all genders), (gn), (d/f/m) ... in any order.
_GENDER = re.compile(
    r"""[(\[]?\s*\b(?:[mwfdhxvk]|div)\s*[/|*,]\s*(?:[mwfdhxvk]|div|divers|diverse)\b
        (?:\s*[/|*,]\s*(?:[mwfdhxvk]|div|divers|diverse|\*)\b\.?)?\s*[)\]]?
      | [(\[]\s*(?:all\s+genders?|gn\*?|m\s*/\s*w\s*/\s*d|genderneutral)\s*[)\]]
      | \*in(?:nen)?\b | :in(?:nen)?\b | ·(?:e|se|euse|rice)\b | \(e\)""",
    re.IGNORECASE | re.VERBOSE,
)
_REMOTE_PHRASES = re.compile(
    r"\b(?:100\s*%\s*remote|fully\s+remote|remote\s+first|remote\s+friendly|work\s+from\s+home"
    r"|home\s+office|work\s+from\s+anywhere|remote\s+only)\b",
    re.IGNORECASE,
)


def title_words(title: str, company: str = "") -> list[str]:
    """The title's words: gender tags, remote markers and company name gone, abbreviations spelled out."""
    stripped = _REMOTE_PHRASES.sub(" ", _GENDER.sub(" ", unicodedata.normalize("NFKC", title)))
    out: list[str] = []
    for word in words(stripped):
        if word in vocabulary.REMOTE_WORDS:
            continue
        expanded = vocabulary.ABBREVIATIONS.get(word, word)
        out.extend(expanded.split())
    company_words = set(words(company)) - set(vocabulary.LEVEL_WORDS)
    if company_words and len(out) > len(company_words):
        out = [w for w in out if w not in company_words]
    return out


def title_level(title_word_list: list[str]) -> str:
    """The level a title states: a level word, or a trailing numeral ("Engineer II"); "" if none.

    Several level words give the most specific: "Senior Engineering Manager" is `senior+manager`.
    """
    levels = sorted({vocabulary.LEVEL_WORDS[w] for w in title_word_list if w in vocabulary.LEVEL_WORDS})
    numerals = [w for w in title_word_list[-1:] if w in vocabulary.NUMERAL_LEVELS]
    return "+".join(levels + numerals)


def title_tokens(core: str) -> list[str]:
    """The words of a title's core that say which job it is, for blocking candidates: without the
    words every title has ("engineer", "software"); `*` for a title of only such words."""
    tokens = sorted({w for w in core.split() if w not in vocabulary.GENERIC_TITLE_WORDS})
    return tokens or ["*"]


def title_core(title_word_list: list[str]) -> str:
    """The title without its level words: ("senior back end engineer" → "back end engineer")."""
    level = set(vocabulary.LEVEL_WORDS) | {"level"}
    core: list[str] = []
    for w in title_word_list:
        if w not in level and w not in core:  # "SRE / Site Reliability Engineer" says it twice
            core.append(w)
    if core and core[-1] in vocabulary.NUMERAL_LEVELS:
        core.pop()
    return " ".join(core)


def is_remote_title(title: str) -> bool:
    """The title says the job is remote ("Backend Engineer (Remote)")."""
    return bool(_REMOTE_PHRASES.search(title)) or any(w in vocabulary.REMOTE_WORDS for w in words(title))


# --- places --------------------------------------------------------------------------------------


def continents(value: str) -> set[str]:
    """The continents a location names by country or region ("Remote - Europe" → {"europe"})."""
    found = set()
    for part in re.split(r"[,;/|()\-\u2013\u2014]", value):
        norm = place(part)
        for continent, names in vocabulary.CONTINENTS.items():
            if norm in names:
                found.add(continent)
    return found


def place(value: str) -> str:
    """A place's normal form with exonyms applied: "München, Germany" → "munich germany"."""
    norm = text(value)
    return vocabulary.EXONYMS.get(norm, norm)


def city(value: str) -> str | None:
    """The city a location names, or None (a country, a region, or remote).

    The city is the first comma-separated part that is not a region or a remote word:
    "Berlin, Germany" → "berlin"; "Remote (EU)" → None; "Germany" → None.
    """
    for part in re.split(r"[,;/|()\-\u2013\u2014]", value):
        norm = place(part)
        if not norm or norm in vocabulary.REGIONS:
            continue
        if _REMOTE_PHRASES.search(part) or set(norm.split()) & vocabulary.REMOTE_WORDS or norm == "hybrid":
            continue
        return norm
    return None


def is_remote_place(value: str) -> bool:
    """The location says remote ("Remote", "Anywhere", "Remote (EU)", "Work from home")."""
    return bool(_REMOTE_PHRASES.search(value)) or bool(set(words(value)) & vocabulary.REMOTE_WORDS)


# --- employment type -----------------------------------------------------------------------------


def employment(value: str | None) -> str:
    """One of full_time, part_time, contract, intern; "" when unknown."""
    norm = text(value or "")
    for phrase, kind in vocabulary.EMPLOYMENT.items():
        if phrase in norm:
            return kind
    return ""


# --- URLs ----------------------------------------------------------------------------------------

_TRACKING = re.compile(
    r"^(?:utm_.*|gh_src|lever-source.*|lever-origin|lever-via|ref|referrer|referer|ref_src|source|src"
    r"|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi|hsa_.*|trk|trackingid|refid|origin"
    r"|campaign|medium|share|shared|sharing|from|via|cmp|icid|ocid|igshid|si|s_kwcid|_ga|yclid)$",
    re.IGNORECASE,
)
_SUFFIXES = ("/apply", "/application", "/apply-now")
_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"')\]]+", re.IGNORECASE)


def canonical_url(url: str) -> str:
    """The URL without what varies between links to one posting (tracking parameters, case, ...).

    `https://www.Example.com/jobs/7/?utm_source=x&gh_src=y#apply` → `example.com/jobs/7`.
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    host = (parts.hostname or "").casefold().removeprefix("www.")
    host = vocabulary.HOST_ALIASES.get(host, host)
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    path = parts.path.rstrip("/")
    for suffix in _SUFFIXES:
        path = path.removesuffix(suffix)
    query = sorted(
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k)
    )
    return urlunsplit(("", host, path, urlencode(query), "")).removeprefix("//")


def posting_links(description: str) -> list[str]:
    """Canonical links to job-board postings inside a text (an aggregator's "apply at" link)."""
    found = []
    for match in _URL_IN_TEXT.findall(description):
        url = canonical_url(match.rstrip(".,;:"))
        host = url.split("/", 1)[0]
        if any(marker in host for marker in vocabulary.ATS_HOSTS) and "/" in url and url not in found:
            found.append(url)
    return found[:5]


# --- descriptions --------------------------------------------------------------------------------

SHINGLE = 4  # words per shingle: long enough that shared boilerplate words alone do not match
DESCRIPTION_CHARS = 6000  # enough to tell two jobs apart; bounds the work per comparison


def shingles(description: str) -> set[int]:
    """Hashes of the description's overlapping 4-word runs (its first 6000 characters)."""
    tokens = words(description[:DESCRIPTION_CHARS])
    if len(tokens) < SHINGLE:
        return {_stable_hash(" ".join(tokens))} if tokens else set()
    return {_stable_hash(" ".join(tokens[i : i + SHINGLE])) for i in range(len(tokens) - SHINGLE + 1)}


def _stable_hash(value: str) -> int:
    # Not hash(): it differs between processes, and shingles are compared across services.
    return zlib.crc32(value.encode())
