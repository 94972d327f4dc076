"""Claim positions: where in a sentence a capitalised name says something about the person.

An unknown capitalised word is not by itself an invention: letters are full of short forms,
colloquial names, trade acronyms and greetings no source spells ("Kobe Gaidai", "QBRs", "DMAIC",
"Yoroshiku"). A name claims something when it stands where a letter puts an employer, a client, a
school, a tool or a person:

- after a word that introduces one: "at X", "for X", "with X", "from X", "joined X", "to X",
  "among them X", "including X", and the names listed after it ("at Odrabit, Wawelsoft and,
  briefly, Allegro");
- as a possessive: "X's payouts team";
- in a salutation ("Dear X", "Kia ora X", "Guten Tag Frau X") or with an honorific ("Dr. X",
  "Ms X", "X-san");
- as a reference or a referral: "X, my head of production, ...", "my lead, X, ...", "under the
  head winemaker, X", "X, who heads ...", "X suggested I get in touch", "X ... has offered to act
  as a reference";
- after a first-person subject or possessive: "I led X", "I'm a X grad", "my biggest account was
  X", and a name followed by "alum" or "grad";
- or when the name carries a word that makes it an organisation, a school or a certification:
  "Beacon Hospital", "Strathmore University", "Google ... Professional Certificate";
- or after a place of work: "the pastry kitchen of the Baur au Lac".

Any other unknown capitalised word is unclaimed and passes: a sentence's subject ("Kobe Gaidai
taught me ...", "Ontario and BC would be new"), a product beside a noun ("DMG Mori/Hermle
machines"), an acronym of the trade.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.text import Word

_INTRODUCERS = frozenset(
    {
        "at", "for", "with", "from", "joined", "join", "joining", "to", "by", "under", "via",
        "including", "includes", "included", "alongside", "holding", "bei", "für", "von", "vom", "chez",
        "para", "com", "con", "en", "na", "no", "da", "do",
    }
)  # fmt: skip
_SKIPPED = frozenset({"the", "a", "an", "both", "also", "then", "later", "briefly"})
_PAIRS = frozenset({"such as", "clients like", "customers like"})  # "customers such as Adient"
# Greeting formulas, folded, longest first: what opens a salutation before the name.
_GREETINGS = sorted(
    (
        tuple(g.split())
        for g in (
            "dear", "hi", "hello", "hey", "hiya", "howdy", "greetings", "good morning",
            "good afternoon", "good evening", "morning", "kia ora", "tēnā koe", "tena koe",
            "g'day", "gday", "habari", "jambo", "hujambo", "namaste", "namaskar", "vanakkam",
            "olá", "ola", "oi", "bom dia", "boa tarde", "prezado", "prezada", "caro", "cara",
            "hola", "buenos días", "buenos dias", "buenas tardes", "estimado", "estimada",
            "querido", "querida", "bonjour", "bonsoir", "cher", "chère", "salut", "ciao",
            "buongiorno", "gentile", "hallo", "liebe", "lieber", "guten tag", "guten morgen",
            "sehr geehrte", "sehr geehrter", "moin", "servus", "grüezi", "beste", "hoi", "hej",
            "hei", "ahoj", "dzień dobry", "szanowna pani", "szanowny panie", "salam", "salaam",
            "assalamu alaikum", "sawubona", "konnichiwa", "annyeong",
        )
    ),
    key=len,
    reverse=True,
)  # fmt: skip
HONORIFICS = frozenset(
    {
        "dr", "mr", "mrs", "ms", "mx", "miss", "prof", "professor", "frau", "herr", "me", "madame",
        "monsieur", "mme", "mlle", "sr", "sra", "srta", "señor", "señora", "dona", "dom", "sig",
        "signora", "signor", "pan", "pani", "panie", "sir", "madam", "dame", "rev", "eng", "ing",
    }
)  # fmt: skip
HONORIFIC_SUFFIX = re.compile(r"-(?:san|sama|sensei|kun|ji|ssi|nim)$", re.IGNORECASE)
_APPOSITION_AFTER = re.compile(r"^\s*,\s*(?:my|our|the|who|whom|whose|a|an|his|her|their|who's)\b", re.I)
# "my lead, X", "under the head winemaker, X": a person named after the post they held over one
_APPOSITION_BEFORE = re.compile(
    r"\b(?:my|our|(?:under|with|for|to|from|by)\s+(?:the|a|an))\s+(?:[\w'-]+\s+){0,4}?[\w'-]+(?:\s+there)?\s*,\s*$",
    re.I,
)
_REFERRAL = re.compile(
    r"^(?:\s+[\w'-]+){0,7}?\s+(?:suggested|mentioned|told|recommended|referred|introduced|pointed|"
    r"encouraged|said|put\s+me|passed\s+on|forwarded|shared|offered|agreed|volunteered)\b",
    re.IGNORECASE,
)
_FIRST_PERSON_BEFORE = re.compile(
    r"(?:\b(?:I|[Ww]e)(?:['\u2019](?:ve|m|d|ll|re))?|\b(?:[Mm]y|[Oo]ur)(?:\s+[\w'-]+){1,3}\s+(?:was|were|is|are|"
    r"included|includes|became))(?:\s+[\w'-]+){0,3}\s+$"
)
_ALUM_AFTER = re.compile(r"^\s+(?:[\w'-]+\s+)?(?:alum|alumna|alumnus|alumni|grad|graduate)\b", re.I)
# "the pastry kitchen of the Baur au Lac", "the sales team of X": a place of work by its name
_WORKPLACE_OF = re.compile(
    r"\b(?:kitchens?|teams?|offices?|labs?|laborator(?:y|ies)|wards?|branch(?:es)?|departments?|"
    r"stores?|shops?|restaurants?|hotels?|clinics?|plants?|factor(?:y|ies)|workshops?|studios?)"
    r"\s+(?:of|at)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_CERTIFIED_AFTER = re.compile(r"^\s+(?:certified|certificate|certification|accredited|accreditation)\b", re.I)
_AMONG_AFTER = re.compile(r"^\s+(?:among\s+them|among\s+others|included|amongst\s+them)\b", re.I)
_CONTINUES = re.compile(
    r"^[\s,/&]*(?:\b(?:and|or)\b[\s,]*)?(?:(?:[a-z]+ly|then|later|also|now|finally)[\s,]+)?$"
)
# Words that make a capitalised run an organisation, a school or a certification.
_HEAD_WORDS = frozenset(
    {
        "university", "universität", "universidad", "universidade", "université", "università",
        "college", "school", "institute", "institut", "academy", "polytechnic", "hochschule", "cégep",
        "hospital", "hospitals", "clinic", "clinics", "bank", "group", "ltd", "inc", "gmbh", "llp",
        "llc", "plc", "labs", "partners", "consulting", "consultants", "solutions", "studio",
        "studios", "agency", "foundation", "education", "energy", "capital", "health", "healthcare",
        "systems", "technologies", "software", "services", "entertainment", "homes", "avocats",
        "associates", "corp", "limited", "ventures", "holdings", "industries", "corporation",
        "company", "council",
        "ministry", "authority", "trust", "certificate", "certified", "certification", "belt",
        "diploma", "accreditation", "pty", "s.a", "sa", "ag", "bv", "oy", "ab", "srl", "spa",
    }
)  # fmt: skip


def greeting_length(tokens: list[Word]) -> int:
    """How many words of a sentence are its greeting formula ("Guten Tag", "Kia ora"): 0 when the
    sentence opens with no greeting."""
    lowered = [w.bare.lower() for w in tokens]
    for formula in _GREETINGS:
        if tuple(lowered[: len(formula)]) == formula:
            return len(formula)
    return 0


def organisation_like(name: str) -> bool:
    """Whether a name carries a word of an organisation, a school or a certification."""
    return any(w.lower().strip(".,") in _HEAD_WORDS for w in name.split())


def _head_word(run: list[Word]) -> bool:
    return any(w.bare.lower() in _HEAD_WORDS or w.text.lower().endswith("-certified") for w in run)


def claimed(sentence: str, tokens: list[Word], first: int, last: int, previous: bool) -> bool:
    """Whether the run of words `tokens[first..last]` of `sentence` stands in a claim position;
    `previous` says whether the run before it in the sentence did and nothing but a list's
    separator stands between them (then this one continues the list)."""
    run = tokens[first : last + 1]
    before = sentence[: run[0].start]
    after = sentence[run[-1].end :]
    k = first - 1
    while k >= 0 and tokens[k].text.lower() in _SKIPPED:
        k -= 1
    introduced = k >= 0 and tokens[k].text.lower() in _INTRODUCERS and tokens[k].end <= run[0].start
    # "customers such as Adient", "clients like Globex"
    introduced = introduced or (
        k >= 1
        and f"{tokens[k - 1].text} {tokens[k].text}".lower() in {"such as", "clients like", "customers like"}
    )
    greeting = greeting_length(tokens)
    honorific = (
        run[0].bare.lower().rstrip(".") in HONORIFICS
        or (first > 0 and tokens[first - 1].bare.lower().rstrip(".") in HONORIFICS)
        or any(HONORIFIC_SUFFIX.search(w.bare) for w in run)
    )
    possessive = run[-1].text.replace("\u2019", "'").endswith(("'s", "s'"))
    return (
        introduced
        or possessive
        or honorific
        or (greeting > 0 and first == greeting)
        or bool(_APPOSITION_AFTER.match(after) or _APPOSITION_BEFORE.search(before))
        or bool(_REFERRAL.match(after))
        or bool(_FIRST_PERSON_BEFORE.search(before))
        or bool(_WORKPLACE_OF.search(before))
        or bool(_ALUM_AFTER.match(after) or _AMONG_AFTER.match(after) or _CERTIFIED_AFTER.match(after))
        or _head_word(run)
        or (previous and bool(_CONTINUES.match(_between(sentence, tokens, first))))
    )


def _between(sentence: str, tokens: list[Word], first: int) -> str:
    """The text between a run and the capitalised word before it."""
    k = first - 1
    while k >= 0 and not (tokens[k].capitalised or namelike(tokens[k])):
        k -= 1
    return sentence[tokens[k].end : tokens[first].start] if k >= 0 else "x"


def namelike(word: Word) -> bool:
    """Whether a word is written as a name: capitalised, or with a capital inside it ("ezyVet",
    "hyperMILL", "iManage", "memoQ")."""
    text = word.text
    return text[:1].isupper() or (text[:1].islower() and any(c.isupper() for c in text[1:]))
