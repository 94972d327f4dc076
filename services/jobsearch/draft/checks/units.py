"""Credential units: a credential the profile states, read as one unit whatever order or short
form a letter writes it in.

A profile writes "Certified Sommelier with the Court of Master Sommeliers" or "Chartered quantity
surveyor (MSCSI MRICS)"; a letter writes "a CMS Certified Sommelier", "the Court of Master
Sommeliers' Certified Sommelier title" or "a chartered QS (MSCSI MRICS)". Each sentence, skill,
highlight and education entry of the profile is a unit: its words, and the initials of every run
of two to six of its words ("CMS" for Court of Master Sommeliers, "QS" for quantity surveyor). A
credential a letter names is the profile's when every word of it is in one unit. Words from two
units do not make one credential: "AWS Certified" in one line and "Solutions Architect" in
another is no "AWS Certified Solutions Architect".
"""

from __future__ import annotations

import re
from typing import NamedTuple

from jobsearch.draft.checks.text import fold, sentences
from jobsearch.draft.checks.vocabulary import SHORT_WORDS

# Small words a credential's name carries without meaning ("a member of the ..."), and those an
# initialism may skip ("Court of Master Sommeliers" -> CMS).
_SMALL = frozenset({"a", "an", "the", "of", "and", "&", "with", "for", "in", "as", "de", "du", "der", "des"})
_LONGEST_RUN = 6


class Unit(NamedTuple):
    """One unit of a profile: its words and their initials, and the short forms it writes."""

    words: frozenset[str]
    written: frozenset[str]  # "NN/g" -> nng, "CSCP" -> cscp: what a letter may spell out


# The words of a credential's kind, read as one: "CNCC(C) certification" for "certified ... (CNCC(C))"
_CERT_WORD = re.compile(r"\b(?:certified|certifications?|certificates?|certs?)\b")


def _words(text: str) -> list[str]:
    return [SHORT_WORDS.get(w, w) for w in _CERT_WORD.sub("certif", fold(text)).split()]


def unit_words(piece: str) -> list[Unit]:
    """The units of one piece of a profile (its summary, a skill, a highlight): one per sentence,
    with hard line breaks read as spaces."""
    out: list[Unit] = []
    for sentence in sentences(re.sub(r"\s*\n\s*", " ", piece)):
        tokens = _words(sentence)
        if not tokens:
            continue
        written = squeezed(sentence)
        found = set(tokens) | written
        for size in range(2, _LONGEST_RUN + 1):
            for start in range(len(tokens) - size + 1):
                run = tokens[start : start + size]
                if run[0] in _SMALL or run[-1] in _SMALL:
                    continue
                found.add("".join(w[0] for w in run))
                found.add("".join(w[0] for w in run if w not in _SMALL))
        out.append(Unit(frozenset(found), frozenset(written)))
    return out


def squeezed(text: str) -> set[str]:
    """The short forms a text writes (two capitals or more), lower case, punctuation squeezed out."""
    out: set[str] = set()
    for token in text.split():
        if sum(c.isupper() for c in token) >= 2:
            key = re.sub(r"[^0-9a-z]", "", fold(token).replace(" ", ""))
            if len(key) >= 2:
                out.add(key)
    return out


def spells(short: str, words: list[str]) -> bool:
    """Whether a short form is the words' beginnings in order, one to three letters of each:
    nng for "Nielsen Norman Group", cpeng for "Chartered Professional Engineer"."""
    if not words:
        return not short
    word = words[0]
    return any(
        short.startswith(word[:n]) and spells(short[n:], words[1:]) for n in range(min(3, len(word)), 0, -1)
    )


def spelled_out(words: list[str], known: set[str] | frozenset[str]) -> set[int]:
    """Which of `words` (folded) spell out a known short form: a run of two to six words of three
    letters or more, small words aside, whose beginnings are one ("Nielsen Norman Group" for NN/g,
    "Certified Supply Chain Professional" for CSCP, "Chartered Member of Engineering New Zealand"
    for CMEngNZ)."""
    covered: set[int] = set()
    shorts = [k for k in known if 3 <= len(k) <= 12]
    for size in range(2, _LONGEST_RUN + 2):
        for start in range(len(words) - size + 1):
            run = words[start : start + size]
            heads = [w for w in run if w not in _SMALL]
            if len(heads) < 2 or run[0] in _SMALL or any(len(w) < 3 for w in heads):
                continue
            if any(spells(k, heads) for k in shorts if k[0] == heads[0][0]):
                covered.update(range(start, start + size))
    return covered


def held_as_unit(name: str, units: list[Unit]) -> bool:
    """Whether every word of a credential's name (folded, small words aside) is in one unit, or
    spells out a short form the unit writes."""
    wanted = [w for w in _words(name) if w not in _SMALL]
    if len(wanted) == 2 and "certif" in wanted and len(min(wanted, key=len)) <= 5 and wanted[0] != "certif":
        wanted.remove("certif")  # "BLS certified" for Basic Life Support: the short form's kind
    if not wanted:
        return False
    for unit in units:
        # the units that write one short form are one credential: "NATE certified" and "NATE -
        # Air Conditioning Service"
        words = unit.words.union(*(u.words for u in units if u.written & unit.written & _distinct(u.written)))
        covered = spelled_out(wanted, unit.written)
        if all(i in covered or w in words for i, w in enumerate(wanted)):
            return True
    return False


def _distinct(short_forms: frozenset[str]) -> frozenset[str]:
    return frozenset(k for k in short_forms if len(k) >= 3)
