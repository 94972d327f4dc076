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

_PUNCT = re.compile(r"[^\w]+")
_SPACES = re.compile(r"\s+")


def text(value: str) -> str:
    """NFKC, case folded, without accents; punctuation as spaces; one space between words."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    bare = unicodedata.normalize("NFC", _without_accents(folded))
    return _SPACES.sub(" ", _PUNCT.sub(" ", bare.replace("_", " "))).strip()


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

# Legal forms as words after normalisation (dots removed first, so N.A. → na, S.A. → sa).
_LEGAL_FORMS = frozenset(
    [
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "llc",
        "llp",
        "lp",
        "ltd",
        "limited",
        "plc",
        "gmbh",
        "mbh",
        "ag",
        "se",
        "kg",
        "kgaa",
        "ohg",
        "ug",
        "eg",
        "ev",
        "haftungsbeschrankt",
        "sa",
        "sas",
        "sarl",
        "sasu",
        "sl",
        "slu",
        "spa",
        "srl",
        "bv",
        "nv",
        "oy",
        "oyj",
        "ab",
        "as",
        "asa",
        "aps",
        "a/s",
        "pty",
        "pte",
        "kk",
        "na",
        "nv",
        "sp",
        "zoo",
        "sro",
        "group",
        "holding",
        "holdings",
    ]
)
# Written before or around the name in other scripts and languages.
_LEGAL_AFFIXES = (
    "株式会社",
    "有限会社",
    "合同会社",
    "有限公司",
    "股份有限公司",
    "\u043e\u043e\u043e",  # OOO (Russian LLC)
    "\u043e\u0430\u043e",  # OAO
    "\u0437\u0430\u043e",  # ZAO
    "\u043f\u0430\u043e",  # PAO
    "\u0430\u043e",  # AO
    "شركة",
)
_AMPERSAND = re.compile(r"\s*&\s*")


def company_key(name: str) -> str:
    """The company's name without its legal form, without spaces: the block fuzzy matching uses.

    "Northwind Robotics GmbH", "Northwind Robotics" and "NorthwindRobotics Inc." → "northwindrobotics".
    """
    base = unicodedata.normalize("NFKC", name).casefold().replace(".", "")
    base = _AMPERSAND.sub(" and ", base)
    for affix in _LEGAL_AFFIXES:
        base = base.replace(affix, " ")
    tokens = words(base)
    # "X & Co. KG" loses "kg", "co" and the dangling "and".
    while len(tokens) > 1 and (tokens[-1] in _LEGAL_FORMS or tokens[-1] == "and"):
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
# Remote and location markers in titles: "(Remote)", "- Remote, EU", "100% remote", "WFH".
_REMOTE_WORDS = frozenset(
    {
        "remote",
        "remotely",
        "anywhere",
        "worldwide",
        "wfh",
        "telecommute",
        "homeoffice",
        "distributed",
        "hybrid",
        "onsite",
    }
)
_REMOTE_PHRASES = re.compile(
    r"\b(?:100\s*%\s*remote|fully\s+remote|remote\s+first|remote\s+friendly|work\s+from\s+home"
    r"|home\s+office|work\s+from\s+anywhere|remote\s+only)\b",
    re.IGNORECASE,
)
_ABBREVIATIONS = {
    "sr": "senior",
    "snr": "senior",
    "jr": "junior",
    "jnr": "junior",
    "eng": "engineer",
    "engr": "engineer",
    "dev": "developer",
    "devs": "developers",
    "mgr": "manager",
    "mngr": "manager",
    "swe": "software engineer",
    "sw": "software",
    "sde": "software engineer",
    "assoc": "associate",
    "admin": "administrator",
    "ops": "operations",
    "fullstack": "full stack",
    "frontend": "front end",
    "backend": "back end",
    "devops": "devops",
    "k8s": "kubernetes",
    "ml": "machine learning",
    "sre": "site reliability engineer",
    "qa": "quality assurance",
    "ux": "user experience",
    "optimization": "optimisation",
    "js": "javascript",
    "ii": "2",
    "iii": "3",
    "iv": "4",
    "and": "",
    "at": "",
    "for": "",
    "of": "",
    "the": "",
    "is": "",
    "we": "",
    "are": "",
    "hiring": "",
    "job": "",
    "position": "",
    "role": "",
    "opening": "",
    "vacancy": "",
    "wanted": "",
    "a": "",
    "m": "",
    "w": "",
    "f": "",
    "d": "",
}
# Level words: two titles with different levels are different jobs.
LEVEL_WORDS = {
    "intern": "intern",
    "internship": "intern",
    "trainee": "intern",
    "praktikant": "intern",
    "werkstudent": "intern",
    "junior": "junior",
    "entry": "junior",
    "graduate": "junior",
    "mid": "mid",
    "intermediate": "mid",
    "senior": "senior",
    "confirme": "senior",
    "staff": "staff",
    "principal": "principal",
    "distinguished": "principal",
    "lead": "lead",
    "head": "manager",
    "director": "manager",
    "vp": "manager",
    "manager": "manager",
}
_NUMERAL_LEVELS = frozenset({"1", "2", "3", "4", "5", "6", "7", "8", "9", "i"})


def title_words(title: str, company: str = "") -> list[str]:
    """The title's words: gender tags, remote markers and company name gone, abbreviations spelled out."""
    stripped = _REMOTE_PHRASES.sub(" ", _GENDER.sub(" ", unicodedata.normalize("NFKC", title)))
    out: list[str] = []
    for word in words(stripped):
        if word in _REMOTE_WORDS:
            continue
        expanded = _ABBREVIATIONS.get(word, word)
        out.extend(expanded.split())
    company_words = set(words(company)) - set(LEVEL_WORDS)
    if company_words and len(out) > len(company_words):
        out = [w for w in out if w not in company_words]
    return out


