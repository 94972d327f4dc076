"""Roles: where the person says they worked, and the job titles they say they held.

- `employment`: "I worked at X", "my time at X", "while at X", "At X, I ...", "as an engineer at
  X": X is one of the profile's employers (or, for "as ... at", the hiring company, which a person
  may say they want to work at). An employer that only the listing's text mentions is still an
  invention about the applicant.
- `titles`: a title claimed as held ("as Staff Engineer", "I'm a Lead Data Scientist", "finishing
  as Clinical Nurse Manager", "Design Lead at Mercadito") is one the profile gives, in full or in
  part: "Senior Clinical Data Analyst" is not "Clinical Data Analyst". A title named as the role
  applied for ("the Senior Backend Engineer role", "as your next Platform Engineer") claims nothing.
  A title is read after a trigger ("as", "I'm", "now" skipped) or after the person's own name and
  a comma ("I'm Ingrid, service manager at ..."), up to its head noun: the usual ones and the last
  words of the profile's titles ("Chef"), so the level word counts ("Executive" is not "Head").
  A school named by a run of its words ("the Santa María") is no employer. A title may use the
  initials of a profile title's words ("QC Manager" for Quality Control Manager), and a phrase
  with a credential word the profile writes as it stands ("a SATI accredited interpreter") is
  the profile's credential, not a title claimed.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.facts import Facts, initialisms, strip_legal
from jobsearch.draft.checks.text import contains, fold, sentences
from jobsearch.draft.checks.units import held_as_unit
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import (
    LANGUAGE_CODES,
    LANGUAGES,
    LEVELS,
    ROLE_NOUNS,
    SHORT_WORDS,
    TITLE_FILLER,
)
from jobsearch.jobs import Check

_CAP = r"(?!I\b|I['\u2019])[A-Z][\w&'\u2019.-]*"
_NAME = rf"{_CAP}(?:\s+(?:&\s+|of\s+|de\s+|the\s+)?{_CAP}){{0,4}}"
_WORKED = re.compile(
    rf"(?:\bI(?:'ve| have)?\s+(?:also\s+|previously\s+|once\s+)?(?:worked|work|served|interned|"
    rf"spent\s+[\w-]+(?:\s+and\s+a\s+half)?\s+(?:years?|months?))\s+(?:\w+\s+){{0,4}}?(?:at|for)"
    rf"|\bI\s+was\s+(?:\w+\s+){{0,4}}?at"
    rf"|\bmy\s+(?:\w+\s+)?(?:time|role|work|years?|tenure|position|job|stint|days)\s+(?:\w+\s+){{0,3}}?(?:at|with)"
    rf"|\b(?:while|when I was)\s+at|\bduring my (?:\w+\s+)?(?:time|years?) at|^At)\s+(?:the\s+)?({_NAME})"
)
_HOPE = re.compile(r"\b(?:would|I['\u2019]d|hope|want|wish|keen|love to|like to)\b", re.IGNORECASE)
_PEOPLE_AFTER = re.compile(
    r"^\s+(?:customers|clients|partners|suppliers|colleagues|teams|patients|users|engineers|students)\b"
)
_AS_AT = re.compile(rf"\bas\s+(?:an?\s+|the\s+)?[^.,;()\n]{{1,60}}?\s+at\s+(?:the\s+)?({_NAME})")
_LEGAL_END = re.compile(r"\b(?:Inc|Ltd|LLC|LLP|GmbH|Corp|Corporation|Limited|PLC|AG|S\.A|B\.V|SE|Co)\.?$")
_WITH = re.compile(rf"\bI(?:'ve| have)?\s+(?:worked|work)\s+(?:\w+\s+){{0,2}}?with\s+(?:the\s+)?({_NAME})")

_TRIGGER = re.compile(
    r"\b(?:as(?!\s+(?:well|much|soon|long|far|many|good|part|a\s+result|such)\b)|am|I'm|been|became|become|was|promoted\s+to|hired\s+as|joined\s+as|work(?:ing|ed)?\s+as|"
    r"role\s+as|position\s+as|job\s+as|here\s+as|finishing\s+as|ending\s+as|currently)\s+"
    r"(?:as\s+)?(?:(?:now|currently|still|already|also)\s+)?(?:an?\s+|the\s+|my\s+)?"
    r"(?:(?:now|currently|still|already|also)\s+)?|^",
    re.IGNORECASE,
)
# "I'm CPEng and an APEC Engineer": a second title after "and a(n)" in a clause that claims one
_AND_A = re.compile(r"\b(?:I['\u2019]m|I am)\b[^.;:()]{1,60}?\band\s+(?:an?|the)\s+")
_HEADS = frozenset({"head", "director", "vp", "chief", "dean"})
_NEXT_WORD = re.compile(r"[\w/+&'\u2019-]+")
_REFERENCE = re.compile(
    r"^\s*(?:role|position|posting|opening|vacancy|job|opportunity|team|ad|advert|listing)\b", re.I
)
_STOP = frozenset(
    {
        "as",
        "into",
        "to",
        "for",
        "the",
        "a",
        "an",
        "and",
        "or",
        "in",
        "at",
        "with",
        "on",
        "my",
        "your",
        "our",
        "who",
        "which",
        "that",
        "where",
        "since",
        "from",
        "by",
        "i",
        "is",
        "was",
        "i'm",
        "i've",
        "i'd",
        "been",
    }
)


def _employer_match(name: str, allowed: list[str]) -> bool:
    key = fold(strip_legal(name))
    initials = re.sub(r"[&.\s]", "", name)
    return (
        not key
        or any(key in a or a in key for a in allowed if a)
        # "H&P" for Halvorsen & Price: the initials of an employer's words
        or (initials.isupper() and len(initials) >= 2 and any(_initials(a) == initials for a in allowed))
    )


def _initials(folded: str) -> str:
    return "".join(w[0] for w in folded.split() if w not in {"and", "of", "the"}).upper()


def _school(name: str, facts: Facts) -> bool:
    """Whether a name is one of the profile's schools: in full, by a run of its words ("the Santa
    María" for Universidad Técnica Federico Santa María) or by its short form ("USP")."""
    key = fold(name)
    return any(key and f" {key} " in f" {s} " for s in facts.schools) or any(
        name.strip() in initialisms(s) for s in facts.school_names
    )


