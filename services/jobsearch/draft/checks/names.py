"""Names: every name a draft puts in a claim position is one the profile or the listing uses.

An organisation, a school, a person, a product or a place that neither source names is the commonest
invention of a model ("Dear Dr. Weber", "my years at Flutterwave", "at TU Munich"), and it is seen
without knowing what kind of name it is: a run of capitalised words of which one is not a
capitalised word of the sources, standing where a letter states a fact with a name (after "at",
"for", "with"; a possessive; a salutation; a reference; see `positions`). An unknown word anywhere
else (a sentence's subject, an acronym of the trade, a colloquial short form) claims nothing. A
short form of a source's name counts as known ("UCD" for University College Dublin, "LMU" for
Ludwig-Maximilians-Universität), and so does a trade acronym whose words a source spells out in
any case ("ADR" for adverse drug reaction, `facts`), or a short name of a degree the profile holds
("BPharm"). A region's short name where an employer stands ("first at LATAM") is checked. A
sentence's first word is a name only when it is no common word and no word the sources or the
draft use in lower case. Skills and languages are left to the skills check, which tells a claim
from a gap. In a language that capitalises every noun (German), only a
capitalised run after a word that introduces an organisation ("bei Initech", "für die Acme GmbH",
"at Hooli") is read.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts, deaccent, degree_families
from jobsearch.draft.checks.lexicon import is_common
from jobsearch.draft.checks.positions import HONORIFIC_SUFFIX, HONORIFICS, claimed, greeting_length, namelike
from jobsearch.draft.checks.referees import referees
from jobsearch.draft.checks.schools import part_of
from jobsearch.draft.checks.text import Word, bare, fold, sentences, words
from jobsearch.draft.checks.units import spelled_out
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import (
    AMBIGUOUS_SKILLS,
    CERTIFICATIONS,
    COMMON,
    DEMONYMS,
    GENERIC_ACRONYMS,
    GENERIC_CAPS,
    GREETINGS,
    LANGUAGE_CODES,
    LANGUAGES,
    NOUNS_CAPITALISED,
    ROLE_NOUNS,
    SHORT_WORDS,
    SKILLS,
)
from jobsearch.jobs import Check

_CONNECTORS = frozenset({"of", "de", "del", "der", "van", "von", "la", "le", "du", "&", "and", "for", "y"})
_COMMON_ENDINGS = (
    "ing",
    "ly",
    "ed",
    "ity",
    "ment",
    "ness",
    "tion",
    "sion",
    "ance",
    "ence",
    "ship",
    "ism",
    "ive",
    "ical",
    "ous",
    "ful",
    "able",
    "ible",
    "less",
)
# In a language that capitalises every noun (`NOUNS_CAPITALISED`) only a capitalised run after a
# word that introduces an organisation ("bei", "für", "at") is read as a name.
_INTRODUCES = frozenset({"bei", "für", "von", "vom", "am", "an", "at", "for", "with", "from", "joined"})
# Capitalised words of those languages that begin a noun phrase, not a name: "für Ihre Zeit".
_DETERMINERS = frozenset(
    {
        "ihre",
        "ihr",
        "ihren",
        "ihrem",
        "ihrer",
        "ihnen",
        "sie",
        "die",
        "der",
        "das",
        "den",
        "dem",
        "ein",
        "eine",
        "einen",
        "einem",
        "unsere",
        "unser",
        "meine",
        "mein",
        "diese",
        "dieses",
    }
)
_I = frozenset({"I", "I'm", "I've", "I'd", "I'll"})


def _plain_word(word: str, facts: Facts, lower: set[str]) -> bool:
    """Whether a capitalised word may be no name: a common word, or one used in lower case."""
    key = word.lower()
    return (
        key in COMMON
        or key in lower
        or key in facts.vocabulary
        or is_common(word, facts.languages)
        # an opening word with the ending of a common English word: "Reading", "Reliability"
        or (key.endswith(_COMMON_ENDINGS) and len(key) > 5)
    )


def _language_pair(token: str, facts: Facts) -> bool:
    """A pair of language codes of languages the sources name ("EN-ES", "EN>DE")."""
    parts = re.split(r"[-/>\u2013\u2192]+", token)
    return len(parts) >= 2 and all(LANGUAGE_CODES.get(p.lower(), "-") in facts.vocabulary for p in parts if p)


def _name_known(token: str, facts: Facts) -> bool:
    """Whether a capitalised token is a name of the sources: as written, in its singular ("P&Ls",
    "Canadians"), cut short ("Physio"), or, hyphenated, by each capitalised part ("Java-to-Kotlin")."""
    key = token.lower()
    if (
        token in facts.names
        or f"~{key}" in facts.names
        or deaccent(token) in facts.names
        or SHORT_WORDS.get(key.rstrip("."), "").capitalize() in facts.names  # "Cert III" for Certificate III
        or _language_pair(token, facts)  # "EN-ES"
        or (len(token) >= 3 and token.isupper() and f"M{token}" in facts.names)  # "the IET" for MIET
    ):
        return True
    if (
        len(token) > 2
        and token.endswith("s")
        and (token[:-1] in facts.names or f"~{key[:-1]}" in facts.names)
    ):
        return True
    if len(token) >= 5 and any(len(n) > len(token) and n.startswith(token) for n in facts.names):
        return True  # a name's word cut short: "Lee Valley Physio" for Lee Valley Physiotherapy
    cut = token[:-1] if token.endswith("s") and len(token) > 3 else token  # "Wits"
    if len(cut) >= 3 and any(deaccent(n).startswith(cut) for n in facts.name_heads):
        return True  # the first word of an employer's or school's name cut short: "Tec de Monterrey"
    stem = re.sub(r"(?:ers?|ing|ed)$", "", token)
    if len(stem) >= 3 and stem != token and stem in facts.names:
        return True  # "Mental Health First Aider" for Mental Health First Aid
    parts = [p for p in re.split(r"[-/]", token) if p[:1].isupper()]
    return (
        ("-" in token or "/" in token)
        and bool(parts)
        and all(
            p in facts.names or f"~{p.lower()}" in facts.names or p.lower() in GENERIC_CAPS for p in parts
        )
    )


def _held_degree(token: str, facts: Facts) -> bool:
    """A degree's short name ("BPharm", "MSc") of a family the profile holds."""
    families = degree_families(token)
    return bool(families) and any(families <= d.families for d in facts.degrees)


