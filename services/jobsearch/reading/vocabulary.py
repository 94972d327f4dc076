"""The words dedupe's normalisation knows: legal forms, abbreviations, levels, places, trackers.

Plain data, kept apart from the code in `normalise` so that a word is added in one obvious place.
Every word here is in normal form (`normalise.text`: case folded, accents and dots removed).
"""

from __future__ import annotations

# fmt: off

# Legal forms as words after normalisation (dots removed first, so N.A. → na, S.A. → sa).
LEGAL_FORMS = frozenset((
    'a/s', 'ab', 'ag', 'aps', 'as', 'asa', 'bv', 'co', 'company', 'corp', 'corporation', 'eg', 'ev',
    'gmbh', 'group', 'haftungsbeschrankt', 'holding', 'holdings', 'inc', 'incorporated', 'kg', 'kgaa',
    'kk', 'limited', 'llc', 'llp', 'lp', 'ltd', 'mbh', 'na', 'nv', 'ohg', 'oy', 'oyj', 'plc', 'pte',
    'pty', 'sa', 'sarl', 'sas', 'sasu', 'se', 'sl', 'slu', 'sp', 'spa', 'srl', 'sro', 'ug', 'zoo',
))

# Written before or around the name in other scripts: 株式会社, 有限公司, OOO/OAO/ZAO/PAO/AO, شركة.
LEGAL_AFFIXES = (
    "\u682a\u5f0f\u4f1a\u793e", "\u6709\u9650\u4f1a\u793e", "\u5408\u540c\u4f1a\u793e",
    "\u6709\u9650\u516c\u53f8", "\u80a1\u4efd\u6709\u9650\u516c\u53f8", "\u043e\u043e\u043e",
    "\u043e\u0430\u043e", "\u0437\u0430\u043e", "\u043f\u0430\u043e", "\u0430\u043e",
    "\u0634\u0631\u0643\u0629",
)

# Words a company adds to its name beside the short name its board's URL uses: "Harborlight AI"
# on an aggregator is "harborlight" on Ashby (`match.same_company`).
COMPANY_WORDS = frozenset((
    'ai', 'analytics', 'app', 'apps', 'bank', 'bio', 'capital', 'cloud', 'data', 'digital', 'energy',
    'finance', 'foods', 'freight', 'games', 'health', 'hq', 'insurance', 'io', 'labs', 'logistics',
    'media', 'mobility', 'pay', 'payments', 'robotics', 'security', 'software', 'studio', 'studios',
    'systems', 'tech', 'technologies', 'technology', 'therapeutics',
))

# The words of those that say nothing about what a company does: any name and the same name with
# one of them are one company, slug or not ("Nettlebank" / "Nettlebank Technologies"), while a
# word that names a trade keeps two names apart unless one is a board's slug ("Hexaplane" /
# "Hexaplane Health").
GENERIC_COMPANY_WORDS = frozenset((
    'hq', 'labs', 'lab', 'software', 'solutions', 'systems', 'tech', 'technologies', 'technology',
))

# Legal forms written as several words (after dots are dropped): "sp. z o.o." → "sp z oo".
LEGAL_PHRASES = ('sp z oo', 'sp k', 's de rl', 'sa de cv', 's r o', 'pty ltd')

# Remote and office markers in titles and places: "(Remote)", "- Remote, EU", "WFH", "Hybrid".
REMOTE_WORDS = frozenset((
    'anywhere', 'distributed', 'homeoffice', 'hybrid', 'onsite', 'remote', 'remotely', 'telecommute',
    'wfh', 'worldwide',
))