def check_employment(text: str, facts: Facts) -> Check:
    """Every claim of having worked somewhere names a profile employer."""
    bad: list[str] = []
    for sentence in sentences(text):
        for match in _WORKED.finditer(sentence):
            name = match.group(1)
            if _PEOPLE_AFTER.match(sentence[match.end() :]):
                continue  # "my daily work with US customers": whom, not where
            if sentence.startswith("At ") and contains(facts.profile_text, f"at {fold(name)}"):
                continue  # "At Invergordon we cut out ...": a site the profile names, not an employer
            with_ = re.search(r"\bwith\s+(?:the\s+)?$", sentence[: match.start(1)])
            if with_ and contains(facts.profile_text, fold(name)):
                continue  # "my AAC work with LAMP": a tool or client the profile names, not where
            if _employer_match(name, [facts.hiring_company]) and _HOPE.search(sentence):
                continue  # "I would like to make that my main job with Tidewind"
            if not _employer_match(name, facts.employers):
                bad.append(strip_legal(name))
        for name in _AS_AT.findall(sentence):
            if not _employer_match(name, [*facts.employers, facts.hiring_company]) and not _school(
                name, facts
            ):
                bad.append(strip_legal(name))
        for name in _WITH.findall(sentence):
            if _LEGAL_END.search(name) and not _employer_match(name, facts.employers):
                bad.append(strip_legal(name))
    return verdict(
        "employment", bad, lambda shown: f"says you worked at {shown}, not an employer in your profile"
    )