def title_level(title_word_list: list[str]) -> str:
    """The level a title states: a level word, or a trailing numeral ("Engineer II"); "" if none.

    Several level words give the most specific: "Senior Engineering Manager" is `senior+manager`.
    """
    levels = sorted({LEVEL_WORDS[w] for w in title_word_list if w in LEVEL_WORDS})
    numerals = [w for w in title_word_list[-1:] if w in _NUMERAL_LEVELS]
    return "+".join(levels + numerals)


def title_core(title_word_list: list[str]) -> str:
    """The title without its level words: ("senior back end engineer" → "back end engineer")."""
    level = set(LEVEL_WORDS) | {"level"}
    core: list[str] = []
    for w in title_word_list:
        if w not in level and w not in core:  # "SRE / Site Reliability Engineer" says it twice
            core.append(w)
    if core and core[-1] in _NUMERAL_LEVELS:
        core.pop()
    return " ".join(core)


def is_remote_title(title: str) -> bool:
    """The title says the job is remote ("Backend Engineer (Remote)")."""
    return bool(_REMOTE_PHRASES.search(title)) or any(w in _REMOTE_WORDS for w in words(title))


# --- places --------------------------------------------------------------------------------------

_EXONYMS = {
    "munchen": "munich",
    "koln": "cologne",
    "wien": "vienna",
    "zurich": "zurich",
    "nurnberg": "nuremberg",
    "praha": "prague",
    "warszawa": "warsaw",
    "krakow": "krakow",
    "lisboa": "lisbon",
    "milano": "milan",
    "roma": "rome",
    "kobenhavn": "copenhagen",
    "goteborg": "gothenburg",
    "den haag": "the hague",
    "s gravenhage": "the hague",
    "bruxelles": "brussels",
    "brussel": "brussels",
    "geneve": "geneva",
    "frankfurt am main": "frankfurt",
    "nyc": "new york",
    "new york city": "new york",
    "sf": "san francisco",
    "montreal": "montreal",
    "bengaluru": "bangalore",
}
# Countries and regions: a place naming only these names no city.
_REGIONS = frozenset(
    [
        "germany",
        "deutschland",
        "de",
        "uk",
        "england",
        "scotland",
        "gb",
        "usa",
        "us",
        "canada",
        "france",
        "netherlands",
        "nl",
        "spain",
        "portugal",
        "italy",
        "austria",
        "switzerland",
        "ireland",
        "poland",
        "sweden",
        "denmark",
        "norway",
        "finland",
        "belgium",
        "czechia",
        "europe",
        "eu",
        "emea",
        "apac",
        "latam",
        "americas",
        "dach",
        "benelux",
        "nordics",
        "global",
        "international",
        "japan",
        "india",
        "australia",
        "singapore",
        "brazil",
        "mexico",
    ]
) | {
    "united kingdom",
    "united states",
    "great britain",
    "north america",
    "czech republic",
    "the netherlands",
    "new zealand",
    "south africa",
}


