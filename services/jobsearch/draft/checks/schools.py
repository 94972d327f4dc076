"""Schools: the places the person says they studied at are the profile's.

"I studied at X", "graduated from X", "my B.Tech. at X", "at the X University": X is one of the
profile's institutions, named in full, in part ("Trinity" alone is not in "University College
Dublin"), or by its short form ("UCD", "COEP" for College of Engineering Pune, "LMU Munich" with
the city under its English name). A school made of words from real places ("Warsaw University
of Technology" when the profile says another) fails; a hospital or company the person worked at,
or an institution the listing names, is not read as a claim to have studied there.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts, initialisms
from jobsearch.draft.checks.text import contains, fold, sentences
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import SCHOOL_IN_ENGLISH
from jobsearch.jobs import Check
from jobsearch.reading.vocabulary import EXONYMS

_SCHOOL_WORD = (
    r"(?:University|Universi\w+|Uniwersytet|Univerzita|College|Colegio|School|Escuela|Escola|\u00c9cole|"
    r"Ecole|Institute|Institut|Instituto|Istituto|Polytechnic|Polit\w+cnic[oa]|Academy|Akademie|"
    r"Hochschule|Fachhochschule|Conservatoire|Conservatory|TU|ETH|IIT)"
)
_CAP_WORD = r"[A-Z][\w&'\u2019.-]*"
_CAP_RUN = (
    rf"{_CAP_WORD}(?:\s+(?:of\s+the|of|de|for|and|&|the|der|für)?\s*(?!I\b|I['\u2019]){_CAP_WORD}){{0,6}}"
)
_SCHOOL_CLAIM = re.compile(
    rf"\b(?:studied|study|graduated|graduate|degree|diploma|certificate|qualified|trained|alumn\w+|B\.?\s?Sc|"
    rf"M\.?\s?Sc|B\.?\s?Tech|B\.?A|M\.?A|MBA|Ph\.?D|bachelor\w*|master\w*)\b[^.;:\n]{{0,60}}?\b(at|from|of|in)\s+(?:the\s+)?"
    rf"({_CAP_RUN})"
    rf"|\b(?:at|from)\s+(?:the\s+)?((?:{_CAP_RUN}\s+)?{_SCHOOL_WORD}\b(?:\s+(?:of\s+the|of|de|for)?\s*{_CAP_RUN})?)",
)
# "an Ohio State supply chain grad", "a proud Massey alum": a school named before "grad" or "alum"
_GRAD = re.compile(
    rf"(?<![\w'])({_CAP_RUN})\s+(?:[a-z][\w-]*\s+){{0,3}}(?:grad|graduate|alum|alumna|alumnus|alumni)\b"
)
_SMALL = frozenset({"of", "de", "for", "and", "&", "the", "der", "für"})


def _school_words(facts: Facts) -> set[str]:
    """What names the profile's schools: their words (cities under their English names too) and
    short forms, folded."""
    known: set[str] = set()
    for school in facts.schools:
        known |= {EXONYMS.get(w, w) for w in school.split()} | set(school.split())
        known |= {
            SCHOOL_IN_ENGLISH[w] for w in school.split() if w in SCHOOL_IN_ENGLISH
        }  # "University of São Paulo"
    return known | {i.lower() for name in facts.school_names for i in initialisms(name)}


def check_schools(text: str, facts: Facts) -> Check:
    """Every school the person says they studied at is one of the profile's (in full, in part, by
    its short form), never one made of other words."""
    known = _school_words(facts)
    bad: list[str] = []
    for sentence in sentences(text):
        found = _SCHOOL_CLAIM.findall(sentence)
        # "a critical care certificate from Humber": a school only the listing names, as the
        # person's own (the listing's examples of where one may study)
        bad += [
            name.strip().rstrip(".")
            for prep, name, _ in found
            if prep in {"at", "from"}
            and contains(facts.listing_text, fold(name))
            and not contains(facts.profile_text, fold(name))
            and not set(fold(name).split()) & set(facts.hiring_company.split())
            and not facts.employers_in(name)
        ]
        claimed = [(claim or named, prep == "in") for prep, claim, named in found]
        claimed += [(name, False) for name in _GRAD.findall(sentence)]
        for name, field_like in ((n.strip().rstrip("."), f) for n, f in claimed):
            if facts.employers_in(name) or contains(facts.listing_text, fold(name)):
                continue  # a place of work ("at St. Brigid's University Hospital") or the listing's
            words_ = [fold(w) for w in re.split(r"[\s-]+", name) if w and w.lower() not in _SMALL]
            heads = [w for w in words_ if w]
            # after "in", a school's generic word ("Science") is a field's as well
            ours = [w for w in heads if w in known and not (field_like and w in _GENERIC_SCHOOL)]
            if not heads or not (re.search(rf"\b{_SCHOOL_WORD}\b", name) or ours):
                continue  # "a degree in Computer Science": a field, not a school
            every_word_known = all(w in known or contains(facts.profile_text, w) for w in heads)
            if not every_word_known or not any(w in known and w not in _GENERIC_SCHOOL for w in heads):
                bad.append(name)
    return verdict("schools", bad, lambda shown: f"says you studied at {shown}, not a school in your profile")


_GENERIC_SCHOOL = frozenset(
    [
        "university",
        "college",
        "school",
        "institute",
        "technology",
        "science",
        "sciences",
        "engineering",
        "business",
        "arts",
        "of",
        "state",
        "national",
        "technical",
        # the same words in the languages schools are named in
        "universidad",
        "universidade",
        "universite",
        "universitat",
        "universita",
        "universiteit",
        "universitet",
        "uniwersytet",
        "univerzita",
        "hochschule",
        "fachhochschule",
        "escuela",
        "escola",
        "ecole",
        "instituto",
        "istituto",
        "institut",
        "politecnico",
        "politecnica",
        "colegio",
        "facultad",
        "faculdade",
        "nacional",
        "tecnologica",
        "tecnologico",
        "technische",
        "technologie",
        "des",
        "del",
        "do",
        "da",
        "di",
        "la",
    ]
)