# Title words spelled out (an empty value drops the word: filler and stray gender letters).
ABBREVIATIONS = {
    'sr': 'senior', 'snr': 'senior', 'jr': 'junior', 'jnr': 'junior', 'eng': 'engineer',
    'engr': 'engineer', 'dev': 'developer', 'devs': 'developers', 'mgr': 'manager', 'mngr': 'manager',
    'swe': 'software engineer', 'sw': 'software', 'sde': 'software engineer', 'assoc': 'associate',
    'admin': 'administrator', 'ops': 'operations', 'fullstack': 'full stack', 'frontend': 'front end',
    'backend': 'back end', 'devops': 'devops', 'k8s': 'kubernetes', 'ml': 'machine learning',
    'sre': 'site reliability engineer', 'qa': 'quality assurance', 'ux': 'user experience',
    'golang': 'go', 'infra': 'infrastructure', 'mle': 'machine learning engineer',
    'sdet': 'software engineer in test', 'devrel': 'developer relations', 'ui': 'user interface',
    'sdr': 'sales development representative', 'bdr': 'business development representative',
    'csm': 'customer success manager', 'rep': 'representative', 'reps': 'representatives',
    'mgmt': 'management', 'dir': 'director', 'hw': 'hardware', 'hr': 'human resources',
    'dba': 'database administrator', 'infosec': 'information security',
    'appsec': 'application security',
    'optimization': 'optimisation', 'js': 'javascript', 'ii': '2', 'iii': '3', 'iv': '4', 'and': '',
    'at': '', 'for': '', 'of': '', 'the': '', 'is': '', 'we': '', 'are': '', 'hiring': '', 'job': '',
    'position': '', 'role': '', 'opening': '', 'vacancy': '', 'wanted': '', 'a': '', 'm': '', 'w': '',
    'f': '', 'd': '',
}

# Level words: two titles with different levels are different jobs.
LEVEL_WORDS = {
    'intern': 'intern', 'internship': 'intern', 'trainee': 'intern', 'praktikant': 'intern',
    'werkstudent': 'intern', 'junior': 'junior', 'entry': 'junior', 'graduate': 'junior', 'mid': 'mid',
    'intermediate': 'mid', 'senior': 'senior', 'confirme': 'senior', 'staff': 'staff',
    'principal': 'principal', 'distinguished': 'principal', 'lead': 'lead', 'head': 'manager',
    'director': 'manager', 'vp': 'manager', 'manager': 'manager',
}

# Words most titles share: they do not tell two jobs at one company apart, so candidates for fuzzy
# matching are blocked on a title's other words (`normalise.title_tokens`).
GENERIC_TITLE_WORDS = frozenset((
    'engineer', 'engineers', 'engineering', 'developer', 'developers', 'development', 'software',
    'programmer', 'specialist', 'expert', 'professional', 'associate', 'consultant', 'member',
    'staff', 'team', 'technical', 'tech', 'senior', 'junior', 'remote', 'hybrid', 'm', 'w', 'd', 'f',
    'x', 'in', 'with', 'on', 'to',
))

# Words that name one role however a company writes it: "Backend Developer" = "Backend Engineer".
ROLE_SYNONYMS = {
    'developer': 'engineer', 'developers': 'engineers', 'programmer': 'engineer',
    'programmers': 'engineers',
}

# A title's last word as a level ("Engineer II" → 2 after ABBREVIATIONS).
NUMERAL_LEVELS = frozenset((
    '1', '2', '3', '4', '5', '6', '7', '8', '9', 'i',
))

# City names in other languages, to one spelling.
EXONYMS = {
    'munchen': 'munich', 'koln': 'cologne', 'wien': 'vienna', 'zurich': 'zurich',
    'nurnberg': 'nuremberg', 'praha': 'prague', 'warszawa': 'warsaw', 'krakow': 'krakow',
    'lisboa': 'lisbon', 'milano': 'milan', 'roma': 'rome', 'kobenhavn': 'copenhagen',
    'goteborg': 'gothenburg', 'den haag': 'the hague', 's gravenhage': 'the hague',
    'bruxelles': 'brussels', 'brussel': 'brussels', 'geneve': 'geneva',
    'frankfurt am main': 'frankfurt', 'nyc': 'new york', 'new york city': 'new york',
    'sf': 'san francisco', 'montreal': 'montreal', 'bengaluru': 'bangalore',
}

