"""Skills: the tools, languages and platforms a draft says the person has used.

A skill is a phrase of the tool vocabulary (`vocabulary.SKILLS`: Kubernetes, Terraform, PyMC,
Looker, Power BI ...) or a spoken language. Named in a clause about the person's own work ("I
operate Kubernetes clusters", "at Havenlijn we run on Terraform", "I speak Portuguese") it must be
one the profile holds, under its name or a synonym (Go/Golang, Postgres/PostgreSQL, k8s). A skill
the listing asks for may be named as something to learn, a gap, or the employer's ("your
Kubernetes platform", "I have not used Looker yet", "Terraform is new to me"): only a clause with
no such word and a first-person subject claims it.
"""

from __future__ import annotations

import re

from jobsearch.draft.checks.claims import claims
from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.text import clauses, fold, sentences, words
from jobsearch.draft.checks.verdict import verdict
from jobsearch.draft.checks.vocabulary import AMBIGUOUS_SKILLS, FIRST_PERSON, GAP, LANGUAGES, SKILLS
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
            if size == 1 and key in AMBIGUOUS_SKILLS and not written_as_name and len(phrase) > 1:
                continue  # "go", "spark", "excel" in lower case are words; "R" and "C" are skills
            found.append((key, phrase, tokens[i].start))
            i += size - 1
            break
        i += 1
    return found


def check_skills(text: str, facts: Facts) -> Check:
    """Every skill claimed as the person's is one the profile holds."""
    bad: list[str] = []
    for sentence in sentences(text):
        for clause in clauses(sentence):
            for key, written, at in skills_in(clause):
                if not facts.has_skill(key) and claims(clause, at):
                    bad.append(written)
            if _SPEAKS.search(clause) and FIRST_PERSON.search(clause) and not GAP.search(clause):
                for word in words(clause):
                    key = word.text.lower()
                    if key in LANGUAGES and word.capitalised and not facts.has_skill(key):
                        bad.append(word.text)
    return verdict(
        "skills",
        bad,
        lambda shown: f"claims you have used {shown}, which your profile does not list",
        quote=False,
    )
