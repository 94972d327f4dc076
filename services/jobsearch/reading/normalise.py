"""Normal forms of a posting's parts, so that two boards' spellings of one job compare equal.

Text: Unicode NFKC, case folded, accents and punctuation dropped (ø, æ, ß written out), spaces
collapsed. Company: HTML entities read, legal forms removed (Inc, GmbH, Ltd, LLC, SE, AG, N.A.,
株式会社 ...), spaces closed up, umlauts written out read as the letter (Mueller = Müller =
Muller). Title: tags in brackets or after a dash or bar that say where or how, not what ("(EMEA,
Remote)", "- Remote", "[Contract]", "| Austin, TX") taken off, gender tags ((m/w/d), (f/m/x), all
genders), remote markers and abbreviations (Sr, Jr, Eng, Dev, SWE, Golang) normalised, one word
per role (Developer = Engineer), the seniority level split off. Place: each alternative's city
with its common exonyms (München = Munich), regions ("USA Only", "Latin America", "EMEA") named
by their continents, not read as cities. URL: scheme, host aliases, tracking parameters (utm_*,
gh_src, lever-source, ref ...), fragments and trailing slashes removed.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Collection
from typing import NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from jobsearch.reading import vocabulary

_PUNCT = re.compile(r"[^\w]+")
_SPACES = re.compile(r"\s+")


def text(value: str) -> str:
    """NFKC, case folded, without accents; punctuation as spaces; one space between words."""
    if value.isascii():  # most text: nothing to fold but case (and the Unicode passes are slow)
        bare = value.lower()
    else:
        folded = unicodedata.normalize("NFKC", value).casefold()
        bare = unicodedata.normalize("NFC", _without_accents(folded)).translate(vocabulary.TRANSLITERATIONS)
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
# German umlauts written out: Mueller = Müller = Muller (the accent is dropped first).
_UMLAUT = re.compile(r"(?<=[a-z])([aou])e")


def unescaped(value: str) -> str:
    """`value` with HTML entities read ("Smith &amp; Rowe" → "Smith & Rowe"), as a board may send them."""
    return html.unescape(value) if "&" in value else value


def company_key(name: str) -> str:
    """The company's name without its legal form, without spaces: the block fuzzy matching uses.

    "Northwind Robotics GmbH", "Northwind Robotics" and "NorthwindRobotics Inc." → "northwindrobotics";
    "Müller", "Mueller" and "Muller" → "muller"; "Smith &amp; Rowe" = "Smith and Rowe".
    """
    base = unicodedata.normalize("NFKC", unescaped(name)).casefold().replace(".", "")
    base = _AMPERSAND.sub(" and ", base)
    for affix in vocabulary.LEGAL_AFFIXES:
        base = base.replace(affix, " ")
    tokens = words(base)
    joined = " ".join(tokens)
    for phrase in vocabulary.LEGAL_PHRASES:
        if joined.endswith(" " + phrase):
            tokens = tokens[: -len(phrase.split())]
            break
    # "X & Co. KG" loses "kg", "co" and the dangling "and".
    while len(tokens) > 1 and (tokens[-1] in vocabulary.LEGAL_FORMS or tokens[-1] == "and"):
        tokens.pop()
    if len(tokens) > 1 and tokens[0] == "the":
        tokens.pop(0)
    return _UMLAUT.sub(r"\1", "".join(tokens))


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
    stripped = _REMOTE_PHRASES.sub(" ", _GENDER.sub(" ", unicodedata.normalize("NFKC", unescaped(title))))
    out: list[str] = []
    for word in words(stripped):
        if word in vocabulary.REMOTE_WORDS:
            continue
        expanded = vocabulary.ABBREVIATIONS.get(word, word)
        out.extend(expanded.split())
    return _without_phrase(out, [w for w in words(company) if w not in vocabulary.LEGAL_FORMS])


def _without_phrase(title: list[str], name: list[str]) -> list[str]:
    """`title` without the company's name written in it ("Kestrel Health Backend Engineer"); the
    name's words one by one stay ("Robotics Engineer" at Oresund Robotics is a robotics job)."""
    n = len(name)
    if not n or len(title) <= n:
        return title
    for start in range(len(title) - n + 1):
        if title[start : start + n] == name:
            return title[:start] + title[start + n :]
    return title


