"""What a draft may state: the facts of one profile and one listing, read once per listing.

The profile and the listing are the only sources of truth. The profile says what the person has
(employers, titles, schools, degrees, skills, figures); the listing says what the employer has and
asks for (its company, people, products, places, figures and the skills it wants), which a draft
may name but never claim as the person's. Sentences of the listing that address a model are left
out of what vouches for a name (see `injection`).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Set
from dataclasses import dataclass, field
from datetime import date

from jobsearch.draft.checks.figures import figures
from jobsearch.draft.checks.injection import Injected, find_injections
from jobsearch.draft.checks.lexicon import language_codes
from jobsearch.draft.checks.links import link_key
from jobsearch.draft.checks.positions import namelike
from jobsearch.draft.checks.text import bare, contains, fold, sentences, words
from jobsearch.draft.checks.units import Unit, squeezed, unit_words
from jobsearch.draft.checks.vocabulary import COMMON, LANGUAGES, ROLE_NOUNS, SCHOOL_IN_ENGLISH, SKILLS
from jobsearch.draft.checks.wished import wished_names, wished_phrases
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from jobsearch.reading.skills import SKILL_SYNONYMS

_LEGAL = re.compile(
    r"[\s,]+(?:inc|ltd|llc|llp|lp|pllc|gmbh|ag|se|corp|corporation|limited|plc|s\.?a|s\.?l|b\.?v|n\.?v|co|oy|ab|as|"
    r"pty|kg|spa|srl|lda|sarl|sas|bv|nv|ug|kft|sp\.?\s?z\s?o\.?o|a/s|aps|pvt|private limited)\.?$",
    re.IGNORECASE,
)
_CONNECTORS = frozenset(
    {"of", "de", "der", "des", "du", "la", "le", "van", "von", "and", "&", "für", "for", "the", "à", "y", "e"}
)
_DEGREE_FAMILIES: dict[str, re.Pattern[str]] = {
    "doctorate": re.compile(
        r"\bph\.?\s?d\b|\bdoctorate\b|\bdoctoral\b|\bd\.phil\b|\bdr\.\s?rer\b|\bpharm\.?\s?d(?!\w)|\bed\.d(?!\w)"
        r"|\bdoctor of\b",
        re.I,
    ),
    "mba": re.compile(r"\bm\.?b\.?a\b", re.I),
    "master": re.compile(
        r"\bmaster'?s?\b|\bmasters\b|\bm\.?sc(?:[a-z]{1,2})?\b|\bm\.s\.|\bm\.a\.|\bm\.?eng\b|\bm\.?phil\b|\bm\.?tech\b"
        r"|\bmsc\b|\bll\.?m(?!\w)|\bm\.?\s?pharm(?!\w)|\bm\.ed(?!\w)|\bmph\b|\bmfa\b|\bm\.?res\b",
        re.I,
    ),
    "bachelor": re.compile(
        r"\bbachelor'?s?\b|\bb\.?sc(?:[a-z]{1,2})?\b|\bb\.s\.|\bb\.a\.|\bb\.?eng\b|\bb\.?tech\b|\bbsc\b|\bundergraduate\b"
        r"|\blicenciatura\b|\blicenciad[oa]s?\b|\bgrado\b|\bbacharelado\b|\bll\.?b(?!\w)|\bb\.?\s?pharm(?!\w)|\bb\.ed(?!\w)"
        r"|\bb\.?\s?comm?(?!\w)",
        re.I,
    ),
    "diploma": re.compile(r"\bdiploma\b|\bdiplom\b", re.I),
    # Australia's vocational certificates, by level: "Certificate III", "Cert IV"
    "certificate i": re.compile(r"\bcert(?:ificate)?\.?\s+(?:i|1)(?!\w)", re.I),
    "certificate ii": re.compile(r"\bcert(?:ificate)?\.?\s+(?:ii|2)(?!\w)", re.I),
    "certificate iii": re.compile(r"\bcert(?:ificate)?\.?\s+(?:iii|3)(?!\w)", re.I),
    "certificate iv": re.compile(r"\bcert(?:ificate)?\.?\s+(?:iv|4)(?!\w)", re.I),
    "associate": re.compile(r"\bassociate'?s degree\b|\bassociate of (?:arts|science)\b", re.I),
}
_UNIVERSITY = frozenset(
    {"university", "universidad", "universidade", "université", "università", "universität", "universiti"}
)
SYNONYMS = {fold(a): fold(b) for a, b in SKILL_SYNONYMS.items()}


def degree_families(text: str) -> set[str]:
    """The degree families a text names ("M.Sc. Statistics" -> {"master"})."""
    return {family for family, pattern in _DEGREE_FAMILIES.items() if pattern.search(text)}


def strip_legal(name: str) -> str:
    """A company name without its legal forms: "Havenlijn B.V." -> "Havenlijn", "Sahyadri Motors
    Pvt. Ltd." -> "Sahyadri Motors"."""
    name = name.strip()
    while (shorter := _LEGAL.sub("", name).strip(" ,.")) != name:
        name = shorter
    return name