_DEMONYM_ENDINGS = ("ian", "ean", "ese", "ish", "an", "ic", "i")


def _known(word: Word, facts: Facts, lower: set[str], opens: bool, next_word: str = "") -> bool:
    token = word.bare
    key = token.lower()
    named_elsewhere = (
        any(marker.fullmatch(token) for marker in facts.injected.markers)  # the injection check's
        or (fold(token) in SKILLS and key not in AMBIGUOUS_SKILLS | {"oracle", "epic"})  # the skills check's
        or (key in CERTIFICATIONS and token.isupper())  # the certifications check's
        # "BPharm" for the profile's Bachelor of Pharmacy: the degrees check's
        or _held_degree(token, facts)
    )
    generic = (
        _name_known(token, facts)
        or token in _I
        or token in GENERIC_ACRONYMS
        or token.isdigit()
        or (key in COMMON and len(key) > 1)
        or key in GENERIC_CAPS
        or key in GREETINGS
        or key.rstrip(".") in HONORIFICS  # "Frau", "Me", "Dr.": the person is the next word
        or key in LANGUAGES
        or fold(token) in facts.person_names
        # "Peruvian Spanish", "Brazilian Portuguese": a variety of a language
        or (key.endswith(_DEMONYM_ENDINGS) and next_word.lower() in LANGUAGES)
    )
    # "Tanaka-san": a name with an honorific is a person's, whatever its first word
    plain = opens and not HONORIFIC_SUFFIX.search(token) and _plain_word(token.split("-")[0], facts, lower)
    return named_elsewhere or generic or plain


_REGIONS = frozenset({"emea", "apac", "latam", "amer", "anz", "dach", "nordics", "benelux"})


def _region_employer(tokens: list[Word], i: int, facts: Facts) -> bool:
    """A region's short name standing where an employer does ("first at LATAM and now ..."):
    right after "at" or "joined" and not before a noun ("at EMEA level"); an airline or a firm,
    not the region, so a name to check like any other."""
    token = tokens[i].bare
    if not token.isupper() or token.lower() not in _REGIONS or _name_known(token, facts):
        return False
    before = tokens[i - 1].text.lower() if i else ""
    after = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return before in {"at", "joined"} and (not after.islower() or after in {"and", "or"})