class TitleTags(NamedTuple):
    """A title without its tags, and what the tags said."""

    title: str
    continents: frozenset[str]
    employment: str


_MAY_HAVE_TAGS = re.compile(r"[(\[\-|\u2013\u2014]")
_BRACKETED = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
_SEPARATOR = re.compile(r"\s+[-\u2013\u2014]\s+|\s*\|\s*|\s+[-\u2013\u2014]\s*$")
_TAG_PARTS = re.compile(r"\s*(?:[,/;&+]|\s[-\u2013\u2014]\s|\bor\b|\band\b)\s*", re.IGNORECASE)


def title_tags(title: str, places: Collection[str] = ()) -> TitleTags:
    """The title without its tags: a part in brackets, or after a dash or a bar, made only of remote
    words, regions, the posting's own places and employment terms ("(EMEA, Remote)", "- Remote",
    "[Contract]", "| Remote US", "- Austin, TX"). A part with any other word is the job's
    ("(Golang)", "- Payments") and stays. `places` are the normal forms of the posting's places."""
    if not _MAY_HAVE_TAGS.search(title):
        return TitleTags(title, frozenset(), "")
    found: set[str] = set()
    kinds: list[str] = []

    def tag(part: str) -> bool:
        said = _tag(part, places)
        if said is not None:
            found.update(said[0])
            kinds.append(said[1])
        return said is not None

    unbracketed = _BRACKETED.sub(
        lambda m: " " if tag(m.group(1)) else f" {m.group(1)} ",
        _GENDER.sub(" ", unicodedata.normalize("NFKC", unescaped(title))),
    )
    head, *tail = _SEPARATOR.split(unbracketed)
    kept = [head, *(part for part in tail if not tag(part))]
    return TitleTags(" ".join(kept), frozenset(found), next((k for k in kinds if k), ""))


def _tag(segment: str, places: Collection[str]) -> tuple[set[str], str] | None:
    """The continents and employment type a title's part names if it is a tag, else None."""
    found: set[str] = set()
    kind = ""
    after_place = False
    for part in _TAG_PARTS.split(_REMOTE_PHRASES.sub(" remote ", segment)):
        name = " ".join(
            w
            for w in words(part)
            if w not in vocabulary.REMOTE_WORDS and w not in vocabulary.REGION_QUALIFIERS
        )
        name = vocabulary.EXONYMS.get(name, name)
        if not name:
            continue
        if name in vocabulary.REGIONS or name in places:
            found |= continents_of(name)
            after_place = True
            continue
        if len(name) == 2 and after_place:  # "Austin, TX": a state or province after its city
            continue
        term = _employment_term(name)
        if term is None:
            return None
        kind, after_place = kind or term, False
    return found, kind


def _employment_term(name: str) -> str | None:
    """The employment type a tag names ("contract", "full time"; "" for a term: "6 months"), or None."""
    rest = " ".join(w for w in name.split() if not w.isdigit() and w not in vocabulary.DURATION_WORDS)
    return vocabulary.EMPLOYMENT.get(rest) if rest else ""


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
    """The title without its level words, one word per role: ("senior back end developer" →
    "back end engineer")."""
    level = set(vocabulary.LEVEL_WORDS) | {"level"}
    core: list[str] = []
    for word in title_word_list:
        w = vocabulary.ROLE_SYNONYMS.get(word, word)
        if w not in level and w not in core:  # "SRE / Site Reliability Engineer" says it twice
            core.append(w)
    if core and core[-1] in vocabulary.NUMERAL_LEVELS:
        core.pop()
    return " ".join(core)


