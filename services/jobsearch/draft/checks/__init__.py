"""Deterministic checks of a draft before it is stored, whatever provider wrote it.

A draft is read as claims and compared with facts: the profile and the listing are the only
sources of truth (`facts.Facts`, built once per listing). Each check lists what it found, in words
the Review column shows and the second request to the provider repeats:

| check            | fails when the draft ...                                                   |
|------------------|----------------------------------------------------------------------------|
| `length`         | is empty; a note over 300 characters; a letter outside 40%-200% of the words asked |
| `names`          | puts a name neither source uses where a letter states a fact (`positions`) |
| `employment`     | says the person worked somewhere that is not one of the profile's employers |
| `titles`         | gives the person a job title the profile does not                         |
| `degrees`        | claims a degree (family and field) the profile does not hold               |
| `schools`        | says the person studied at a school that is not one of the profile's       |
| `certifications` | claims a certification the profile does not name, or one only the listing wishes for |
| `skills`         | claims a tool, platform or language the profile lacks, or one only the listing names |
| `numbers`        | states a figure, count, percentage, year or duration no source states or gives |
| `links`          | links to a URL, domain or address outside the profile and the listing's URLs |
| `injection`      | carries anything from the listing's instructions to a model               |

How the text is read is in `text`; where a name claims something in `positions`; the words known
without a profile in `vocabulary`; what the listing only wishes for (its "Nice to have") in
`wished`.
"""

from __future__ import annotations

from jobsearch.draft.checks.credentials import check_certifications, check_degrees
from jobsearch.draft.checks.facts import Facts
from jobsearch.draft.checks.names import check_names
from jobsearch.draft.checks.numbers import check_numbers
from jobsearch.draft.checks.provenance import check_injection, check_links, redact
from jobsearch.draft.checks.roles import check_employment, check_titles
from jobsearch.draft.checks.schools import check_schools
from jobsearch.draft.checks.skills import check_skills
from jobsearch.jobs import Check, Step

__all__ = ["NOTE_LIMIT", "Facts", "check_length", "redact", "run_checks"]

NOTE_LIMIT = 300


def check_length(step: Step, text: str, words: int) -> Check:
    """Length bounds: note <= 300 characters; letter within 40%..200% of the wanted words."""
    if not text.strip():
        return Check(name="length", passed=False, detail="the draft is empty")
    if step == "connection_note":
        ok = len(text) <= NOTE_LIMIT
        return Check(
            name="length", passed=ok, detail="" if ok else f"{len(text)} characters; at most {NOTE_LIMIT}"
        )
    count = len(text.split())
    low, high = int(words * 0.4), words * 2
    ok = low <= count <= high
    return Check(name="length", passed=ok, detail="" if ok else f"{count} words; want {low} to {high}")


def run_checks(step: Step, text: str, facts: Facts, words: int) -> list[Check]:
    """Every check of one draft, in a fixed order."""
    return [
        check_length(step, text, words),
        check_names(text, facts),
        check_employment(text, facts),
        check_titles(text, facts),
        check_degrees(text, facts),
        check_schools(text, facts),
        check_certifications(text, facts),
        check_skills(text, facts),
        check_numbers(text, facts),
        check_links(text, facts),
        check_injection(text, facts),
    ]