def employer_aliases(employer: str) -> set[str]:
    """How a letter names an employer (folded): in full without its legal form, or by its first
    word when that word is distinctive ("Sahyadri" for Sahyadri Motors)."""
    full = fold(strip_legal(employer))
    words = full.split()
    aliases = {full}
    if len(words) >= 2 and len(words[0]) >= 4 and words[0] not in COMMON:
        aliases.add(words[0])
    return aliases


def initialisms(name: str) -> set[str]:
    """The short forms of a multi-word name: "University College Dublin" -> UCD; "Indian Institute
    of Technology Madras" -> IIT, IITM; "Ludwig-Maximilians-Universität München" -> LMU, LMUM."""
    parts = [p for p in re.split(r"[\s-]+", strip_legal(name)) if p]
    heads = [p for p in parts if p[:1].isupper() and p.lower() not in _CONNECTORS]
    out: set[str] = set()
    for end in range(2, len(heads) + 1):
        out.add("".join(p[0] for p in heads[:end]).upper())
        # and its last words by their initials: Merri Creek Secondary College -> Merri Creek SC
        out.add("".join(p[0] for p in heads[len(heads) - end :]).upper())
    if len(parts) > len(heads) >= 2:  # with its small words too: College of Engineering Pune -> COEP
        out.add("".join(p[0] for p in parts if p[:1].isalpha()).upper())
        # or kept whole: Universidad de Guadalajara -> UdeG; or by their initial: Hogeschool van
        # Amsterdam -> HvA
        out.add("".join(p if p.lower() in _CONNECTORS else p[0].upper() for p in parts))
        out.add("".join(p[0].lower() if p.lower() in _CONNECTORS else p[0].upper() for p in parts))
        # or with its ampersand: Portland Parks & Recreation -> PP&R
        if "&" in parts:
            out.add("".join("&" if p == "&" else p[0].upper() for p in parts if p == "&" or p in heads))
        # or only the one-letter ones: Université du Québec à Montréal -> UQAM
        out.add("".join(p[0].upper() for p in parts if p.lower() not in _CONNECTORS or len(p) == 1))
    if len(heads) >= 3:  # the last word cut short: North East Scotland College -> NESCol
        out.add("".join(p[0].upper() for p in heads[:-1]) + heads[-1][:3])
    if len(heads) >= 2:  # by syllables: University of Lagos -> UNILAG
        out.add("".join(p[:3] for p in heads).upper())
    if len(heads) >= 2 and heads[0].lower() in _UNIVERSITY:
        # U and the capitals of its distinctive words (University of KwaZulu-Natal -> UKZN), or U
        # and its last word (Universidad Juan Agustín Maza -> UMaza)
        out.add("U" + "".join(c for p in heads[1:] for c in p if c.isupper()))
        out.add("U" + heads[-1])
    # and without accents, as people type them: UQÀM -> UQAM
    return out | {deaccent(i) for i in out}