_CONTINENTS = {
    "europe": frozenset(
        [
            "europe",
            "eu",
            "emea",
            "dach",
            "benelux",
            "nordics",
            "germany",
            "deutschland",
            "de",
            "uk",
            "england",
            "scotland",
            "gb",
            "france",
            "netherlands",
            "nl",
            "spain",
            "portugal",
            "italy",
            "austria",
            "switzerland",
            "ireland",
            "poland",
            "sweden",
            "denmark",
            "norway",
            "finland",
            "belgium",
            "czechia",
        ]
    )
    | {"united kingdom", "great britain", "czech republic", "the netherlands"},
    "north america": frozenset({"north america", "usa", "us", "united states", "america", "canada"}),
    "latin america": frozenset({"latam", "brazil", "mexico", "south america", "latin america"}),
    "asia pacific": frozenset({"apac", "japan", "india", "australia", "singapore", "new zealand"}),
}


def continents(value: str) -> set[str]:
    """The continents a location names by country or region ("Remote - Europe" → {"europe"})."""
    found = set()
    for part in re.split(r"[,;/|()\-\u2013\u2014]", value):
        norm = place(part)
        for continent, names in _CONTINENTS.items():
            if norm in names:
                found.add(continent)
    return found


def place(value: str) -> str:
    """A place's normal form with exonyms applied: "München, Germany" → "munich germany"."""
    norm = text(value)
    return _EXONYMS.get(norm, norm)


def city(value: str) -> str | None:
    """The city a location names, or None (a country, a region, or remote).

    The city is the first comma-separated part that is not a region or a remote word:
    "Berlin, Germany" → "berlin"; "Remote (EU)" → None; "Germany" → None.
    """
    for part in re.split(r"[,;/|()\-\u2013\u2014]", value):
        norm = place(part)
        if not norm or norm in _REGIONS:
            continue
        if _REMOTE_PHRASES.search(part) or set(norm.split()) & _REMOTE_WORDS or norm == "hybrid":
            continue
        return norm
    return None


def is_remote_place(value: str) -> bool:
    """The location says remote ("Remote", "Anywhere", "Remote (EU)", "Work from home")."""
    return bool(_REMOTE_PHRASES.search(value)) or bool(set(words(value)) & _REMOTE_WORDS)


# --- employment type -----------------------------------------------------------------------------

_EMPLOYMENT = {
    "full time": "full_time",
    "fulltime": "full_time",
    "permanent": "full_time",
    "vollzeit": "full_time",
    "festanstellung": "full_time",
    "cdi": "full_time",
    "part time": "part_time",
    "parttime": "part_time",
    "teilzeit": "part_time",
    "contract": "contract",
    "contractor": "contract",
    "freelance": "contract",
    "temporary": "contract",
    "fixed term": "contract",
    "intern": "intern",
    "internship": "intern",
    "praktikum": "intern",
    "working student": "intern",
    "werkstudent": "intern",
}


def employment(value: str | None) -> str:
    """One of full_time, part_time, contract, intern; "" when unknown."""
    norm = text(value or "")
    for phrase, kind in _EMPLOYMENT.items():
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
# Hosts that serve the same postings under two names.
_HOST_ALIASES = {
    "job-boards.greenhouse.io": "boards.greenhouse.io",
    "job-boards.eu.greenhouse.io": "boards.eu.greenhouse.io",
    "boards-api.greenhouse.io": "boards.greenhouse.io",
    "jobs.eu.lever.co": "jobs.lever.co",
}
_SUFFIXES = ("/apply", "/application", "/apply-now")
_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"')\]]+", re.IGNORECASE)
# Boards whose posting URL names the job itself: an aggregator's text linking there is a cross-post.
_ATS_HOSTS = ("greenhouse.", "lever.", "ashbyhq.", "ashby.", "workable.", "smartrecruiters.", "recruitee.")


def canonical_url(url: str) -> str:
    """The URL without what varies between links to one posting (tracking parameters, case, ...).

    `https://www.Example.com/jobs/7/?utm_source=x&gh_src=y#apply` → `example.com/jobs/7`.
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    host = (parts.hostname or "").casefold().removeprefix("www.")
    host = _HOST_ALIASES.get(host, host)
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
        if any(marker in host for marker in _ATS_HOSTS) and "/" in url and url not in found:
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