def _titles(
    sentence: str, heads: frozenset[str] = ROLE_NOUNS, person: re.Pattern[str] | None = None
) -> list[tuple[str, str, bool]]:
    """Each (title, the text after it, whether it opens the sentence) a sentence may claim: up to
    five words after a trigger ("as", "I'm", "been" ..., or the person's own name and a comma:
    "I'm Ingrid, service manager at ..."), stopped by a small word or punctuation, cut after
    their last role noun (`heads`: the usual ones and those of the sources' titles, "Chef")."""
    out: list[tuple[str, str, bool]] = []
    starts = [t.end() for t in _TRIGGER.finditer(sentence) if t.end() > 0 or t.start() == 0]
    starts += [t.end() for t in person.finditer(sentence)] if person else []
    starts += [m.end() for m in _AND_A.finditer(sentence)]
    for start in starts:
        pos, taken = start, list[re.Match[str]]()
        while len(taken) < (6 if any(w.group() == "of" for w in taken) else 5):
            word = _NEXT_WORD.match(sentence, pos)
            head_of = (
                word is not None
                and word.group() == "of"
                and bool(taken)
                and taken[-1].group().lower() in _HEADS
            )
            if word is None or (word.group().lower() in _STOP and not head_of):
                break
            taken.append(word)
            pos = word.end()
            if sentence[pos : pos + 1] != " ":
                break
            pos += 1
        last = max((i for i, w in enumerate(taken) if fold(w.group()) in heads), default=-1)
        if any(w.group() == "of" for w in taken):  # "Head of Science": the field is the title's too
            last = max((i for i, w in enumerate(taken) if w.group()[:1].isupper()), default=last)
            of = next(i for i, w in enumerate(taken) if w.group() == "of")
            if last < of + 1 < len(taken) and fold(taken[of - 1].group()) in _HEADS | heads:
                last = of + 1  # "director of operations", in lower case, is a title too
        if last < 0:
            continue
        title = sentence[taken[0].start() : taken[last].end()]
        if start == 0 and not title[:1].isupper():
            continue
        out.append((title, sentence[taken[last].end() :], start == 0))
    return out


# The words before a title that describe the person, not the post ("a registered vet nurse", "a
# Nairobi-based analyst").
_DESCRIBED = re.compile(
    r"[\w.]+-(?:based|registered|certified|licensed|chartered|accredited|qualified|trained|appointed)\b"
    r"|^(?:appointed|named|elected|made)\s+",
    re.I,
)
# "a sworn EN-ES interpreter": a language pair in codes
_PAIR = re.compile(r"\b([A-Z]{2})\s?(?:-|>|/|<>|\u2013|\u2192)\s?([A-Z]{2})\b")
# "as a team lead": a lead of a team is what the profile says when it says the person leads one
_TEAM_LEAD = re.compile(
    r"\b(?:lead(?:s|ing)?|led)\s+(?:a|the|my|our|\d+)?\s*(?:[\w-]+\s+){0,3}?(?:team|crew|squad)\b"
    r"|\b(?:lead(?:s|ing)?|led)\s+\d+\s+[a-z]+s\b"
)
_QUALIFIERS = frozenset(
    {"registered", "licensed", "qualified", "certified", "chartered", "accredited", "experienced",
     "credentialed", "trained", "practising", "practicing", "fully", "dual", "bilingual", "hands", "on"}
)  # fmt: skip


def _cut_short_of(key: list[str], forms: set[str]) -> bool:
    """Whether every word of a title is one of a profile title's, or cut short from one ("sat" of
    saturation, "designer" of design engineer): three letters at least, the level words whole."""
    return all(
        w in forms
        or (
            w not in LEVELS
            and len(w) >= 3
            and any(len(f) >= 4 and (f.startswith(w) or w.startswith(f)) for f in forms)
        )
        for w in key
    )


def _described(key: list[str], title: str, facts: Facts) -> bool:
    """Whether a claimed title is the whole of a profile title and words the profile writes before
    its head."""
    own = set(title.split())
    return own <= set(key) and all(
        w in own or (w not in LEVELS and _before_head(w, key[-1], facts)) for w in key
    )