def deaccent(text: str) -> str:
    """A text without its accents: "Sông Xanh" -> "Song Xanh"."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@dataclass(frozen=True)
class Degree:
    """One degree the profile holds: its family and the words of its field."""

    families: frozenset[str]
    field_words: frozenset[str]
    named: frozenset[str] = frozenset()  # the words after "of" in its name: "Master of Teaching"


@dataclass
class Facts:
    """What a draft may state, built once per listing from the profile and the listing."""

    profile_text: str  # folded
    listing_text: str  # folded, without the listing's instructions to a model
    names: set[str]  # capitalised words of the sources, and initialisms of their names
    vocabulary: set[str]  # every folded word of the sources
    employers: list[str]  # folded, without legal forms
    employer_aliases: dict[str, str]  # how a letter may name each (folded) -> its `employers` entry
    hiring_company: str
    titles: list[str]  # the profile's titles, folded
    listing_title: str
    degrees: list[Degree]
    schools: list[str]  # folded
    school_names: list[str]  # as the profile writes them
    figures: set[tuple[float, str]]  # (value, unit) of every figure in the sources
    profile_figures: set[tuple[float, str]]  # ... in the profile alone
    durations: dict[str, set[float]]  # employer -> years a draft may say it lasted; "" for the total
    links: list[str]
    listing_skills: set[str]  # skills the listing names (folded)
    person_names: set[str]  # the person's own name and signature words (folded)
    places: set[str] = field(default_factory=set)  # words of every location of the sources (folded)
    profile_skills: set[str] = field(default_factory=set)  # the profile's skills list (folded)
    # the initials of its skills of two to four words ("gtm" for Google Tag Manager)
    skill_initials: set[str] = field(default_factory=set)
    listing_places: set[str] = field(default_factory=set)  # words of the listing's locations (folded)
    listing_lower: set[str] = field(default_factory=set)  # words the listing writes in lower case
    language: str = "en"  # the profile's `writing.language`
    languages: tuple[str, ...] = ("en",)  # the letter's languages, as wordfreq codes (`lexicon`)
    injected: Injected = field(default_factory=Injected)
    # names only the listing's "nice to have" lines use -> whether a credential's (`wished`)
    wished: dict[str, bool] = field(default_factory=dict)
    # each sentence, skill, highlight and school of the profile as a set of words (`units`)
    credential_units: list[Unit] = field(default_factory=list)
    degree_names: list[str] = field(default_factory=list)  # the profile's degrees as written ("BVSc")
    short_forms: set[str] = field(default_factory=set)  # the sources' short forms, squeezed ("nng")
    name_heads: set[str] = field(default_factory=set)  # first words of employers' and schools' names
    wished_phrases: list[str] = field(default_factory=list)  # the listing's wishes in words (`wished`)

    @classmethod
    def of(cls, profile: Profile, listing: MergedListing, *, today: date | None = None) -> Facts:
        """The facts of one (profile, listing) pair, durations counted up to `today`."""
        person = profile.person
        pieces = [person.name, person.location or "", person.summary, *person.skills]
        for role in person.experience:
            pieces += [role.employer, role.title, role.location or "", *role.highlights]
        for school in person.education:
            pieces += [school.institution, school.degree or "", school.field or "", str(school.year or "")]
            # and as one unit: "PCP certificate" for a Certificate in Primary Care Paramedic
            pieces.append(f"{school.degree or ''} {school.field or ''} {school.institution}")
        if profile.writing.signature:
            pieces.append(profile.writing.signature)
        profile_plain = "\n".join(pieces)
        skill_initials = {
            "".join(w[0] for w in fold(k).split() if w not in _CONNECTORS)
            for k in person.skills
            if 2 <= len(fold(k).split()) <= 4
        }
        listing_raw = "\n".join(
            [
                listing.title,
                listing.company,
                *listing.locations,
                listing.department or "",
                listing.description,
            ]
        )
        injected = find_injections(
            f"{listing.title}\n{listing.company}\n{listing.description}", fold(profile_plain)
        )
        listing_plain = "\n".join(s for s in sentences(listing_raw) if s not in injected.sentences)
        sources = f"{profile_plain}\n{listing_plain}"
        listing_text = fold(listing_plain)
        return cls(
            profile_text=fold(profile_plain),
            listing_text=listing_text,
            names=_names(sources, [*(r.employer for r in person.experience), listing.company,
                                   *(s.institution for s in person.education)],
                         skill_initials),
            vocabulary=set(fold(sources).split()),
            employers=list(dict.fromkeys(fold(strip_legal(r.employer)) for r in person.experience)),
            employer_aliases={
                alias: fold(strip_legal(r.employer))
                for r in person.experience
                for alias in employer_aliases(r.employer)
            },
            hiring_company=fold(strip_legal(listing.company)),
            titles=[fold(r.title) for r in person.experience if r.title],
            listing_title=fold(listing.title),
            degrees=[
                Degree(frozenset(degree_families(f"{s.degree or ''} {s.field or ''}")),
                       frozenset(fold(s.field or "").split()),
                       frozenset(fold((s.degree or "").partition(" of ")[2]).split()))
                for s in person.education
            ],
            schools=[fold(s.institution) for s in person.education],
            school_names=[s.institution for s in person.education],
            figures={(f.value, f.unit) for f in figures(sources)} | {(float(y), "") for y in _years(profile)},
            profile_figures={(f.value, f.unit) for f in figures(profile_plain)}
            | {(float(y), "") for y in _years(profile)},
            durations=_durations(profile, today or date.today()),
            links=[link_key(x) for x in [person.email or "", *person.links, listing.url,
                                         *(s.url for s in listing.sources)] if x],
            listing_skills={s for s in SKILLS if contains(listing_text, s)},
            listing_places=set(fold(" ".join(listing.locations)).split()),
            places=set(fold(" ".join([person.location or "", *(r.location or "" for r in person.experience),
                                      *listing.locations])).split()),
            profile_skills={fold(x) for x in person.skills},
            skill_initials=skill_initials,
            listing_lower={w.lower() for w in re.findall(r"[^\W\d_]+", listing_plain) if w.islower()},
            person_names=set(fold(f"{person.name} {profile.writing.signature or ''}").split()),
            injected=injected,
            wished=wished_names(
                "\n".join(s for s in listing.description.splitlines() if s not in injected.sentences),
                fold(profile_plain),
                listing.company,
            ),
            credential_units=[u for piece in pieces for u in unit_words(piece)],
            short_forms=squeezed(sources),
            wished_phrases=wished_phrases(
                "\n".join(s for s in listing.description.splitlines() if s not in injected.sentences),
                fold(profile_plain),
            ),
            name_heads={deaccent(n.split()[0]) for n in [*(r.employer for r in person.experience),
                                                       *(s.institution for s in person.education)]
                        if n.split() and len(n.split()[0]) >= 4}
            | {deaccent(w) for s in person.education for w in s.institution.split()
               if len(w) >= 8 and w[:1].isupper()},
            degree_names=[s.degree for s in person.education if s.degree],
            language=profile.writing.language.lower().split("-")[0],
            languages=language_codes(
                profile.writing.language, [w for w in fold(profile_plain).split() if w in LANGUAGES]
            ),
        )  # fmt: skip

    def employers_in(self, text: str) -> set[str]:
        """The profile's employers a text names (their `employers` entries)."""
        folded = fold(text)
        return {canon for alias, canon in self.employer_aliases.items() if contains(folded, alias)}

    def in_sources(self, phrase: str) -> bool:
        """Whether a folded phrase occurs in the profile or the listing."""
        return contains(self.profile_text, phrase) or contains(self.listing_text, phrase)

    def has_skill(self, skill: str) -> bool:
        """Whether the profile holds a skill (folded), under its name, a synonym, or the initials
        of one it lists ("GTM" for Google Tag Manager)."""
        other = SYNONYMS.get(skill)
        return (
            contains(self.profile_text, skill)
            or (other is not None and contains(self.profile_text, other))
            or (skill.endswith("s") and contains(self.profile_text, skill[:-1]))  # "SWT-3.6s"
            or skill in self.skill_initials
        )


