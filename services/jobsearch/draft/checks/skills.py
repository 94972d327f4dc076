"""Skills: the tools, languages and platforms a draft says the person has used.

A skill is a phrase of the tool vocabulary (`vocabulary.SKILLS`: Kubernetes, Terraform, PyMC,
Looker, Power BI ...) or a spoken language. Named in a clause about the person's own work ("I
operate Kubernetes clusters", "at Havenlijn we run on Terraform", "I speak Portuguese") it must be
one the profile holds, under its name or a synonym (Go/Golang, Postgres/PostgreSQL, k8s). A skill
the listing asks for may be named as something to learn, a gap, or the employer's ("your
Kubernetes platform", "I have not used Looker yet", "Terraform is new to me"): only a clause with
no such word and a first-person subject claims it. A tool only the listing's "Nice to have" names
(`wished`), claimed as held ("hands-on IBM Maximo planning"), fails however it is said, and so
does a term listed right after one the profile holds that is such a wish or an acronym no source
writes ("hands-on PAUT and TOFD", "in oak, concrete and amphora").
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.claims import claims
from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.lexicon import is_common
from jobsearch.draft.checks.positions import namelike, organisation_like
from jobsearch.draft.checks.text import bare, clauses, contains, fold, sentences, words
from jobsearch.draft.checks.units import held_as_unit
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import (
    CERTIFICATIONS,
    FIRST_PERSON,
    GAP,
    GENERIC_ACRONYMS,
    LANGUAGES,
    NOUNS_CAPITALISED,
    SKILLS,
    WORDS_TOO,
)
from jobsearch.draft.checks.wished import YOURS, fragment, held, names_company, wished_in
from jobsearch.jobs import Check

_LONGEST = max(len(s.split()) for s in SKILLS)
_SPEAKS = re.compile(
    r"\b(?:speak|spoke|speaking|fluent|fluently|native|bilingual|mother tongue|conversational|"
    r"proficient|business-level|working knowledge)\b",
    re.IGNORECASE,
)


def skills_in(clause: str) -> list[tuple[str, str, int]]:
    """The skills a clause names, as (folded skill, as written, where), longest phrase first."""
    tokens = words(clause)
    found: list[tuple[str, str, int]] = []
    i = 0
    while i < len(tokens):
        for size in range(min(_LONGEST, len(tokens) - i), 0, -1):
            phrase = clause[tokens[i].start : tokens[i + size - 1].end]
            key = fold(phrase)
            if key not in SKILLS:
                continue
            written_as_name = phrase[:1].isupper() and not tokens[i].first
            if size == 1 and key in WORDS_TOO and not written_as_name and len(phrase) > 1:
                continue  # "go", "spark", "excel" in lower case are words; "R" and "C" are skills
            found.append((key, phrase, tokens[i].start))
            i += size - 1
            break
        i += 1
    return found


# A clause that says the person works with a tool: a verb of doing, then the tool after "in",
# "with", "on", "using" or as the verb's object ("I have worked in Phrase", "I program in Siemens
# NX CAM and hyperMILL", "I've used both ezyVet and Vetport"), and names listed after it.
_TOOL_VERB = re.compile(
    r"\b(?:use[ds]?|using|work(?:ed|ing)?|program(?:med|ming)?|cod(?:e|ed|ing)|buil[dt]|building|"
    r"model(?:led|ed|ling)?|r[au]n|running|manage[ds]?|managing|kept|keep|review(?:ed)?|"
    r"administer(?:ed)?|configur(?:e|ed|ing)|deploy(?:ed)?|wr(?:ite|ote|itten)|design(?:ed)?|"
    r"develop(?:ed)?|migrat(?:e|ed)|operat(?:e|ed)|maintain(?:ed)?|produc(?:e|ed)|process(?:ed)?|"
    r"analy[sz](?:e|ed)|track(?:ed)?|handl(?:e|ed)|creat(?:e|ed)|set\s+up|ship(?:ped)?|"
    r"implement(?:ed)?|trained|train|enter(?:ed)?|log(?:ged)?|record(?:ed)?|submit(?:ted)?|file[ds]?|"
    r"document(?:ed)?|schedul(?:e|ed)|plan(?:ned)?|draft(?:ed)?|book(?:ed)?|test(?:ed)?|report(?:ed)?|"
    r"do|does|did|measur(?:e|ed|ing))\b",
    re.IGNORECASE,
)
_NOT_HELD = re.compile(
    r"\b(?:I['\u2019]d|would|I['\u2019]ll|love|like|glad|happy|enjoy|welcome|apply|applying|applied|"
    r"interested|role|position|opening|vacancy)\b",
    re.IGNORECASE,
)
_TOOL_INTRO = frozenset({"in", "with", "on", "using", "use", "used", "uses", "into", "via"})
_TOOL_SKIPPED = frozenset({"both", "the", "a", "an", "also", "mainly", "mostly", "daily"})
_LIST = re.compile(r"^(?:\s*,\s*|\s*/\s*|\s+(?:and|or|&)\s+|\s*,\s*(?:and|or)\s+)$")


_CONTINUED = re.compile(r"^\s*(?:and|but|then)\s+(?:have|had|has|also|later|now|then|[a-z]+ed)\b", re.I)


def _claims(clause: str, at: int, sentence: str) -> bool:
    """Whether a clause claims what is at `at`, its subject being the sentence's first person when
    it continues it ("I code cases in MedDRA, and have also entered cases in Argus")."""
    if claims(clause, at):
        return True
    return bool(_CONTINUED.match(clause)) and not GAP.search(clause) and bool(FIRST_PERSON.search(sentence))


def listing_tools(clause: str, facts: Facts, sentence: str = "") -> list[str]:
    """Names only the listing uses ("Cloudbeds", "Vetport", "Legal Tracker") that a clause claims
    the person works with: after a verb of doing and "in", "with", "using" ... in a first-person
    clause with no gap or wish word, or listed after one. The hiring company and its places are no
    tools; a name the listing also writes in lower case is a word."""
    if _NOT_HELD.search(clause):
        return []
    tokens = words(clause)
    found: list[str] = []
    previous_end = -1  # where the last name in a tool position ended
    places = False  # whether that list began with a place of the sources ("in Dublin and Galway")
    i = 0
    while i < len(tokens):
        if not namelike(tokens[i]) or tokens[i].first:
            i += 1
            continue
        j = i
        while (
            j + 1 < len(tokens)
            and namelike(tokens[j + 1])
            and clause[tokens[j].end : tokens[j + 1].start] == " "
        ):
            j += 1
        k = i - 1
        while k >= 0 and tokens[k].text.lower() in _TOOL_SKIPPED:
            k -= 1
        name = clause[tokens[i].start : tokens[j].end]
        after_intro = k >= 0 and tokens[k].text.lower() in _TOOL_INTRO
        introduced = after_intro and bool(_TOOL_VERB.search(clause[: tokens[k].end]))
        listed = previous_end >= 0 and bool(_LIST.match(clause[previous_end : tokens[i].start]))
        # "cellar inventory in BinWise": a name written as a product's, in a note's fragment
        whole = sentence or clause
        product = after_intro and _camel(name) and _fragment(whole)
        # a note's fragment about the person's own work ("daily work in IDeaS and Duetto")
        about_me = _fragment(whole) and not names_company(whole, facts.hiring_company)
        if (introduced or listed or product) and (
            product or about_me or _claims(clause, tokens[i].start, whole)
        ):
            previous_end = tokens[j].end
            key = fold(name)
            if not listed:
                places = set(key.split()) <= facts.places
            if (
                key
                and not places
                and key not in SKILLS
                # an employer is the employment check's; "in Datamine Studio RM" is a tool's place
                and (not organisation_like(name) or tokens[k].text.lower() in {"in", "using", "via"})
                and (contains(facts.listing_text, key) or _in_no_source(name, facts))
                and not facts.has_skill(key)
                and not set(key.split()) & set(facts.hiring_company.split())
                and not set(key.split()) <= facts.listing_places
                and not set(key.split()) <= facts.listing_lower
            ):
                found.append(name)
        else:
            previous_end = -1
        i = j + 1
    return found


def _camel(name: str) -> bool:
    """A name written as a product's, with a capital inside a word: "BinWise", "ezyVet", "CostX"."""
    return any(_INNER_CAPITAL.search(w) and not _SURNAME_PREFIX.match(w) for w in name.split())


