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

# Countries and regions: a place naming only these names no city.
REGIONS = frozenset((
    'americas', 'apac', 'australia', 'austria', 'belgium', 'benelux', 'brazil', 'canada',
    'czech republic', 'czechia', 'dach', 'de', 'denmark', 'deutschland', 'emea', 'england', 'eu',
    'europe', 'finland', 'france', 'gb', 'germany', 'global', 'great britain', 'india',
    'international', 'ireland', 'italy', 'japan', 'latam', 'mexico', 'netherlands', 'new zealand',
    'nl', 'nordics', 'north america', 'norway', 'poland', 'portugal', 'scotland', 'singapore',
    'south africa', 'spain', 'sweden', 'switzerland', 'the netherlands', 'uk', 'united kingdom',
    'united states', 'us', 'usa',
))

# The continent of a country or region, so that "Remote - Europe" and "Remote - USA" differ.
CONTINENTS = {
    'europe': frozenset((
        'austria', 'belgium', 'benelux', 'czech republic', 'czechia', 'dach', 'de', 'denmark',
        'deutschland', 'emea', 'england', 'eu', 'europe', 'finland', 'france', 'gb', 'germany',
        'great britain', 'ireland', 'italy', 'netherlands', 'nl', 'nordics', 'norway', 'poland',
        'portugal', 'scotland', 'spain', 'sweden', 'switzerland', 'the netherlands', 'uk',
        'united kingdom',
    )),

    'north america': frozenset((
        'america', 'canada', 'north america', 'united states', 'us', 'usa',
    )),

    'latin america': frozenset((
        'brazil', 'latam', 'latin america', 'mexico', 'south america',
    )),

    'asia pacific': frozenset((
        'apac', 'australia', 'india', 'japan', 'new zealand', 'singapore',
    )),
}

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
