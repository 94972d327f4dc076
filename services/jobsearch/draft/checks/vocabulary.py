"""The words the checks know without a profile: what opens a sentence, what a letter's greeting and
sign-off say, what a skill, a language, a certification, a degree and a job title look like, and
how a sentence says "I have it" or "I do not have it yet".

Written from general knowledge of cover letters and of the tools job postings ask for, not from
the labelled sets; a word missing here costs a false alarm or a miss, never a crash.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.text import fold
from jobsearch.reading.skills import AMBIGUOUS_SKILLS, SKILL_NAMES

__all__ = ["AMBIGUOUS_SKILLS", "SKILLS", "WORDS_TOO"]  # re-exported for the checks


def _words(text: str) -> frozenset[str]:
    """The words of a block of text, as a set."""
    return frozenset(text.split())


# Words that may open a sentence (or stand capitalised in a greeting or sign-off) without being a
# name. A sentence's first word is a name only when it is none of these and not a word the
# profile, the listing or the draft itself uses in lower case.
COMMON = _words(
    """
    a about above across after afterwards again against ahead all almost along alongside already
    also although always among an and another any anything apart around as at away back based
    because before behind being below beside besides best between beyond both briefly but by can
    certainly clearly could currently day days dear during each early earlier either else elsewhere
    enclosed equally especially even ever every everything excited finally first for former
    frankly from further given glad good grateful great had happy has have having he hello her here
    hey hi his honestly how however i if ideally in including indeed instead it its just kind last
    lastly later let like looking many may maybe meanwhile more moreover most much my myself
    naturally neither never next no none nor not now of often on once one only or other otherwise
    our outside over overall perhaps please plus previously put quite rather really recently
    regards right second she short should similarly since so some sometimes soon still such
    sure thank thanks that the their them then there therefore these they third this those though
    through throughout thus to today together too two under unlike until up upon us very was we
    well were what whatever when where whereas whether which while who whom whose why will with
    within without would yes yet you your yours yourself cheers sincerely warm warmest warmly
    respectfully faithfully truly best wishes greetings kindest onwards p.s ps re subject attached
    reading having working building leading running owning joining moving bringing seeing learning
    making taking growing spending starting hoping writing applying following thinking speaking
    three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
    thousand million half
    experience skills education background summary profile requirements responsibilities role
    what why how who write contact reach email call apply visit see find feel note get send ask
    things areas reasons skills tools gaps highlights impact results strengths projects examples
    questions points notes goals plans numbers figures details facts work career qualifications
    languages certifications availability location salary pay timing references links contact
    outside inside beyond happily personally professionally technically specifically generally
    fluent strong solid good great proven hands-on relevant recent earlier later prior key main
    """
)

# Greetings and sign-offs in the languages a letter is written in (a Spanish or German letter, or
# an English one with a sign-off in the writer's language).
GREETINGS = _words(
    """
    com os melhores cumprimentos atenciosamente abraço abraços beijos até logo cordiali
    hola buenos buenas días dias saludos gracias muchas un una abrazo atentamente cordialmente
    estimado estimada estimados querido querida equipo hallo liebe lieber liebes sehr geehrte
    geehrter geehrtes grüße grusse grüßen viele beste herzliche freundliche danke moin servus
    bonjour bonsoir cordialement merci madame monsieur chère cher ciao salve buongiorno grazie
    distinti saluti olá obrigado obrigada hej tack groeten beste met vriendelijke
    """
)

# Capitalised words that name nothing a draft could invent about the person: calendar words, the
# parts of "Dear Hiring Team", honorifics.
GENERIC_CAPS = _words(
    """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday
    saturday sunday hiring team manager managers recruiter recruiting recruitment talent people
    hr sir madam mr mrs ms mx dr prof st committee panel colleagues friends folks all everyone
    uni tech linkedin github cv resume résumé portfolio ps p.s q1 q2 q3 q4 am pm eu uk us usa emea
    apac latam am
    """
)

# Acronyms of the trade that no letter needs a source for.
GENERIC_ACRONYMS = _words(
    """
    API APIs REST CI CD UI UX AI ML KPI KPIs OKR OKRs SLA SLAs SLO SLOs SLI ETL ELT B2B B2C SaaS
    MVP QA PR PRs RFC RFCs FAQ ROI IT IoT OS SDK SDKs CLI HTTP HTTPS JSON XML CSV PDF HTML CSS SQL
    NoSQL OOP TDD DDD CRUD SRE DevOps FinOps MLOps PhD MBA MSc BSc MA BA CEO CTO CFO COO VP
    """
)

# Languages and what a person says they speak.
# Languages that capitalise every noun (German, Luxembourgish): there a capital letter says nothing.
NOUNS_CAPITALISED = frozenset({"de", "lb"})
LANGUAGES = _words(
    """
    english german french spanish italian portuguese dutch flemish danish swedish norwegian
    finnish icelandic polish czech slovak hungarian romanian bulgarian greek turkish russian
    ukrainian serbian croatian slovenian catalan basque galician irish welsh gaelic arabic hebrew
    persian farsi urdu hindi bengali punjabi tamil telugu kannada malayalam marathi gujarati
    chinese mandarin cantonese japanese korean vietnamese thai indonesian malay tagalog filipino
    swahili yoruba igbo hausa amharic zulu afrikaans estonian latvian lithuanian
    """
)

# What people of a country or region are called: a capitalised word that names no one.
DEMONYMS = _words(
    """
    american british english scottish welsh irish canadian mexican brazilian argentine argentinian
    chilean colombian peruvian venezuelan cuban latin european african asian nordic scandinavian
    german french spanish portuguese italian dutch belgian swiss austrian danish swedish norwegian
    finnish icelandic polish czech slovak hungarian romanian bulgarian greek turkish russian
    ukrainian serbian croatian slovenian baltic estonian latvian lithuanian israeli arab arabic
    egyptian moroccan nigerian kenyan ghanaian ethiopian indian pakistani bangladeshi nepali
    chinese japanese korean vietnamese thai filipino indonesian malaysian singaporean australian
    emirati saudi iranian iraqi lebanese jordanian quebecois québécois catalan basque galician
    """
)

# The tool vocabulary, folded as `text.fold` reads a draft ("next.js" -> "next js").
SKILLS = frozenset(fold(name) for name in SKILL_NAMES)
# Tools whose name is also an English word: in lower case they are the word ("an adaptive app",
# "a canvas", "the premiere"), with a capital letter the tool.
WORDS_TOO = AMBIGUOUS_SKILLS | _words(
    """
    adaptive articulate storyline canvas fusion premiere inventor room helm bamboo dagger thrift
    transformers manhattan sage maze dovetail travis playwright illustrator
    """
)

# Certifications by their usual short names; a phrase with "certified", "certificate",
# "certification" or "accredited" is one too.
CERTIFICATIONS = _words(
    """
    cka ckad cks pmp capm cissp cism cisa ccna ccnp ccie csm cspo psm pspo itil istqb oscp cceh
    ceh comptia security+ network+ a+ cpa cfa acca cima frm togaf prince2 safe lean six sigma
    """
)
CERTIFICATION_WORD = re.compile(
    r"\b(?:certified|certificate|certification|certifications|accredited|accreditation|"
    r"licensed|chartered|zertifiziert|zertifikat|certificado|certificada)\b",
    re.IGNORECASE,
)

# The head nouns of job titles (folded); a title is a phrase ending in one ("Data Scientist"), or
# "Head of ...".
ROLE_NOUNS = _words(
    """
    engineer engineers developer developers programmer scientist designer analyst analysts manager
    director architect consultant lead head officer researcher specialist administrator
    coordinator intern trainee apprentice associate nurse technician strategist owner founder
    cofounder co-founder cto ceo cfo coo cio vp president partner principal editor writer
    accountant auditor advisor adviser recruiter teacher lecturer professor assistant
    representative executive supervisor sre devops lieutenant sergeant corporal constable foreman
    forewoman foreperson superintendent chargehand
    commander
    """
)
# The two-letter codes of languages ("a sworn EN-ES interpreter", "EN>DE translation").
LANGUAGE_CODES = {
    "en": "english", "es": "spanish", "de": "german", "fr": "french", "it": "italian",
    "pt": "portuguese", "nl": "dutch", "pl": "polish", "cs": "czech", "sv": "swedish",
    "da": "danish", "fi": "finnish", "ru": "russian", "uk": "ukrainian", "ar": "arabic",
    "zh": "chinese", "ja": "japanese", "ko": "korean", "tr": "turkish", "el": "greek",
    "ro": "romanian", "hu": "hungarian", "ca": "catalan", "eu": "basque", "he": "hebrew",
}  # fmt: skip
# Words a letter writes short, with the word they stand for: in a title ("vet nurse", "Sr.
# Engineer"), a credential ("certified Admin") or a name ("Cert III" for Certificate III).
SHORT_WORDS = {
    "vet": "veterinary", "dev": "developer", "devs": "developers", "eng": "engineer", "mgr": "manager",
    "sr": "senior", "snr": "senior", "jr": "junior", "jnr": "junior", "admin": "administrator",
    "admins": "administrators", "rep": "representative", "exec": "executive", "asst": "assistant",
    "ops": "operations", "coord": "coordinator", "sparky": "electrician", "tech": "technician",
    "assoc": "associate", "cert": "certificate", "certs": "certificates", "dip": "diploma",
    "adv": "advanced", "mgmt": "management", "univ": "university", "dept": "department",
    "intl": "international", "govt": "government",
}  # fmt: skip
# Words a title may carry before its head noun without naming anything of its own.
TITLE_FILLER = frozenset({"a", "an", "the", "my", "our", "your", "their", "his", "her", "its", "this", "that",
                          "of", "and", "&"})  # fmt: skip
LEVELS = frozenset(
    {"junior", "mid", "senior", "staff", "principal", "lead", "head", "chief", "distinguished",
     "associate", "intern", "manager", "director"}
)  # fmt: skip

# How a clause says the person lacks something, or only wants it: a skill or certification named
# with one of these is a gap, not a claim.
GAP = re.compile(
    r"\b(?:not|never|no|none|yet|haven't|hasn't|hadn't|don't|doesn't|didn't|isn't|aren't|wasn't|"
    r"can't|cannot|lack|lacking|gap|gaps|without|new to me|new for me|newer to me|unfamiliar|learn|learning|"
    r"learned about|pick up|picking up|studying|would|will|want|wish|hope|hoping|keen|eager|"
    # "study" as a verb ("I will study X"), not the noun ("a sponsor's study", "the study")
    r"(?<!\ba\s)(?<!\bthe\s)(?<!'s\s)(?<!\bour\s)study|"
    # "plan" only as an intention ("planning to learn"), not the noun ("hands-on Maximo planning")
    r"plan(?:ning)?\s+(?:to|on)|plans?\s+to|intend|aim|aiming|towards|toward|looking forward|"
    r"curious|excited to|happy to|"
    r"ramp up|get up to speed|grow into|read up|familiarise|familiarize|brush up|only read|"
    r"limited|less experience|not used|have not|do not|did not|is not|are not|was not|new to|"
    r"on my list|rather than|instead of|other than|except|ready for|next step)\b|n't\b",
    re.IGNORECASE,
)
# How a clause speaks of the person's own work or holdings.
FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we've|we're|our|us)\b", re.IGNORECASE
)
# A negation that makes a degree or certification mentioned in the clause one the person lacks.
NEGATION = re.compile(
    r"\b(?:not|no|never|without|lack|lacking|instead of|rather than|haven't|hasn't|don't|didn't|"
    r"do not|did not|have not|neither|nor)\b|n't\b",
    re.IGNORECASE,
)

# A school's words in English, as a letter in English names it (folded)
SCHOOL_IN_ENGLISH = {
    **dict.fromkeys(
        ("universidad", "universidade", "universite", "universitat", "universita", "universiteit",
         "universitet", "uniwersytet", "univerzita"),
        "university",
    ),
    "escuela": "school", "escola": "school", "ecole": "school", "instituto": "institute",
    "istituto": "institute", "institut": "institute", "colegio": "college", "politecnico": "polytechnic",
    "politecnica": "polytechnic", "tecnologica": "technological", "tecnologico": "technological",
    "nacional": "national", "catolica": "catholic", "federal": "federal", "estadual": "state",
}  # fmt: skip