def _names(text: str, proper: list[str], skill_initials: Set[str] = frozenset()) -> set[str]:
    """Capitalised words of the sources (as written, possessives off, hyphenated parts too) and
    the initialisms of the sources' capitalised runs and of the organisations named."""
    out: set[str] = set()
    for sentence in sentences(text):
        out.update(_phrase_initials(sentence))
        run: list[str] = []
        for word in [*words(sentence), None]:
            if word is not None and (namelike(word) or (run and word.text.lower() in _CONNECTORS)):
                token = bare(word.text)
                out.add(token)
                out.update(p for p in re.split(r"[-/]", token) if p[:1].isupper())
                run.append(token)
                continue
            if len(run) >= 2:
                out.update(initialisms(" ".join(run)))
                # and of each name a list joins: "Heights and Low Voltage Rescue & CPR" -> LVR
                for part in re.split(r"\s+(?:and|&)\s+", " ".join(run)):
                    if len(part.split()) >= 2:
                        out.update(initialisms(part))
            run = []
    for name in proper:
        out.update(initialisms(name))
        # a school's words in English, as a letter in English writes them ("University of São Paulo")
        out.update(SCHOOL_IN_ENGLISH[k].title() for k in fold(name).split() if k in SCHOOL_IN_ENGLISH)
    out |= {deaccent(n) for n in out}  # "Song Xanh" for Sông Xanh, as people type it
    # the profile's terms by their initials: "CA" for construction administration, "CDs"
    out.update(f"~{i.lower()}" for i in skill_initials)
    # a word the sources shout ("HEAD OF POSTGRESQL PLATFORM") is known in any case
    out.update(f"~{w.lower()}" for w in re.findall(r"\b[A-Z][A-Z0-9]{2,}\b", text))
    return out


