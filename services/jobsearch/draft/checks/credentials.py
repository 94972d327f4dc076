"""Credentials: the degrees and certifications a draft says the person holds.

- `degrees`: a degree named in a clause about the person ("my MSc in Health Informatics", "I hold
  an MBA", "a degree in graphic design") is one the profile holds: the same family (bachelor,
  master, doctorate, MBA, diploma) and, where the draft names a field, a field that shares a word
  with the profile's. A second degree does not pass because the profile holds a first. A degree
  the clause denies ("I do not have a design degree") or that the listing asks for ("your ad asks
  for a master's") claims nothing.
- `certifications`: a certification ("AWS Certified Developer", "passed the CKA", "NN/g UX
  certified") held by the person is one the profile's text names. One the person is working
  towards, or lacks, is no claim.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts, degree_families
from jobsearch.draft.checks.text import bare, clauses, contains, fold, sentences, words
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import (
    CERTIFICATION_WORD,
    CERTIFICATIONS,
    FIRST_PERSON,
    GAP,
    NEGATION,
)
from jobsearch.jobs import Check

_DEGREE = re.compile(
    r"\b(?:ph\.?\s?d|doctorate|m\.?b\.?a|master'?s?|m\.?sc|bachelor'?s?|b\.?sc|b\.?a\.|m\.?a\.|b\.?eng|"
    r"m\.?eng|b\.?tech|m\.?tech|(?:higher\s+)?diploma|degree)\b",
    re.IGNORECASE,
)
_FIELD = re.compile(
    r"^(?:'s)?\.?(?:\s+degree)?\s+(?:in|of)\s+((?:[A-Za-z][\w-]*)(?:\s+(?:and\s+|&\s+)?[A-Za-z][\w-]*){0,3})",
)
_FIELD_STOP = frozenset(
    {"from", "at", "with", "and", "where", "which", "that", "in", "i", "my", "before", "after"}
)
_THEIRS = re.compile(
    r"\b(?:you|your|require[sd]?|requirement|asks?|asking|looking for|prefer(?:red|s)?|ideally|listing|"
    r"posting|advert|mentions?|nice to have|a plus|bonus)\b",
    re.IGNORECASE,
)
_GENERIC_FIELD = frozenset({"science", "sciences", "studies", "arts", "of", "and", "in", "engineering"})


def _about_person(clause: str, sentence: str) -> bool:
    """Whether a clause speaks of the person's own holdings, not of the role's wishes: in the first
    person, or a bullet of the letter's own list ("- Google UX Design Certificate")."""
    if _THEIRS.search(clause) and not FIRST_PERSON.search(clause):
        return False
    bullet = sentence.lstrip()[:1] in "-*\u2022"
    return bool(FIRST_PERSON.search(clause) or FIRST_PERSON.search(sentence) or bullet)


def _field_words(after: str) -> list[str]:
    """The words of a degree's field after "in"/"of": up to a small word, or, for a field written
    with capitals ("in Physics taught me"), up to the first word in lower case."""
    match = _FIELD.match(after)
    if match is None:
        return []
    taken: list[str] = []
    for word in match.group(1).split():
        if word.lower() in _FIELD_STOP or (taken and taken[0][:1].isupper() and word.islower()):
            break
        taken.append(word)
    return taken


def _field(after: str) -> set[str]:
    return set(fold(" ".join(_field_words(after))).split()) - _GENERIC_FIELD


def _degree_held(families: set[str], field: set[str], facts: Facts) -> bool:
    for degree in facts.degrees:
        if families and not families & degree.families:
            continue
        if field and not field & (degree.field_words - _GENERIC_FIELD):
            continue
        return True
    return False


def check_degrees(text: str, facts: Facts) -> Check:
    """Every degree claimed as the person's is one the profile holds."""
    bad: list[str] = []
    for sentence in sentences(text):
        for clause in clauses(sentence):
            if NEGATION.search(clause) or not _about_person(clause, sentence):
                continue
            for match in _DEGREE.finditer(clause):
                families = degree_families(match.group())
                field = _field(clause[match.end() :])
                if not families and not field and facts.degrees:
                    continue  # "my degree", "the degree": the profile's own
                if not _degree_held(families, field, facts):
                    named = _field_words(clause[match.end() :])
                    end = clause.find(named[-1], match.end()) + len(named[-1]) if named else match.end()
                    bad.append(clause[match.start() : end].strip())
    return verdict("degrees", bad, lambda shown: f"claims {shown}, a degree your profile does not list")


def _certifications(clause: str) -> list[str]:
    """The certifications a clause names: a capitalised run beside a certification word, or a
    certification's short name written in capitals."""
    found: list[str] = []
    tokens = words(clause)
    for i, word in enumerate(tokens):
        if CERTIFICATION_WORD.fullmatch(word.text):
            start = i
            while start > 0 and (tokens[start - 1].capitalised or "/" in tokens[start - 1].text):
                start -= 1
            end = i
            while end + 1 < len(tokens) and tokens[end + 1].capitalised:
                end += 1
            if end > start:  # a bare "certification" names nothing to compare
                found.append(clause[tokens[start].start : tokens[end].end])
        elif fold(word.bare) in CERTIFICATIONS and word.bare.isupper() and len(word.bare) >= 3:
            found.append(word.bare)
    return found


def check_certifications(text: str, facts: Facts) -> Check:
    """Every certification claimed as the person's is one the profile names."""
    bad: list[str] = []
    for sentence in sentences(text):
        for clause in clauses(sentence):
            if GAP.search(clause) or not _about_person(clause, sentence):
                continue
            for name in _certifications(clause):
                plain = fold(CERTIFICATION_WORD.sub(" ", bare(name)))  # "certified X" is X
                if not contains(facts.profile_text, plain) and not contains(
                    facts.profile_text, fold(bare(name))
                ):
                    bad.append(name)
    return verdict(
        "certifications", bad, lambda shown: f"claims the certification {shown}, not in your profile"
    )