_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


_SURNAME_PREFIX = re.compile(r"^(?:Mc|Mac|O'|D'|De|Di|Da|La|Le|Van|Von)[A-Z]")


def _fragment(sentence: str) -> bool:
    """A note's fragment (`wished.fragment`) with no gap word either."""
    return fragment(sentence) and not GAP.search(sentence)


def _in_no_source(name: str, facts: Facts) -> bool:
    """Whether a tool's name carries a word no source writes that is no common word of the
    letter's languages, no place and nobody's name ("Cubit", "Datamine Studio RM", "BinWise").
    In a language that capitalises every noun, a capital letter says nothing, and none is read."""
    if facts.language in NOUNS_CAPITALISED:
        return False
    for word in name.split():
        key = fold(word)
        if (
            key
            and len(key) > 2
            and key not in facts.vocabulary
            and key not in facts.places
            and key not in facts.person_names
            and not is_common(bare(word), facts.languages)
        ):
            return True
    return False


def listed_with_held(clause: str, sentence: str, facts: Facts) -> list[str]:
    """Terms listed right after one the profile holds ("hands-on PAUT and TOFD", "in oak,
    concrete and amphora") that are the listing's wish or an acronym no source writes: claimed
    with the rest of the list, in a first-person clause, or in a sentence with no subject but the
    person (a note's fragment), with no gap, wish or "your" in it."""
    if _NOT_HELD.search(clause):
        return []
    note = _fragment(sentence)
    tokens = words(clause)
    found: list[str] = []
    for i, word in enumerate(tokens[1:], start=1):
        j = i - 1 if tokens[i - 1].text not in {"and", "or", "&"} else i - 2
        before = tokens[max(j, 0)]
        if j < 0 or not _LIST.match(clause[before.end : word.start]):
            continue
        token, key = word.text.rstrip("."), fold(word.text)
        if (
            not key
            or contains(facts.profile_text, key)
            or not contains(facts.profile_text, fold(before.text))
        ):
            continue
        wished = any(k.lower() == token.lower() for k in facts.wished)
        acronym = (
            token.isupper()
            and token.isalpha()
            and len(token) >= 3
            and token not in facts.names
            and f"~{key}" not in facts.names
            and token not in GENERIC_ACRONYMS
            and key not in CERTIFICATIONS
            and key not in facts.vocabulary
        )
        if (wished or acronym) and (claims(clause, word.start) or note):
            found.append(token)
    return found


