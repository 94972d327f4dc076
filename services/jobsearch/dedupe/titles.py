"""How the titles of two postings at one company compare: one title, one job reworded, or two jobs.

Titles are compared as their cores (`normalise.title_core`: level, tags, gender and remote markers
gone, abbreviations and role synonyms spelled one way). What tells two jobs apart is a title's
distinctive words, those not every title has ("engineer", "software", "senior" are not):

- **Other qualifiers**: each title has a distinctive word the other lacks ("Backend Engineer,
  Payments" / "Backend Engineer, Risk", "Software Engineer, Inference" / "..., Training"): two
  jobs, whatever the texts share (one company's postings share its boilerplate).
- **The same title**: no distinctive word on either side alone, and rapidfuzz `token_sort_ratio`
  at least 92 (word order and spelling aside, one title): one job.
- **One title says more**: one title has distinctive words the other lacks, and they share one
  ("Security Engineer" / "Security Engineer, Cloud", "Go Engineer" / "Backend Engineer (Golang)",
  "Data Engineer" / "Data Engineer - Climate Tech"): perhaps one job, perhaps a team's own; the
  texts decide, not counting the company's boilerplate.
- **Reworded**: a ratio of 70 to 92 without a qualifier on both sides ("Platform Engineer" /
  "Platform Software Engineer", "Software Engineer" / "Software Engineer, Payments"): the texts
  decide.
- Otherwise, **another title**: two jobs.

A word counts as the other title's when it is the same word, one begins the other ("Payment" /
"Payments", "Infra" / "Infrastructure") or it is spelled almost alike ("Optimisation" / "Optimization").
"""

from __future__ import annotations

from typing import NamedTuple

from rapidfuzz import fuzz

from jobsearch.reading import vocabulary

SAME_TITLE = 92.0  # token_sort_ratio at or above (and no qualifier apart): the same title
SIMILAR_TITLE = 70.0  # at or above: perhaps the same job reworded; the descriptions decide
SAME_WORD = 85.0  # rapidfuzz ratio at or above: one word spelled another way
_PREFIX = 3  # letters a word must have to stand for a longer word it begins ("Eng", "Infra")


class Titles(NamedTuple):
    """Two titles compared."""

    score: float  # token_sort_ratio of the cores
    same: bool  # the same title: one job unless a veto says otherwise
    apart: bool  # two jobs whatever the texts say
    why: str  # in words, for the verdict's reason


def titles_compared(a: str, b: str) -> Titles:
    """Compare two title cores (`normalise.title_core`)."""
    score = fuzz.token_sort_ratio(a, b)
    words_a, words_b = distinctive(a), distinctive(b)
    only_a, only_b = _unmatched(words_a, words_b), _unmatched(words_b, words_a)
    extra = " ".join(only_a or only_b)
    shared = len(words_a) > len(only_a) and len(words_b) > len(only_b)
    if only_a and only_b:
        return Titles(score, False, True, f"other qualifiers ({' '.join(only_a)} / {' '.join(only_b)})")
    if extra and shared:
        return Titles(score, False, False, f"one title names what the other does not ({extra})")
    if score < SIMILAR_TITLE:
        return Titles(score, False, True, "different title")
    if extra or score < SAME_TITLE:
        return Titles(score, False, False, f"title reworded ({extra})" if extra else "title reworded")
    return Titles(score, True, False, "same title")


def distinctive(core: str) -> list[str]:
    """The words of a title's core that tell one company's jobs apart, in title order."""
    return [w for w in core.split() if w not in vocabulary.GENERIC_TITLE_WORDS]


def _unmatched(words: list[str], others: list[str]) -> list[str]:
    """The words of `words` that no word of `others` stands for."""
    return [w for w in words if not any(_same_word(w, o) for o in others)]


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= _PREFIX and long.startswith(short):
        return True
    return len(short) >= 5 and fuzz.ratio(a, b) >= SAME_WORD
