"""Credentials: the degrees and certifications a draft says the person holds.

- `degrees`: a degree named in a clause about the person ("my MSc in Health Informatics", "I hold
  an MBA", "a degree in graphic design") is one the profile holds: the same family (bachelor,
  master, doctorate, MBA, diploma) and, where the draft names a field, a field that shares a word
  with the profile's. A second degree does not pass because the profile holds a first. A degree
  the clause denies ("I do not have a design degree") or that the listing asks for ("your ad asks
  for a master's") claims nothing.
- `certifications`: a certification ("AWS Certified Developer", "passed the CKA", "NN/g UX
  certified") held by the person is one the profile's text names. One the person is working
  towards, or lacks, is no claim; the listing's own title named as the post ("applying for the B1
  Licensed Engineer role") is none either. A credential only the listing's "Nice to have" names
  ("B2 licence"), said to be held or listed among the letter's own, fails.
"""

from __future__ import annotations

import itertools
import re

from jobsearch.draft.checks.facts import SYNONYMS, Facts, degree_families, initialisms
from jobsearch.draft.checks.licences import licences_claimed
from jobsearch.draft.checks.text import bare, clauses, contains, fold, sentences, words
from jobsearch.draft.checks.units import held_as_unit
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import (
    CERTIFICATION_WORD,
    CERTIFICATIONS,
    FIRST_PERSON,
    GAP,
    NEGATION,
    ROLE_NOUNS,
)
from jobsearch.draft.checks.wished import held, wished_in
from jobsearch.jobs import Check

