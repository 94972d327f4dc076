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
    rf"\b(?P<kw>studied|study|graduated|graduate|degree|diploma|certificate|qualified|trained|alumn\w+|"
    rf"B\.?\s?Sc|M\.?\s?Sc|B\.?\s?Tech|B\.?A|M\.?A|B\.S|M\.S|MBA|Ph\.?D|DVM|bachelor\w*|master\w*)(?:\.|\b)"
    rf"[^.;:\n]{{0,60}}?\b(?P<prep>at|from|of|in)\s+(?:the\s+)?(?P<claim>{_CAP_RUN})"
    rf"|\b(?:at|from)\s+(?:the\s+)?(?P<named>(?:{_CAP_RUN}\s+)?{_SCHOOL_WORD}\b(?:\s+(?:of\s+the|of|de|for)?\s*{_CAP_RUN})?)",
)
# "a B.S. in Animal Science at South Dakota State": after the field, the school
_THEN_AT = re.compile(rf"^\s*,?\s*(?:at|from)\s+(?:the\s+)?({_CAP_RUN})")
# where a name is a school by its place alone, whatever its words: after a degree and "at"
_DEGREE_KW = re.compile(
    r"(?i)^(?:studied|graduated|degree|b\.?\s?sc|m\.?\s?sc|b\.?\s?tech|b\.?a|m\.?a|b\.s|m\.s|mba|ph\.?d|dvm|"
    r"bachelor\w*|master\w*)$"
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
        found: list[tuple[str, str, str]] = []
        claimed: list[tuple[str, bool, bool]] = []  # (name, after "in", a school by its place)
        for match in _SCHOOL_CLAIM.finditer(sentence):
            prep, claim, named = match["prep"] or "", match["claim"] or "", match["named"] or ""
            found.append((prep, claim, named))
            by_place = bool(match["kw"]) and bool(_DEGREE_KW.match(match["kw"])) and prep in {"at", "from"}
            claimed.append((claim or named, prep == "in", by_place))
            then = _THEN_AT.match(sentence[match.end() :]) if prep == "in" else None
            if then:
                claimed.append((then[1], False, bool(match["kw"]) and bool(_DEGREE_KW.match(match["kw"]))))
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
        claimed += [(name, False, True) for name in _GRAD.findall(sentence)]
        for name, field_like, by_place in ((n.strip().rstrip("."), f, b) for n, f, b in claimed):
            if facts.employers_in(name) or contains(facts.listing_text, fold(name)):
                continue  # a place of work ("at St. Brigid's University Hospital") or the listing's
            words_ = [fold(w) for w in re.split(r"[\s-]+", name) if w and w.lower() not in _SMALL]
            heads = [w for w in words_ if w]
            if re.search(r"-(?:accredited|approved|certified|recognised|recognized)$", name):
                continue  # "an IRSE-accredited scheme": what kind, not where
            if name in {"I", "We"} or (len(heads) == 1 and _clipped(heads[0], facts)) or part_of(name, facts):
                continue  # "Tec" for Tecnológico de Monterrey, "Wits" for Witwatersrand
            # after "in", a school's generic word ("Science") is a field's as well
            ours = [w for w in heads if w in known and not (field_like and w in _GENERIC_SCHOOL)]
            if not heads or not (re.search(rf"\b{_SCHOOL_WORD}\b", name) or ours or by_place):
                continue  # "a degree in Computer Science": a field, not a school
            every_word_known = all(
                w in known or contains(facts.profile_text, w) or _clipped(w, facts) for w in heads
            )
            if (
                not every_word_known
                or not any(w in known and w not in _GENERIC_SCHOOL for w in heads)
                or not any(_one_school(heads, i, facts) for i in range(len(facts.schools)))
            ):
                bad.append(name)
    return verdict("schools", bad, lambda shown: f"says you studied at {shown}, not a school in your profile")


_PART = re.compile(r"(?:college|school|faculty|department|institute)\s+of\s+(?:the\s+)?(.+)")


def part_of(name: str, facts: Facts) -> bool:
    """Whether a school is a college of a profile's school in its degree's field ("Iowa State
    University College of Veterinary Medicine" for a DVM in Veterinary Medicine there)."""
    key = fold(name)
    for school, degree in zip(facts.schools, facts.degrees, strict=False):
        rest = _PART.fullmatch(key[len(school) :].strip()) if key.startswith(school) else None
        if rest and set(rest[1].split()) <= degree.field_words | degree.named:
            return True
    return False


def _clipped(word: str, facts: Facts) -> bool:
    """Whether a word is a profile school's distinctive word cut short ("Tec", "Wits")."""
    stem = word[:-1] if word.endswith("s") and len(word) >= 4 else word
    return len(stem) >= 3 and any(
        w.startswith(stem) and w != stem and w not in _KIND | {"school", "technology", "state"}
        for school in facts.schools
        for w in school.split()
    )


# The words that say what kind of school it is: a claim's must be its school's own ("University
# of British Columbia" is not the profile's "Justice Institute of British Columbia").
_KIND = frozenset({"university", "college", "institute", "academy", "polytechnic", "conservatory"})


def _one_school(heads: list[str], i: int, facts: Facts) -> bool:
    """Whether a claimed school's words are those of the profile's `i`th school: its own words
    (cities in English, short forms) and its degree's field ("Iowa State University College of
    Veterinary Medicine"), any other word of the profile but no other school's, and a kind of
    school ("University", "Institute") only if it is its own or follows its full name."""
    school = facts.schools[i]
    own = {EXONYMS.get(w, w) for w in school.split()} | set(school.split())
    own |= {SCHOOL_IN_ENGLISH[w] for w in school.split() if w in SCHOOL_IN_ENGLISH}
    own |= {w.lower() for w in initialisms(facts.school_names[i])}
    own |= set(facts.degrees[i].field_words) if i < len(facts.degrees) else set()
    others = {w for j, other in enumerate(facts.schools) if j != i for w in other.split()} - own
    claimed = " ".join(heads)
    after_name = claimed.startswith(" ".join(w for w in school.split() if w not in _SMALL))
    for word in heads:
        if word in own or (len(word) >= 3 and any(o.startswith(word) for o in own if len(o) > len(word))):
            continue  # its own word, or one cut short ("Tec de Monterrey")
        if word in others or (word in _KIND and not after_name):
            return False
        if not contains(facts.profile_text, word):
            return False
    return any(w in own and w not in _GENERIC_SCHOOL for w in heads)


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
