"""Names: every capitalised name a draft uses is one the profile or the listing uses.

An organisation, a school, a person, a product or a place that neither source names is the
commonest invention of a model ("Dear Dr. Weber", "my years at Flutterwave", "at TU Munich"), and
it is seen without knowing what kind of name it is: a run of capitalised words of which one is not
a capitalised word of the sources. A short form of a source's name counts as known ("UCD" for
University College Dublin, "LMU" for Ludwig-Maximilians-Universität). A sentence's first word is a
name only when it is no common word and no word the sources or the draft use in lower case.
Skills and languages are left to the skills check, which tells a claim from a gap. In a language
that capitalises every noun (German), only a capitalised run after a word that introduces an
organisation ("bei Initech", "für die Acme GmbH", "at Hooli") is read.
"""

from __future__ import annotations

from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.lexicon import is_common
from jobsearch.draft.checks.text import Word, bare, fold, sentences, words
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import (
    AMBIGUOUS_SKILLS,
    CERTIFICATIONS,
    COMMON,
    DEMONYMS,
    GENERIC_ACRONYMS,
    GENERIC_CAPS,
    GREETINGS,
    LANGUAGES,
    ROLE_NOUNS,
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
# Languages that capitalise every noun: there a capital letter says nothing, and only a capitalised
# run after a word that introduces an organisation ("bei", "für", "at") is read as a name.
NOUNS_CAPITALISED = frozenset({"de", "lb"})
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


def _name_known(token: str, facts: Facts) -> bool:
    """Whether a capitalised token is a name of the sources: as written, in its singular ("P&Ls",
    "Canadians"), or, hyphenated, by each capitalised part ("Java-to-Kotlin")."""
    key = token.lower()
    if token in facts.names or f"~{key}" in facts.names:
        return True
    if (
        len(token) > 2
        and token.endswith("s")
        and (token[:-1] in facts.names or f"~{key[:-1]}" in facts.names)
    ):
        return True
    parts = [p for p in token.split("-") if p[:1].isupper()]
    return (
        "-" in token
        and bool(parts)
        and all(p in facts.names or f"~{p.lower()}" in facts.names for p in parts)
    )


_DEMONYM_ENDINGS = ("ian", "ean", "ese", "ish", "an", "ic", "i")


def _known(word: Word, facts: Facts, lower: set[str], opens: bool, next_word: str = "") -> bool:
    token = word.bare
    key = token.lower()
    named_elsewhere = (
        any(marker.fullmatch(token) for marker in facts.injected.markers)  # the injection check's
        or (fold(token) in SKILLS and key not in AMBIGUOUS_SKILLS | {"oracle", "epic"})  # the skills check's
        or (key in CERTIFICATIONS and token.isupper())  # the certifications check's
    )
    generic = (
        _name_known(token, facts)
        or token in _I
        or token in GENERIC_ACRONYMS
        or token.isdigit()
        or (key in COMMON and len(key) > 1)
        or key in GENERIC_CAPS
        or key in GREETINGS
        or key in LANGUAGES
        or fold(token) in facts.person_names
        # "Peruvian Spanish", "Brazilian Portuguese": a variety of a language
        or (key.endswith(_DEMONYM_ENDINGS) and next_word.lower() in LANGUAGES)
    )
    return named_elsewhere or generic or (opens and _plain_word(token.split("-")[0], facts, lower))


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


def unknown_names(text: str, facts: Facts) -> list[str]:
    """The capitalised runs of a text that carry a word neither source uses, as written."""
    lower = {w.text.lower() for s in sentences(text) for w in words(s) if w.text.islower()}
    found: list[str] = []
    for sentence in sentences(text):
        found += _unknown_in(sentence, facts, lower)
    return list(dict.fromkeys(found))


def _unknown_in(sentence: str, facts: Facts, lower: set[str]) -> list[str]:
    found: list[str] = []
    run: list[Word] = []
    unknown = False

    def close() -> None:
        nonlocal run, unknown
        while run and run[-1].text.lower() in _CONNECTORS:
            run.pop()
        while len(run) > 1 and run[0].text.lower() in COMMON | GREETINGS:
            run.pop(0)
        if run and unknown and fold(run[-1].bare) not in ROLE_NOUNS:  # a title: the titles check's
            found.append(bare(sentence[run[0].start : run[-1].end]))
        run, unknown = [], False

    all_words = words(sentence)
    nouns = facts.language in NOUNS_CAPITALISED
    label = _formula(sentence) or _heading(sentence)
    for i, word in enumerate(all_words):
        if nouns and word.text.lower() in _DETERMINERS:
            close()
            continue
        if (
            nouns
            and not run
            and word.capitalised
            and (i == 0 or all_words[i - 1].text.lower() not in _INTRODUCES)
        ):
            continue
        if word.text in _I:
            close()  # "I" is no part of a name
            continue
        if word.capitalised:
            before = sentence[all_words[i - 1].end : word.start] if i else sentence[: word.start]
            # a sentence's first word, one after a colon, a quote or a bullet, or one after the
            # person's own name (a signature, then a postscript) may be capitalised as a word
            after_name = i > 0 and fold(all_words[i - 1].bare) in facts.person_names
            opens = word.first or any(c in before for c in ':"\u201c(\u2014\u2013•*-') or after_name
            if word.first and (label or sentence[word.end : word.end + 1] == ":"):
                run.append(word)  # a greeting's formula word or a heading's label: no name
                continue
            if run and (any(c in before for c in ',;:()"\u201c\u201d') or after_name):
                close()
            following = all_words[i + 1].text if i + 1 < len(all_words) else ""
            if not _known(word, facts, lower, opens and not run, following) and not _tolerated(word, facts):
                unknown = True
            run.append(word)
        elif run and word.text.lower() in _CONNECTORS:
            run.append(word)
        else:
            close()
    close()
    return found


def check_names(text: str, facts: Facts) -> Check:
    """No name that is in neither the profile nor the listing."""
    unknown = unknown_names(text, facts)
    return verdict("names", unknown, lambda shown: f"names {shown}, in neither your profile nor the listing")