# "With two years of Snowflake behind me", "5+ years of Kafka": experience of a tool, whoever the
# clause's subject
_YEARS_OF = re.compile(
    r"\b(?:\d+\+?|one|two|three|four|five|six|seven|eight|nine|ten|several|many)\s+(?:years?|months?)"
    r"\s+of\s+(?:hands-on\s+|production\s+)?(?:experience\s+(?:with|in|on)\s+)?$",
    re.IGNORECASE,
)


def _experience_of(clause: str, at: int) -> bool:
    """Whether a clause gives the person years of the tool at `at`, with no gap, wish or "you" in
    the phrase that says so (up to the next comma)."""
    comma = re.search(r"[,;]", clause[at:])
    phrase = clause[: at + comma.start()] if comma else clause
    return (
        bool(_YEARS_OF.search(clause[:at]))
        and not GAP.search(phrase)
        and not _NOT_HELD.search(phrase)
        and not YOURS.search(phrase)
    )


# "I have responded to 2,400 incidents, gained experience in ...": a verb of the person's list
_NEEDS = re.compile(r"\b(?:needs?|wants?|asks?\s+for|looking\s+for|requires?|mentions?|seeks?)\b", re.I)
_LISTED_VERB = re.compile(r"^\s*(?:and\s+)?(?:also\s+)?[a-z]+ed\b")


def _wished_done(clause: str, facts: Facts, sentence: str = "") -> list[str]:
    """The listing's wishes in words ("laser-assisted periodontal therapy") said as done: in a
    clause about the person's work, with no gap or wish."""
    folded = f" {fold(clause)} "
    found: list[str] = []
    for phrase in facts.wished_phrases:
        at = folded.find(f" {phrase} ")
        if at < 0:
            continue
        # where the phrase stands in the clause as written: after as many words as it has before it
        before = len(folded[:at].split())
        tokens = words(clause)
        start = tokens[before].start if before < len(tokens) else len(clause)
        if _NEEDS.search(clause[:start]):
            continue  # "I know Te Aro needs someone familiar with the refreshed curriculum"
        listed = bool(_LISTED_VERB.match(clause)) and bool(FIRST_PERSON.search(sentence))
        if claims(clause, start) or _experience_of(clause, start) or (listed and not GAP.search(clause)):
            found.append(phrase)
    return found


def check_skills(text: str, facts: Facts) -> Check:
    """Every skill claimed as the person's is one the profile holds."""
    bad: list[str] = []
    for sentence in sentences(text):
        for clause in clauses(sentence):
            for key, written, at in skills_in(clause):
                if not facts.has_skill(key) and (claims(clause, at) or _experience_of(clause, at)):
                    bad.append(written)
            bad += listing_tools(clause, facts, sentence)
            bad += [n for n in listed_with_held(clause, sentence, facts) if n not in bad]
            bad += _wished_done(clause, facts, sentence)
            bad += [  # a tool only the listing's "nice to have" names
                n
                for n in wished_in(clause, facts.wished, credential=False)
                if held(sentence, n, facts.hiring_company)
            ]
            if _SPEAKS.search(clause) and FIRST_PERSON.search(clause) and not GAP.search(clause):
                for word in words(clause):
                    key = word.text.lower()
                    if key in LANGUAGES and word.capitalised and not facts.has_skill(key):
                        bad.append(word.text)
    # "CMS Certified Sommelier" for the profile's Court of Master Sommeliers - Certified Sommelier
    bad = [b for b in bad if not (" " in b and held_as_unit(b, facts.credential_units))]
    # "MedDRA-coded case series" when the profile holds MedDRA coding: the skill, as an adjective
    bad = [
        b
        for b in bad
        if not re.fullmatch(r"[\w.+#]+-[a-z]+ed", b)
        or not contains(facts.profile_text, fold(b.split("-")[0]))
    ]
    return verdict(
        "skills",
        bad,
        lambda shown: f"claims you have used {shown}, which your profile does not list",
        quote=False,
    )
