"""What the listing only wishes for: the tools and certifications of its "nice to have" lines.

A listing's "Nice to have" (or "Desirable", "Bonus", "... is a plus") names what the employer
would like and knows many applicants lack: "IBM Maximo", "B2 licence", "Argus Safety", "GWO
Advanced Rescue Training (ART)". A draft may name them as gaps or wishes, but one that says the
person has one the profile does not name has taken it from the listing. The names are read here
once per listing (`Facts.wished`); the skills and certifications checks look for them in a
clause that claims something as the person's own.
"""

from __future__ import annotations

import re

from wordfreq import zipf_frequency

from jobsearch.draft.checks.claims import claims
from jobsearch.draft.checks.lexicon import is_common
from jobsearch.draft.checks.positions import namelike
from jobsearch.draft.checks.text import bare, contains, fold, words
from jobsearch.draft.checks.vocabulary import CERTIFICATION_WORD, COMMON, FIRST_PERSON, GAP, LANGUAGES

_HEADING = re.compile(
    r"^\W*(?:nice[\s-]+to[\s-]+haves?|desirable|desired|bonus(?:\s+points)?|preferred|ideally|"
    r"good[\s-]+to[\s-]+have|a\s+plus|pluses|advantageous|an\s+advantage|would\s+be\s+great|"
    r"it\s+helps\s+if\s+you\s+have|helpful|assets?)\b",
    re.IGNORECASE,
)
_INLINE = re.compile(
    r"\b(?:is|are|would\s+be)\s+(?:a\s+(?:big\s+)?(?:plus|bonus)|an?\s+advantage|nice\s+to\s+have|desirable)\b",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022\u2013]|\d+[.)])\s+")
_EVERYDAY = 4.0  # the zipf frequency of a word too common to be a product's name ("Safety": 5.0)
# A nice-to-have line of a credential: what its names are checked as.
_CREDENTIAL = re.compile(
    r"\b(?:licen[cs]es?|training|rating|qualification|ticket|exam|credentials?|card|registers?)\b", re.I
)


def _wished_lines(description: str) -> list[str]:
    """The listing's lines that name what it wishes for: the bullets under a "Nice to have"
    heading (up to the first line that is no bullet), and any line saying "X is a plus"."""
    out: list[str] = []
    under = False
    for line in description.splitlines():
        # a heading alone, or one that runs on after a colon ("Nice to have: CSWIP 3.2U; ...")
        if _HEADING.match(line) and (len(line.split()) <= 6 or re.match(r"^[^:]{0,30}:", line)):
            under, rest = True, _HEADING.sub("", line).strip(" :-")
            if rest:
                out.append(rest)
            continue
        if under and (_BULLET.match(line) or (line[:1].isspace() and line.strip())):
            out.append(line)
            continue
        under = False
        if _INLINE.search(line):
            out.append(line)
    return out


def wished_names(description: str, profile_text: str, company: str) -> dict[str, bool]:
    """The names the listing only wishes for and the profile does not use, each with whether it
    is a credential's ("B2" of "B2 licence") rather than a tool's ("Maximo")."""
    company_words = set(fold(company).split())
    found: dict[str, bool] = {}
    for line in _wished_lines(description):
        credential = bool(CERTIFICATION_WORD.search(line) or _CREDENTIAL.search(line))
        previous = ""
        for word in words(_BULLET.sub("", line)):
            token, after = bare(word.text), previous
            key, previous = fold(token), token
            if token.isdigit() and after.isupper() and len(after) > 1:
                # "NFPA 1006": the standard's number is the credential's name
                if not contains(profile_text, fold(f"{after} {token}")):
                    found[token] = True
                continue
            # a capital letter alone is a line's article ("A second language"), not an acronym
            acronym = (token.isupper() and len(token) > 1) or any(c.isdigit() for c in token)
            if not key or not (namelike(word) or acronym) or not any(c.isalpha() for c in token):
                continue
            # a line's first word is capitalised as a word ("Experience with ..."); a name inside
            # it only if no everyday word ("Safety", "Training"): "Argus", "Vault" stay names
            common = is_common(token, ("en",)) if word.first else zipf_frequency(key, "en") >= _EVERYDAY
            if not acronym and (key in COMMON or common or key in LANGUAGES):
                continue  # "Experience", "Advanced", "French": words, or the skills check's
            if contains(profile_text, key) or key in company_words:
                continue
            found[token] = found.get(token, False) or credential
    return found


_LEAD = re.compile(
    r"^(?:(?:hands-on\s+)?(?:experience|knowledge|familiarity|exposure|skills?)\s+(?:with|of|in|to|on)\s+"
    r"|(?:an?|the|some)\s+)",
    re.IGNORECASE,
)
_PARTS = re.compile(r"\s*(?:[,;/]|\bor\b|\band\b|\betc\b\.?)\s*", re.IGNORECASE)


# "shipboard firefighting experience": what is wished is the firefighting
_TRAIL = re.compile(r"\s+(?:experience|knowledge|skills|background|exposure)\W*$", re.IGNORECASE)