# The continent of a country or region, so that "Remote - Europe" and "Remote - USA" differ. A
# region spanning two ("Americas") names both.
CONTINENTS = {
    'europe': frozenset((
        'austria', 'baltics', 'belgium', 'benelux', 'bulgaria', 'cee', 'croatia', 'czech republic',
        'czechia', 'dach', 'de', 'denmark', 'deutschland', 'emea', 'england', 'estonia', 'eu',
        'europe', 'european union', 'finland', 'france', 'gb', 'germany', 'great britain', 'greece',
        'hungary', 'ireland', 'italy', 'latvia', 'lithuania', 'luxembourg', 'netherlands', 'nl',
        'nordics', 'northern ireland', 'norway', 'poland', 'portugal', 'romania', 'scandinavia',
        'scotland', 'serbia', 'slovakia', 'slovenia', 'spain', 'sweden', 'switzerland',
        'the netherlands', 'uk', 'ukraine', 'united kingdom', 'wales',
    )),

    'north america': frozenset((
        'america', 'americas', 'canada', 'north america', 'united states',
        'united states of america', 'us', 'usa',
    )),

    'latin america': frozenset((
        'americas', 'argentina', 'brazil', 'central america', 'chile', 'colombia', 'costa rica',
        'latam', 'latin america', 'mexico', 'peru', 'south america', 'uruguay',
    )),

    'asia pacific': frozenset((
        'anz', 'apac', 'asia', 'asia pacific', 'australia', 'china', 'hong kong', 'india',
        'indonesia', 'japan', 'korea', 'malaysia', 'new zealand', 'oceania', 'pakistan',
        'philippines', 'singapore', 'south korea', 'taiwan', 'thailand', 'vietnam',
    )),

    'middle east and africa': frozenset((
        'africa', 'egypt', 'emea', 'israel', 'kenya', 'mea', 'mena', 'middle east', 'nigeria',
        'saudi arabia', 'south africa', 'turkey', 'uae', 'united arab emirates',
    )),
}

# Countries and regions: a place naming only these names no city.
REGIONS = frozenset((
    'global', 'international', *(name for names in CONTINENTS.values() for name in names),
))

# Words that qualify a region without changing it: "USA Only", "Europe based".
REGION_QUALIFIERS = frozenset((
    'based', 'only',
))

# Words of a location that name no place: a schedule ("ONSITE (hybrid, 3 days)") or an office.
PLACE_FILLER = frozenset((
    'a', 'day', 'days', 'hq', 'in', 'month', 'months', 'office', 'per', 'week', 'weekly', 'weeks',
))

# A term of employment in a title's tag: "(Contract, 6 months)".
DURATION_WORDS = frozenset((
    'month', 'months', 'week', 'weeks', 'year', 'years',
))

# Letters without a Unicode decomposition, as Latin letters ("Øresund" = "Oresund").
TRANSLITERATIONS = str.maketrans({
    'ø': 'o', 'æ': 'ae', 'œ': 'oe', 'ß': 'ss', 'đ': 'd', 'ł': 'l', 'þ': 'th', 'ð': 'd', '\u0131': 'i',
})

# Employment types, to one of full_time, part_time, contract, intern.
EMPLOYMENT = {
    'full time': 'full_time', 'fulltime': 'full_time', 'permanent': 'full_time',
    'vollzeit': 'full_time', 'festanstellung': 'full_time', 'cdi': 'full_time',
    'part time': 'part_time', 'parttime': 'part_time', 'teilzeit': 'part_time', 'contract': 'contract',
    'contractor': 'contract', 'freelance': 'contract', 'temporary': 'contract',
    'fixed term': 'contract', 'intern': 'intern', 'internship': 'intern', 'praktikum': 'intern',
    'working student': 'intern', 'werkstudent': 'intern',
}

# Hosts that serve the same postings under two names.
HOST_ALIASES = {
    'job-boards.greenhouse.io': 'boards.greenhouse.io',
    'job-boards.eu.greenhouse.io': 'boards.eu.greenhouse.io',
    'boards-api.greenhouse.io': 'boards.greenhouse.io', 'jobs.eu.lever.co': 'jobs.lever.co',
}

# Boards whose posting URL names the job itself: an aggregator's text linking there is a cross-post.
ATS_HOSTS = (
    'greenhouse.', 'lever.', 'ashbyhq.', 'ashby.', 'workable.', 'smartrecruiters.', 'recruitee.',
)

# fmt: on