def _spelled(word: str, facts: Facts) -> list[str]:
    """A word that is the initials of two or three words of a profile title, as those words."""
    for title in facts.titles:
        parts = [SHORT_WORDS.get(w, w) for w in title.split()]
        for n in (2, 3):
            for i in range(len(parts) - n + 1):
                if len(word) == n and "".join(p[0] for p in parts[i : i + n]) == word:
                    return parts[i : i + n]
    return [word]


def _language(code: str) -> str:
    return LANGUAGE_CODES.get(code.lower(), code)


def _title_words(title: str, places: set[str]) -> list[str]:
    """The words of a claimed title that name the post: short forms written out; qualifiers, a
    place ("a Melbourne chemistry teacher") and a "<place>-based" dropped."""
    title = _PAIR.sub(lambda m: f"{_language(m[1])} {_language(m[2])}", title)
    key = [SHORT_WORDS.get(w, w) for w in fold(_DESCRIBED.sub(" ", title)).split() if w not in TITLE_FILLER]
    return [w for w in key if w not in _QUALIFIERS and w not in places]


def _modifiers_dropped(title: str, facts: Facts) -> str:
    """A title without a hyphenated word before its head whose parts the profile writes ("a
    one-star saucier" when the profile says "one-Michelin-star")."""
    parts = title.split()
    kept = [
        p
        for p in parts[:-1]
        if "-" not in p or not all(contains(facts.profile_text, fold(x)) for x in p.split("-") if x)
    ]
    return " ".join([*kept, parts[-1]]) if parts else title


_CREDENTIAL = re.compile(r"\b(?:certified|accredited|chartered|licensed|registered)\b", re.I)


def _before_head(word: str, head: str, facts: Facts) -> bool:
    """Whether the profile writes `word` a few words before `head` ("offshore wind turbine
    technician" for "offshore technician")."""
    return bool(re.search(rf"\b{re.escape(word)}(?:\s+\S+){{0,3}}\s+{re.escape(head)}\b", facts.profile_text))


def _title_forms(title: str) -> set[str]:
    """The words a profile's title may be written with: its own, short forms written out, and the
    initials of two or three of its words in a row ("qc" for Quality Control Manager)."""
    parts = [SHORT_WORDS.get(w, w) for w in title.split()]
    runs = {"".join(w[0] for w in parts[i : i + n]) for n in (2, 3) for i in range(len(parts) - n + 1)}
    return set(parts) | runs


def _held_title(title: str, facts: Facts) -> bool:
    # "Saguaro's top technician", "their senior team's pitch-side physiotherapist": the title is
    # what follows the possessive
    title = _modifiers_dropped(re.split(r"\S+(?:'s|\u2019s|s')\s+", title)[-1], facts)
    head, of, place = title.partition(" of ")
    if of and (facts.employers_in(place) or _employer_match(place, [facts.hiring_company])):
        title = head  # "financial controller of Highveld Packaging": the title, at an employer
    elif of and head.split() and fold(head.split()[-1]) not in _HEADS and _named_by_profile(place, facts):
        title = head  # "brand manager of Aurora Botânica": the title, of a brand the profile names
    # "a Gulfwing purser": the employer's name before the title is where, not what
    employer_words = {a for a in facts.employer_aliases if " " not in a} | set(facts.employers)
    title = " ".join(w for w in title.split() if fold(w) not in employer_words) or title
    # the person's own languages describe the post ("a sworn English-Spanish interpreter")
    key = [w for w in _title_words(title, facts.places) if not (w in LANGUAGES and facts.has_skill(w))]
    key = [part for w in key for part in _spelled(w, facts)]  # "paediatric OT": occupational therapist
    # "as an engineer", "as the lead": no particular title; "as a team lead" when the profile
    # "leads a team of 5"
    if len(key) <= 1 or (set(key) <= {"team", "lead", "leader"} and _TEAM_LEAD.search(facts.profile_text)):
        return True
    phrase = " ".join(key)
    # in full or in part, or a word cut short ("sat diver", "signalling designer"); or a whole
    # title of the profile with the profile's own words before its head ("senior paediatric OT"
    # for a Senior Occupational Therapist who works in paediatrics)
    if any(_cut_short_of(key, _title_forms(t)) or _described(key, t, facts) for t in facts.titles):
        return True
    # "an offshore technician" for a Wind Turbine Technician whose profile says "offshore": the
    # same post, described with the profile's own words and no level
    heads = {t.split()[-1] for t in facts.titles if t.split()}
    if key[-1] in heads and not set(key) & LEVELS and all(_before_head(w, key[-1], facts) for w in key[:-1]):
        return True
    if contains(facts.profile_text, fold(title)):
        return True  # "a CIMA-qualified management accountant": the profile's own words
    if _CREDENTIAL.search(title) and (
        contains(facts.profile_text, fold(title)) or held_as_unit(title, facts.credential_units)
    ):
        return True  # "a SATI accredited interpreter": the profile's credential, stated as it is
    return f" {phrase} " in f" {facts.profile_text} "


