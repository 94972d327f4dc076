"""Graded sets of postings for the fit score, and how a ranking scores on them.

A set file (`tests/fixtures/fit/<persona>.toml`) holds one `[persona]` (its `id`, the `today` the
postings were graded on, and `[persona.profile]`, a profile) and its `[[postings]]`: each a
`MergedListing` with `grade` 0-3 (how a careful recruiter who knows the person grades it),
`reason` and, where it sets one, `trap`. The sets were written before the score and by someone
who did not read it.

```python
persona = load_persona(path)
report = evaluate(persona)      # NDCG@10 and pairwise accuracy: fit score and a keyword baseline
```
`python -m tests.fit_set [FILE ...]` prints the report of each set (default: all).
"""

from __future__ import annotations

import math
import sys
import tomllib
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import msgspec

from jobsearch.fit import score
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile

FIXTURES = Path(__file__).parent / "fixtures" / "fit"
_META = ("grade", "reason", "trap")


class Graded(msgspec.Struct, kw_only=True, frozen=True):
    """One posting with its grade."""

    listing: MergedListing
    grade: int
    reason: str
    trap: str = ""


class Persona(msgspec.Struct, kw_only=True, frozen=True):
    """A person and the postings graded for them."""

    id: str
    today: date
    profile: Profile
    postings: list[Graded]


class Ranking(msgspec.Struct, kw_only=True, frozen=True):
    """How one ranking does on one persona."""

    ndcg10: float
    pairwise: float
    top10: list[tuple[int, int, str]]  # (score, grade, title) of its first ten


class Report(msgspec.Struct, kw_only=True, frozen=True):
    """The fit score and the keyword baseline on one persona, and the traps the score ranks high."""

    persona: str
    postings: int
    fit: Ranking
    baseline: Ranking
    traps: dict[str, float]  # trap -> the mean fit score of its postings

    def render(self) -> str:
        """The report as plain text."""
        lines = [
            f"fit on {self.persona} ({self.postings} postings)",
            f"  NDCG@10   fit {self.fit.ndcg10:.3f}   keyword baseline {self.baseline.ndcg10:.3f}",
            f"  pairwise  fit {self.fit.pairwise:.3f}   keyword baseline {self.baseline.pairwise:.3f}",
            "  fit's top ten (score, grade, title):",
            *(f"    {s:>3} {g} {t}" for s, g, t in self.fit.top10),
            "  mean fit score by trap:",
            *(f"    {trap:<30} {mean:5.1f}" for trap, mean in sorted(self.traps.items())),
        ]
        return "\n".join(lines)


def load_persona(path: Path) -> Persona:
    """Read one set file (a wrong key or shape fails with msgspec's message)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    persona: dict[str, Any] = data["persona"]
    postings = [
        Graded(
            listing=msgspec.convert({k: v for k, v in p.items() if k not in _META}, MergedListing),
            grade=int(p["grade"]),
            reason=str(p.get("reason", "")),
            trap=str(p.get("trap", "")),
        )
        for p in data["postings"]
    ]
    return Persona(
        id=persona["id"],
        today=persona["today"],
        profile=msgspec.convert(persona["profile"], Profile),
        postings=postings,
    )


def ndcg_at(grades_in_order: list[int], k: int = 10) -> float:
    """NDCG@k with gains 2^grade - 1."""

    def dcg(grades: list[int]) -> float:
        return sum(float(2**g - 1) / math.log2(i + 2) for i, g in enumerate(grades[:k]))

    ideal = dcg(sorted(grades_in_order, reverse=True))
    return dcg(grades_in_order) / ideal if ideal else 0.0


def pairwise(scored: list[tuple[float, int]]) -> float:
    """The share of pairs of differently graded postings that the scores order right (a tie: half)."""
    right = total = 0.0
    for i, (score_a, grade_a) in enumerate(scored):
        for score_b, grade_b in scored[i + 1 :]:
            if grade_a == grade_b:
                continue
            total += 1
            if score_a == score_b:
                right += 0.5
            elif (score_a > score_b) == (grade_a > grade_b):
                right += 1
    return right / total if total else 0.0


def keyword_baseline(profile: Profile, listing: MergedListing) -> float:
    """A naive ranking: how many of the person's skills and search terms the posting names."""
    text = f"{listing.title}\n{listing.description}".lower()
    return float(sum(1 for term in {*profile.person.skills, *profile.search.terms} if term.lower() in text))


def _ranking(persona: Persona, rank: Callable[[MergedListing], float]) -> Ranking:
    scored = [(rank(p.listing), p.grade, p.listing.title) for p in persona.postings]
    ordered = sorted(scored, key=lambda s: -s[0])  # a stable sort: ties keep the file's order
    return Ranking(
        ndcg10=ndcg_at([g for _, g, _ in ordered]),
        pairwise=pairwise([(s, g) for s, g, _ in scored]),
        top10=[(round(s), g, t) for s, g, t in ordered[:10]],
    )


def evaluate(persona: Persona) -> Report:
    """The fit score and the keyword baseline on one persona."""
    fits = {p.listing.id: score(persona.profile, p.listing, persona.today).score for p in persona.postings}
    traps: dict[str, list[int]] = {}
    for p in persona.postings:
        if p.trap:
            traps.setdefault(p.trap, []).append(fits[p.listing.id])
    return Report(
        persona=persona.id,
        postings=len(persona.postings),
        fit=_ranking(persona, lambda listing: fits[listing.id]),
        baseline=_ranking(persona, lambda listing: keyword_baseline(persona.profile, listing)),
        traps={trap: sum(v) / len(v) for trap, v in traps.items()},
    )


def main(argv: list[str] | None = None) -> int:
    """Print the report of each set file named (default: every set)."""
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or sorted(FIXTURES.glob("*.toml"))
    for path in paths:
        print(evaluate(load_persona(path)).render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