def _phrase_initials(sentence: str) -> set[str]:
    """The short forms of the phrases of a sentence in any case, three to five words long, small
    words left out ("adverse drug reaction" -> ADR, "therapeutic drug monitoring" -> TDM), as
    `~` keys: a trade acronym whose words a source spells out is known."""
    heads = [w.text for w in words(sentence) if w.text[:1].isalpha() and w.text.lower() not in _CONNECTORS]
    # and two words ending in a post's noun: "registered nurse" -> RN, "quantity surveyor" -> QS
    posts = {
        "~" + (a[0] + b[0]).lower()
        for a, b in itertools.pairwise(heads)
        if fold(b) in ROLE_NOUNS and a[:1].isalpha()
    }
    return posts | {
        "~" + "".join(w[0] for w in heads[i : i + size]).lower()
        for size in (3, 4, 5)
        for i in range(len(heads) - size + 1)
    }


def _years(profile: Profile) -> set[int]:
    years: set[int] = set()
    for role in profile.person.experience:
        years.update(d.year for d in (role.start, role.end) if d is not None)
    years.update(s.year for s in profile.person.education if s.year)
    return years


def _lengths(years: float) -> set[float]:
    """How a person may say a span of `years`: rounded down, to the nearest, up, to a half year."""
    return {float(math.floor(years)), float(round(years)), float(math.ceil(years)),
            math.floor(years * 2) / 2, math.ceil(years * 2) / 2}  # fmt: skip


def _durations(profile: Profile, today: date) -> dict[str, set[float]]:
    """Per employer (folded), the years a letter may say the person spent there: each role's, and
    all its roles' together (a promotion is one stay); "" for the whole career."""
    out: dict[str, set[float]] = {}
    spans: list[tuple[date, date]] = []
    stays: dict[str, list[tuple[date, date]]] = {}
    for role in profile.person.experience:
        if role.start is None:
            continue
        end = role.end or today
        spans.append((role.start, end))
        key = fold(strip_legal(role.employer))
        stays.setdefault(key, []).append((role.start, end))
        out.setdefault(key, set()).update(_lengths((end - role.start).days / 365.25))
    for key, roles in stays.items():
        first, last = min(s for s, _ in roles), max(e for _, e in roles)
        out[key] |= _lengths((last - first).days / 365.25)
    total: set[float] = set()
    if spans:
        earliest = min(s for s, _ in spans)
        total |= _lengths((today - earliest).days / 365.25)
        total |= _lengths(sum((e - s).days for s, e in spans) / 365.25)
        # the roles from one of them up to now ("nearly ten years in brand roles": the last two)
        latest = max(e for _, e in spans)
        total |= {x for s, _ in spans for x in _lengths((latest - s).days / 365.25)}
        for lengths in out.values():
            total |= lengths
    out[""] = total
    return out