def is_remote_title(title: str) -> bool:
    """The title says the job is remote ("Backend Engineer (Remote)")."""
    return bool(_REMOTE_PHRASES.search(title)) or any(w in vocabulary.REMOTE_WORDS for w in words(title))


# --- places --------------------------------------------------------------------------------------


_ALTERNATIVES = re.compile(r"[;/|]|\s+or\s+", re.IGNORECASE)
_PLACE_PARTS = re.compile(r"[,()\-\u2013\u2014]")


class Location(NamedTuple):
    """What one location string says."""

    parts: tuple[str, ...]  # its parts' normal forms ("Berlin, Germany" → berlin, germany)
    cities: tuple[str, ...]  # the cities it names: one per alternative ("Berlin or Munich")
    continents: frozenset[str]  # the continents its countries and regions lie in

    @property
    def city(self) -> str | None:
        """The first city it names, if any."""
        return self.cities[0] if self.cities else None


@functools.lru_cache(maxsize=8192)  # boards repeat a handful of places thousands of times
def location(value: str) -> Location:
    """Read a location: "Berlin, Germany or Remote (EMEA)" → parts berlin, germany, remote, emea;
    city berlin; continents europe (and EMEA's Middle East and Africa).

    Alternatives ("Berlin or Munich", "London / Remote") each name a city: the first of its parts
    that is not a region, a remote word or a schedule ("Austin, TX" → austin; "Remote (EU)",
    "USA Only", "Germany" and "Onsite (hybrid, 3 days)" name none). A region's qualifier is dropped
    ("USA Only" → usa) and exonyms applied (München → munich).
    """
    parts: list[str] = []
    cities: list[str] = []
    for alternative in _ALTERNATIVES.split(_REMOTE_PHRASES.sub(" remote ", value)):
        own: list[str] = []
        for part in _PLACE_PARTS.split(alternative):
            norm = " ".join(w for w in words(part) if w not in vocabulary.REGION_QUALIFIERS)
            if norm:
                own.append(vocabulary.EXONYMS.get(norm, norm))
        parts += own
        found = next((p for p in own if _is_city(p)), None)
        if found and found not in cities:
            cities.append(found)
    return Location(
        parts=tuple(parts),
        cities=tuple(cities),
        continents=frozenset(c for p in parts for c in continents_of(p)),
    )


def _is_city(part: str) -> bool:
    if part in vocabulary.REGIONS:
        return False
    part_words = part.split()
    if set(part_words) & vocabulary.REMOTE_WORDS:
        return False
    return not all(w.isdigit() or w in vocabulary.PLACE_FILLER for w in part_words)


def continents_of(name: str) -> set[str]:
    """The continents a country or region (in normal form) lies in: "americas" → two."""
    return {continent for continent, names in vocabulary.CONTINENTS.items() if name in names}


def continents(value: str) -> set[str]:
    """The continents a location names by country or region ("Remote - Europe" → {"europe"})."""
    return set(location(value).continents)


def place(value: str) -> str:
    """A place's normal form with exonyms applied: "München, Germany" → "munich germany"."""
    norm = text(value)
    return vocabulary.EXONYMS.get(norm, norm)


def city(value: str) -> str | None:
    """The city a location names, or None (a country, a region, or remote): see `location`."""
    return location(value).city


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


Shingle = tuple[str, ...]


def shingles(normalised: str) -> set[Shingle]:
    """The overlapping 4-word runs of a normalised text (`words` joined by spaces, as features and
    the seen-set keep descriptions). Compared within one process, never stored."""
    tokens = normalised.split()
    if len(tokens) < SHINGLE:
        return {tuple(tokens)} if tokens else set()
    return set(zip(tokens, tokens[1:], tokens[2:], tokens[3:], strict=False))