def _declined(token: str, facts: Facts) -> bool:
    """A known name in another case ("Marto" for Marta): its first four letters, or three and one
    changed letter before the end, those of a capitalised word of the sources."""
    plain = deaccent(token)
    return len(plain) >= 4 and any(
        len(n) >= 4 and n[:1].isupper() and deaccent(n)[:3] == plain[:3] and abs(len(n) - len(plain)) <= 1
        for n in facts.names
    )


def _only_in_a_company(key: str, facts: Facts) -> bool:
    """Whether a folded word is known only as part of a company's name: every time a source writes
    it, a word of the same name stands beside it ("Auer" of Palais Auer is nobody's surname)."""
    for name in (facts.hiring_company, *facts.employers):
        parts = name.split()
        if key not in parts or len(parts) < 2:
            continue
        company = set(parts) - {key}
        seen = False
        for text in (facts.profile_text, facts.listing_text):
            tokens = text.split()
            for at, token in enumerate(tokens):
                if token != key:
                    continue
                seen = True
                beside = {tokens[at - 1] if at else "", tokens[at + 1] if at + 1 < len(tokens) else ""}
                if not beside & company:
                    return False
        return seen
    return False


def _unknown_word(tokens: list[Word], i: int, facts: Facts, lower: set[str], *, opens: bool) -> bool:
    """Whether the capitalised word `tokens[i]` is one neither source uses (or a region's short
    name standing where an employer does, or a company's word given an honorific: "Mr. Auer" for
    Palais Auer)."""
    following = tokens[i + 1].text if i + 1 < len(tokens) else ""
    word = tokens[i]
    unknown = not _known(word, facts, lower, opens, following) and not _tolerated(word, facts)
    honoured = i > 0 and tokens[i - 1].bare.lower() in HONORIFICS
    if unknown and honoured and _declined(word.bare, facts):
        unknown = False  # "Pani Marto", "Panie Pawle": Marta and Paweł, as Polish addresses them
    return (
        unknown
        or _region_employer(tokens, i, facts)
        or (honoured and _only_in_a_company(fold(word.bare), facts))
    )


def _tolerated(word: Word, facts: Facts) -> bool:
    """An unknown capitalised word that is no name to check: a single letter (a Yoruba "Ẹ"), or a
    demonym ("British and European")."""
    token = word.bare
    if len([c for c in token if c.isalpha()]) <= 1:
        return True
    return token.lower() in DEMONYMS


def _formula(sentence: str) -> bool:
    """A greeting or sign-off line ("Namaste Farhan,", "Pozdrawiam serdecznie,", "Diolch!"):
    its first word is the formula, in whatever language, not a name."""
    line = sentence.strip()
    return (line.endswith(",") and len(line.split()) <= 6) or (line.endswith("!") and len(line.split()) <= 3)


def _heading(sentence: str) -> bool:
    """A heading ("Tools", "Why me:", "Things I'd be new to:"): its first word is a label."""
    line = sentence.strip()
    return line.endswith(":") or (len(line.split()) <= 3 and line[-1:].isalnum())


# Who a letter may address that is no person: "Dear Selection Panel", "Dear Recruitment Team"
_GROUPS = frozenset(
    {"panel", "team", "committee", "board", "department", "office", "recruiters", "recruiter", "colleagues",
     "partners", "staff", "members", "manager", "managers", "lead", "leads", "people"}
)  # fmt: skip


def _a_group(tokens: list[Word], run: list[int], facts: Facts) -> bool:
    """Whether a run is a group the letter addresses, in common words ending in a group's noun."""
    last = fold(tokens[run[-1]].bare)
    return last in _GROUPS and all(is_common(tokens[i].bare, facts.languages) for i in run)