def _named_by_profile(place: str, facts: Facts) -> bool:
    """Whether a capitalised name is one the profile writes ("Aurora Botânica")."""
    words_ = place.split()
    return bool(words_) and all(w[:1].isupper() for w in words_) and contains(facts.profile_text, fold(place))


def _degree_named(title: str, after: str, facts: Facts) -> bool:
    """A title that names the person's degree, said with the school ("an industrial engineer from
    Tec de Monterrey"): its words other than the head are the degree's field or name."""
    school = re.match(r"\s+(?:from|at|of)\s+(?:the\s+)?(.+)", after)
    if school is None or not any(w in school.group(1).lower() for w in _school_heads(facts)):
        return False
    words = set(_title_words(title, facts.places)[:-1])
    fields = {w for d in facts.degrees for w in d.field_words | d.named}
    return bool(words) and words <= fields


def _school_heads(facts: Facts) -> set[str]:
    """Words that name the profile's schools in a letter: their distinctive words and short forms."""
    out = {w for s in facts.schools for w in s.split() if len(w) >= 4}
    return (
        out
        | {i.lower() for n in facts.school_names for i in initialisms(n)}
        | {h.lower()[:3] for h in facts.name_heads}
    )


def check_titles(text: str, facts: Facts) -> Check:
    """Every job title the person claims is one of the profile's."""
    bad: list[str] = []
    # the usual head nouns, the last words of the profile's titles, and their initials ("CRA" of
    # Clinical Research Associate, "Senior CRA" a title)
    titles = [*facts.titles, facts.listing_title]
    heads = ROLE_NOUNS | {t.split()[-1] for t in facts.titles if t.split()}
    heads |= {f for t in titles for f in _title_forms(t) - set(t.split()) if len(f) >= 2}
    names = [re.escape(n) for n in sorted(facts.person_names, key=len, reverse=True) if len(n) > 1]
    person = re.compile(rf"\b(?i:{'|'.join(names)})\s*,\s+(?:an?\s+|the\s+)?") if names else None
    for sentence in sentences(text):
        for title, after, opens in _titles(sentence, heads, person):
            if _held_title(title, facts) or _REFERENCE.match(after) or _degree_named(title, after, facts):
                continue
            if re.search(rf"\byou\s+as\s+(?:an?\s+|the\s+|my\s+)?{re.escape(title)}", sentence):
                continue  # "working closely with you as Director of Commercial Strategy": theirs
            at = re.match(r"\s*,?\s+at\s+(.+)", after)
            if opens and at is None:
                continue  # "Senior Engineer, Payments is..." names a role; only "X at Y" claims it
            applied_for = f" {fold(title)} " in f" {facts.listing_title} " or set(
                _title_words(title, facts.places)
            ) <= _title_forms(facts.listing_title)
            if applied_for and (
                at is None or _employer_match(at.group(1).split(",")[0], [facts.hiring_company])
            ):
                continue  # the role applied for, named as what the person wants to become
            bad.append(title)
    return verdict("titles", bad, lambda shown: f"gives you the title {shown}, not a title in your profile")