_DEGREE = re.compile(
    r"\b(?:ph\.?\s?d|doctorate|m\.?b\.?a|master'?s?|m\.?sc(?:[A-Z][A-Za-z]?)?|bachelor'?s?|b\.?sc(?:[A-Z][A-Za-z]?)?|b\.?a\.|m\.?a\.|b\.?eng|"
    r"m\.?eng|b\.?tech|m\.?tech|(?:higher\s+)?diploma|degree|pharm\.?\s?d|[bm]\.?\s?pharm|[bm]\.ed|"
    r"ll\.?[bm]|ed\.d|bacharelado|licenciatura|b\.?\s?comm?|cert(?:ificate)?\.?\s+(?:iv|iii|ii|i|[1-4]))(?!\w)",
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
    # a note's self-description with no subject ("Marketing manager at Vitrine here, with an MBA")
    fragment = _SELF_INTRO.search(sentence) is not None and not _THEIRS.search(sentence)
    return bool(FIRST_PERSON.search(clause) or FIRST_PERSON.search(sentence) or bullet or fragment)


_SELF_INTRO = re.compile(r"\bhere\b[,:]|\b(?:with|holding)\s+(?:an?|the)\s", re.IGNORECASE)


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


def _degree_held(families: set[str], field: set[str], facts: Facts, *, named: bool = False) -> bool:
    """Whether the profile holds a degree of one of `families` in `field`; `named` when the draft
    names the degree itself ("Master of Education"), which must then be the profile's ("Master of
    Teaching" is another degree, whatever its field)."""
    for degree in facts.degrees:
        if families and not families & degree.families:
            continue
        if named and degree.named and not field & degree.named:
            continue
        if (
            field
            and not field & ((degree.field_words | degree.named) - _GENERIC_FIELD)
            and not (named and field & degree.named)
        ):
            continue
        return True
    return False


_NAME_PART = re.compile(r"[A-Z][\w'\u2019.-]*|of|de|for|and|&")


def _in_profile_name(clause: str, match: re.Match[str], facts: Facts) -> bool:
    """Whether a degree word is part of a capitalised name of two words or more that the profile
    writes ("Court of Master Sommeliers", "Master Builders Association"): a name, not a degree
    claimed (were it the profile's degree, it would be held anyway)."""
    if not match.group()[:1].isupper():
        return False
    left: list[str] = []
    for word in reversed(words(clause[: match.start()])[-3:]):
        if not _NAME_PART.fullmatch(word.text):
            break
        left.insert(0, word.text)
    right: list[str] = []
    for word in words(clause[match.end() :])[:3]:
        if not _NAME_PART.fullmatch(word.text):
            break
        right.append(word.text)
    for take_left in range(len(left) + 1):
        for take_right in range(len(right) + 1):
            if take_left + take_right == 0:
                continue
            run = [*left[len(left) - take_left :], match.group(), *right[:take_right]]
            if not (run[0][:1].isupper() and run[-1][:1].isupper()):
                continue  # "Master of" is no name
            if contains(facts.profile_text, fold(" ".join(run))):
                return True
    return False


# A degree's letters after a name ("BVSc", "MVS", "MPhil", "DVM"), and what may part two of them.
_LETTERS = re.compile(r"(?:[BMD][A-Z][A-Za-z]{0,4}|Ph\.?D)")
_BETWEEN = re.compile(r"^(?:\s*,\s*|\s+|\s+(?:and|&)\s+|\s*,\s*and\s+)$")


def _letters_after_held(sentence: str, facts: Facts) -> list[str]:
    """Degree letters written right after the profile's own ("BVSc MVS (Massey)", "BSc, MSc"): a
    second degree listed with the first, which the profile must hold too."""
    own = {w for d in facts.degree_names for w in d.split()}
    tokens = words(sentence)
    bad: list[str] = []
    for before, token in itertools.pairwise(tokens):
        if before.bare not in own and not degree_families(before.bare):
            continue
        if not _BETWEEN.match(sentence[before.end : token.start]) or not _LETTERS.fullmatch(token.bare):
            continue
        if not contains(facts.profile_text, fold(token.bare)) and token.bare not in own:
            bad.append(token.bare)
    return bad


_GOAL = re.compile(
    r"\b(?:work(?:ing)?\s+towards?|study(?:ing)?\s+for|pursu(?:e|ing)|enrol(?:l)?(?:ing)?\s+in)\b", re.I
)


def check_degrees(text: str, facts: Facts) -> Check:
    """Every degree claimed as the person's is one the profile holds."""
    bad: list[str] = []
    for sentence in sentences(text):
        bad += _letters_after_held(sentence, facts)
        for clause in clauses(sentence):
            if NEGATION.search(clause) or _GOAL.search(clause) or not _about_person(clause, sentence):
                continue  # "I'd be keen to work toward the NZ Diploma in Construction": a goal
            for match in _DEGREE.finditer(clause):
                if _in_profile_name(clause, match, facts):
                    continue  # "the Court of Master Sommeliers": a name the profile writes, no degree
                families = degree_families(match.group())
                field = _field(clause[match.end() :])
                if not families and not field and facts.degrees:
                    continue  # "my degree", "the degree": the profile's own
                named = bool(re.match(r"\s+of\s", clause[match.end() :]))
                # "Bachelor of Arts": a degree named by a generic word is compared by that word
                own = set(fold(" ".join(_field_words(clause[match.end() :]))).split()) if named else set()
                if not _degree_held(families, field or own, facts, named=named):
                    shown = _field_words(clause[match.end() :])
                    end = clause.find(shown[-1], match.end()) + len(shown[-1]) if shown else match.end()
                    bad.append(clause[match.start() : end].strip())
    return verdict("degrees", bad, lambda shown: f"claims {shown}, a degree your profile does not list")


def _certifications(clause: str) -> list[str]:
    """The certifications a clause names: a capitalised run beside a certification word, or a
    certification's short name written in capitals."""
    found: list[str] = []
    tokens = words(clause)
    for i, word in enumerate(tokens):
        if CERTIFICATION_WORD.fullmatch(word.text) or _CERTIFIED_SUFFIX.search(word.text):
            if _CERTIFIED_SUFFIX.search(word.text):  # "PMP-certified", "FRM-certified"
                found.append(word.text)
                continue
            start = i
            while (
                start > 0
                and (tokens[start - 1].capitalised or "/" in tokens[start - 1].text)
                and tokens[start - 1].text.lower() not in _DETERMINERS  # "My accreditation"
                and not _DESCRIBED.search(tokens[start - 1].text)  # "ICAT-trained": the school's
                and "," not in clause[tokens[start - 1].end : tokens[start].start]
            ):
                start -= 1
            end = i
            while end + 1 < len(tokens) and "," not in clause[tokens[end].end : tokens[end + 1].start]:
                if tokens[end + 1].capitalised:
                    end += 1
                elif (  # "Chartered Member of Engineering New Zealand": the body is the name's too
                    tokens[end + 1].text in {"of", "for"}
                    and end + 2 < len(tokens)
                    and tokens[end + 2].capitalised
                    and tokens[end + 2].text.lower() not in _DETERMINERS
                ):
                    end += 2
                else:
                    break
            if end > start:  # a bare "certification" names nothing to compare
                found.append(clause[tokens[start].start : tokens[end].end])
        elif fold(word.bare) in CERTIFICATIONS and word.bare.isupper() and len(word.bare) >= 3:
            found.append(word.bare)
    return found


# Words that open a noun phrase, capitalised only as a sentence's first word, and the pronoun: no
# certification's name ("I'm AWS Certified").
_DETERMINERS = frozenset(
    {"my", "our", "your", "the", "a", "an", "his", "her", "their", "this", "that", "i", "i'm", "i've", "i'd",
     "i\u2019m", "i\u2019ve"}
)  # fmt: skip
_DESCRIBED = re.compile(r"-(?:trained|educated|based|qualified|registered)$", re.I)
_CERTIFIED_SUFFIX = re.compile(r"^[A-Z][\w/&.]*-(?:certified|accredited|chartered)$")
# A membership a body grants: "a chartered member of the IStructE", "a fellow of the RICS".
_MEMBER = re.compile(
    r"\b(?:chartered|incorporated|full|associate|registered)?\s*(?:member|fellow|associate)\s+(?:of|with)\s+"
    r"(?:the\s+)?([A-Z][\w&.'-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w&.'-]*)*)"
)


_PERSON_NOUNS = frozenset({"holder", "member", "practitioner", "professional", "specialist", "auditor"})


def _describes_a_thing(name: str, clause: str, facts: Facts) -> bool:
    """A credential word the listing writes, said of a thing ("keeping a Fully Accredited service
    in good standing"): the word after it is a noun in lower case, no person's."""
    at = clause.find(name)
    following = re.match(r"\s+([a-z][a-z-]+)", clause[at + len(name) :]) if at >= 0 else None
    return (
        following is not None
        # "an AVMA-accredited school": the word, or a name's "-accredited", said of a thing
        and CERTIFICATION_WORD.fullmatch(name.rsplit(maxsplit=1)[-1].rsplit("-", 1)[-1]) is not None
        and following.group(1) not in _PERSON_NOUNS
        and fold(following.group(1)) not in ROLE_NOUNS
        and contains(facts.listing_text, fold(name))
    )


def _school_credential(name: str, facts: Facts) -> bool:
    """A certificate named by the school that gave it ("a UQAM certificate"), one the profile's
    education holds."""
    plain = set(fold(CERTIFICATION_WORD.sub(" ", name)).split())
    schools = {i.lower() for n in facts.school_names for i in initialisms(n)} | {
        w for school in facts.schools for w in school.split()
    }
    return bool(plain) and plain <= schools


def _about_listing(name: str, sentence: str, facts: Facts) -> bool:
    return contains(facts.listing_text, fold(name)) or bool(
        facts.hiring_company and contains(fold(sentence), facts.hiring_company)
    )


def _gap_before_last_part(clause: str) -> bool:
    """Whether a clause says the person lacks or wants what it names: a gap word anywhere but in a
    trailing aside after a comma ("... and a PRINCE2 Practitioner, keen on legal operations")."""
    head, comma, tail = clause.rpartition(",")
    if (
        comma
        and GAP.search(tail)
        and not GAP.search(head)
        and _CERTISH.search(head)
        and not _CERTISH.search(tail)
    ):
        return False
    return bool(GAP.search(clause))


_POST = re.compile(
    r"\b(?:role|position|post|opening|vacancy|job|application|applying|apply|applied|consider)\b", re.I
)


def _the_post(name: str, sentence: str, facts: Facts) -> bool:
    """The listing's own title named as the post applied for ("applying for the B1 Licensed
    Engineer role"): no certification the person claims."""
    key = fold(name)
    return bool(key) and f" {key} " in f" {facts.listing_title} " and bool(_POST.search(sentence))


_CERTISH = re.compile(r"[A-Z]{2,}|\b(?i:certified|certificate|certification|accredited|belt)\b")


# "I'm a CA(SA) and CIMA member", "as an ACCA, ...": a body's letters the person says they are
_I_AM_LETTERS = re.compile(
    r"\b(?:I['\u2019]m|I am|as)\s+(?:an?\s+)?([A-Z][A-Za-z]*[A-Z](?:\([A-Z]{1,4}\))?)"
    r"(?=\s*(?:[,;.]|$|and\b|&|member\b|holder\b))"
)


def _letters_claimed(sentence: str, facts: Facts) -> list[str]:
    """A body's letters the person says they are, that the listing names (as one it accepts)
    or that are a certification's, and the profile does not."""
    found: list[str] = []
    for match in _I_AM_LETTERS.finditer(sentence):
        letters, key = match.group(1), fold(match.group(1))
        if contains(facts.profile_text, key):
            continue
        if contains(facts.listing_text, key) or key in CERTIFICATIONS:
            found.append(letters)
    return found


# "I'm also certified in nitrous oxide sedation monitoring": a certification named in words
_CERTIFIED_IN = re.compile(
    r"\b(?:I['\u2019]m|I am|also|and)\s+(?:also\s+)?"
    r"(?:(?:certified|accredited|licensed)\s+(?:in|for)|an?\s+certified)\s+"
    r"((?:an?\s+)?[a-z][\w-]*(?:\s+(?!and\b|by\b|through\b|from\b|with\b|at\b|in\b|to\b)[a-z][\w-]*){0,5})"
)


def _certified_in(sentence: str, facts: Facts) -> list[str]:
    """A certification said in words ("certified in critical care nursing") that no unit of the
    profile holds."""
    found: list[str] = []
    for match in _CERTIFIED_IN.finditer(sentence):
        phrase = match.group(1)
        whole = f"certified in {phrase}"
        if not contains(facts.profile_text, fold(phrase)) and not held_as_unit(whole, facts.credential_units):
            found.append(whole)
    return found


def check_certifications(text: str, facts: Facts) -> Check:
    """Every certification claimed as the person's is one the profile names."""
    bad: list[str] = []
    for sentence in sentences(text):
        if not NEGATION.search(sentence) and not GAP.search(sentence):
            bad += [n for n in _letters_claimed(sentence, facts) if n not in bad]
            bad += [n for n in _certified_in(sentence, facts) if n not in bad]
            bad += [n for n in licences_claimed(sentence, facts) if n not in bad]
        # brackets do not part a certification from its name: "VTS (ECC) certified"
        for clause in clauses(re.sub(r"[()\[\]]", " ", sentence)):
            if _gap_before_last_part(clause):
                continue
            if not _about_person(clause, sentence):
                # a note's self-description: "Senior designer in Barcelona, NN/g UX certified"
                if _THEIRS.search(sentence):
                    continue
                found = [n for n in _certifications(clause) if not _about_listing(n, sentence, facts)]
            else:
                found = _certifications(clause) + [
                    m.group(1)
                    for m in _MEMBER.finditer(clause)
                    if not contains(facts.profile_text, fold(m.group(1)))
                    and not set(fold(m.group(1)).split()) & set(facts.hiring_company.split())
                ]
            # a credential only the listing's "nice to have" names
            found += [
                n
                for n in wished_in(clause, facts.wished, credential=True)
                if held(sentence, n, facts.hiring_company, bullet=True)
            ]
            for name in found:
                if _school_credential(name, facts) or _the_post(name, sentence, facts):
                    continue
                if _describes_a_thing(name, clause, facts):
                    continue
                plain = fold(CERTIFICATION_WORD.sub(" ", bare(name)))  # "certified X" is X
                other = {plain, SYNONYMS.get(plain, plain)} | {k for k, v in SYNONYMS.items() if v == plain}
                whole = contains(facts.profile_text, fold(bare(name)))
                # a skill the profile lists is no certification in it: "certified Articulate
                # Storyline developer" when the profile only lists Articulate Storyline
                skill_only = plain in facts.profile_skills and plain != fold(bare(name))
                if whole or held_as_unit(bare(name), facts.credential_units):
                    continue  # "CMS Certified Sommelier" for "Certified Sommelier with the Court of ..."
                if skill_only or not any(contains(facts.profile_text, o) for o in other):
                    bad.append(name)
    return verdict(
        "certifications", bad, lambda shown: f"claims the certification {shown}, not in your profile"
    )