def _reported(tokens: list[Word], run: list[int], facts: Facts, lower: set[str]) -> bool:
    """Whether an unknown run in a claim position is a name to report: no title (the titles
    check's), no short form of the sources spelled out, no group the letter addresses."""
    return (
        fold(tokens[run[-1]].bare) not in ROLE_NOUNS
        and not _spells_out_known(tokens, run, facts, lower)
        and not _a_group(tokens, run, facts)
        # "Iowa State University College of Veterinary Medicine": a college of the profile's school
        and not part_of(" ".join(tokens[i].bare for i in run), facts)
    )


def _spells_out_known(tokens: list[Word], run: list[int], facts: Facts, lower: set[str]) -> bool:
    """Whether a run's unknown words spell out a short form of the sources ("Nielsen Norman
    Group" for NN/g, "Certified Supply Chain Professional" for CSCP) and the rest are known."""
    heads = [i for i in run if tokens[i].text.lower() not in _CONNECTORS]
    covered = spelled_out([fold(tokens[i].bare) for i in heads], facts.short_forms)
    if not covered:
        return False
    return all(
        n in covered or not _unknown_word(tokens, i, facts, lower, opens=False) for n, i in enumerate(heads)
    )


def unknown_names(text: str, facts: Facts) -> list[str]:
    """The capitalised runs of a text that carry a word neither source uses, as written."""
    lower = {w.text.lower() for s in sentences(text) for w in words(s) if w.text.islower()}
    found: list[str] = []
    for sentence in sentences(text):
        found += _unknown_in(sentence, facts, lower)
    return list(dict.fromkeys(found))


def _unknown_in(sentence: str, facts: Facts, lower: set[str]) -> list[str]:
    """The unknown capitalised runs of one sentence that stand in a claim position (`positions`)."""
    found: list[str] = []
    run: list[int] = []
    unknown = False
    previous = False  # whether the last run closed stood in a claim position
    all_words = words(sentence)

    def close() -> None:
        nonlocal run, unknown, previous
        while run and all_words[run[-1]].text.lower() in _CONNECTORS:
            run.pop()
        while len(run) > 1 and all_words[run[0]].text.lower() in COMMON | GREETINGS:
            run.pop(0)
        if run:
            at_claim = claimed(sentence, all_words, run[0], run[-1], previous)
            last = all_words[run[-1]]
            if unknown and at_claim and _reported(all_words, run, facts, lower):
                found.append(bare(sentence[all_words[run[0]].start : last.end]))
            previous = at_claim
        run, unknown = [], False

    nouns = facts.language in NOUNS_CAPITALISED
    label = _formula(sentence) or _heading(sentence)
    skip = greeting_length(all_words)  # "Guten Tag Frau": the salutation's formula, no name
    for i, word in enumerate(all_words):
        if i < skip:
            continue
        if (
            nouns
            and not run
            and word.capitalised
            and (i == 0 or all_words[i - 1].text.lower() not in _INTRODUCES)
        ):
            continue
        if word.text in _I or (nouns and word.text.lower() in _DETERMINERS):
            close()  # "I" is no part of a name, nor "die" of a German one
            continue
        if namelike(word):
            before = sentence[all_words[i - 1].end : word.start] if i else sentence[: word.start]
            # a sentence's first word, one after a colon, a quote or a bullet, or one after the
            # person's own name (a signature, then a postscript) may be capitalised as a word
            after_name = i > 0 and fold(all_words[i - 1].bare) in facts.person_names
            opens = word.first or any(c in before for c in ':"\u201c(\u2014\u2013•*-') or after_name
            if word.first and (label or sentence[word.end : word.end + 1] == ":"):
                run.append(i)  # a greeting's formula word or a heading's label: no name
                continue
            if run and (any(c in before for c in ',;:()"\u201c\u201d') or after_name):
                close()
            if _unknown_word(all_words, i, facts, lower, opens=opens and not run):
                unknown = True
            run.append(i)
            if word.text.replace("\u2019", "'").endswith("'s"):
                close()  # "easyJet's A320s": the possessive is a name of its own
        elif run and word.text.lower() in _CONNECTORS:
            run.append(i)
        else:
            close()
    close()
    return found


def check_names(text: str, facts: Facts) -> Check:
    """No name that is in neither the profile nor the listing."""
    unknown = unknown_names(text, facts)
    unknown += [r for r in referees(text, facts) if r not in unknown]
    return verdict("names", unknown, lambda shown: f"names {shown}, in neither your profile nor the listing")