def wished_phrases(description: str, profile_text: str) -> list[str]:
    """The listing's wishes in lower-case words ("laser-assisted periodontal therapy", "injection
    moulding design"), folded: two to five words of a "Nice to have" line that the profile does
    not write, which a letter may name as something to learn but never as done."""
    found: list[str] = []
    for line in _wished_lines(description):
        text = re.sub(r"\([^)]*\)", " ", _BULLET.sub("", line)).strip()
        for part in _PARTS.split(_LEAD.sub("", text)):
            written = _TRAIL.sub("", _LEAD.sub("", part.strip()))
            phrase = fold(written)
            size = len(phrase.split())
            if 2 <= size <= 5 and written == written.lower() and not contains(profile_text, phrase):
                found.append(phrase)
    return list(dict.fromkeys(found))


_WISH = re.compile(
    r"\b(?:I['\u2019]d|would|I['\u2019]ll|love|like|glad|happy|enjoy|welcome|apply|applying|applied|"
    r"interested|role|position|opening|vacancy|saw|see|noticed|read)\b",
    re.IGNORECASE,
)


# "I know Impella and ECMO are on your list", "I saw that X ...": the person knows of it
YOURS = re.compile(r"\b(?:you|your|you're|you've)\b", re.IGNORECASE)


def fragment(sentence: str) -> bool:
    """A note's fragment: a sentence with no subject but the person and no "you"."""
    return not FIRST_PERSON.search(sentence) and not YOURS.search(sentence)


def names_company(sentence: str, company: str) -> bool:
    """Whether a sentence names the hiring company by a distinctive word of its name (then what
    it names may be the company's)."""
    distinctive = {w for w in fold(company).split() if len(w) >= 4 and not is_common(w, ("en",))}
    return bool(distinctive & set(fold(sentence).split()))


_AWARE = re.compile(r"\bI\s+(?:know|see|saw|noticed|notice|understand|read)\b")


def held(sentence: str, name: str, company: str, *, bullet: bool = False) -> bool:
    """Whether a sentence says the person has `name`: no gap word in it, no wish or word of the
    listing before the name, the hiring company unnamed, and the first person before it with no
    "your" between (`claims`) or, where `bullet`, a bullet of the letter's own list."""
    at = sentence.find(name)
    if at < 0:
        return False
    # a gap counts in the part that names it ("..., the CKS and my GCIH, and a one-week-in-five
    # rota would suit me" holds the GCIH)
    comma = re.search(r"[,;]\s+(?:and|but|so)\s", sentence[at + len(name) :])
    own = sentence[: at + len(name) + comma.start()] if comma else sentence
    if GAP.search(own) or _WISH.search(sentence[:at]) or _AWARE.search(sentence[:at]):
        return False
    if names_company(sentence, company):
        return False  # "I saw Northshore is after a Head Nurse for ECC": the listing's
    # the letter's own list: a bullet, a "Certifications:" line, or a note's fragment with no
    # subject but the person ("GWO BST, BTT, ART and Enhanced First Aid, and 7 years offshore")
    own_list = sentence.lstrip()[:1] in "-*\u2022" or bool(OWN_LIST.match(sentence)) or fragment(sentence)
    return (
        claims(sentence[: at + len(name)], at)
        or bool(_MINE_AFTER.match(sentence[at + len(name) :]))
        or (bullet and own_list)
    )


# "Certifications: EPA 608, NATE and an OSHA 10 card": a heading of the letter's own list
OWN_LIST = re.compile(
    r"^\s*(?:(?:my\s+)?(?:certifications?|certificates?|licen[cs]es|qualifications|credentials|tickets|"
    r"tools|skills|systems|software)\s*:|my\s+(?:certifications|certificates|licen[cs]es|qualifications|"
    r"credentials|tickets)\s+(?:include|are|cover)\b)",
    re.IGNORECASE,
)
# "Procore and Bluebeam Revu are both part of my routine": held, said after the name
_MINE_AFTER = re.compile(
    r"^[^.;:]{0,40}?\b(?:is|are)\s+(?:both\s+|all\s+|also\s+)?(?:part\s+of\s+my|in\s+my|my\s+(?:daily|"
    r"everyday|main|usual|go-to))\b",
    re.IGNORECASE,
)


_SUFFIXED = re.compile(r"[A-Z][\w/]*-(?:trained|certified|qualified|accredited)")


def wished_in(clause: str, wished: dict[str, bool], *, credential: bool) -> list[str]:
    """The wished-for names a clause names (those of credentials, or of tools), each shown with
    the capitalised words around it ("IBM Maximo"); an acronym only as written, in capitals."""
    tokens = words(clause)
    found: list[str] = []
    for i, word in enumerate(tokens):
        token = bare(word.text)
        if token not in wished and re.fullmatch(
            r"[A-Z][\w/]*-(?:trained|certified|qualified|accredited)", token
        ):
            token = token.rsplit("-", 1)[0]  # "DSL-trained": the wished DSL
        kind = wished.get(token)
        if kind is None and not token.isupper():
            kind = next(
                (v for k, v in wished.items() if not k.isupper() and k.lower() == token.lower()), None
            )
        if kind is None or kind != credential:
            continue
        start = end = i
        while (
            start > 0
            and namelike(tokens[start - 1])
            and clause[tokens[start - 1].end : tokens[start].start] == " "
        ):
            start -= 1
        while (
            end + 1 < len(tokens)
            and namelike(tokens[end + 1])
            and clause[tokens[end].end : tokens[end + 1].start] == " "
        ):
            end += 1
        found.append(clause[tokens[start].start : tokens[end].end])
    return found
