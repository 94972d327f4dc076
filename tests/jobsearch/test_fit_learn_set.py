"""Learning on a labelled decisions set: learn from half of a person's decisions, rank the other
half, compare with the score's own ranking.

A set (`tests/fixtures/fit/decisions/*.toml`) holds one `[persona]` (a profile) and its
`[[postings]]`: each a `MergedListing` with `statuses` (the person's history of it, oldest first),
`decided` (when they set the last one) and `why`. A listing's label is what `jobsearch.store.learned`
reads from a store: wanted (Applied .. Offer, also when Rejected or Withdrawn came after), dismissed,
or none. The halves alternate in file order; both ways round are reported.

`python -m tests.jobsearch.test_fit_learn_set [FILE ...]` prints the report of each set.
"""

from __future__ import annotations

import sys
import tomllib
from datetime import date
from pathlib import Path
from typing import Any

import msgspec
import pytest

from jobsearch.fit import score
from jobsearch.fit.learn import Example, Learned, learn
from jobsearch.fit.score import contributions
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from jobsearch.store.learned import label_of

DECISIONS = Path(__file__).parents[1] / "fixtures" / "fit" / "decisions"
_META = ("statuses", "decided", "why")


class Decided(msgspec.Struct, kw_only=True, frozen=True):
    """One listing and what the person did with it."""

    listing: MergedListing
    statuses: list[str]
    decided: date
    why: str

    @property
    def wanted(self) -> bool | None:
        """True wanted, False dismissed, None no decision."""
        return label_of(self.statuses)


class DecisionSet(msgspec.Struct, kw_only=True, frozen=True):
    """A person and their decisions."""

    id: str
    profile: Profile
    postings: list[Decided]


class Fold(msgspec.Struct, kw_only=True, frozen=True):
    """Learning on one half, ranking the other: the score's ranking and the learned one's."""

    learned_from: int
    ranked: int
    auc_before: float
    auc_after: float
    p10_before: float
    p10_after: float
    multipliers: dict[str, float]


def load_set(path: Path) -> DecisionSet:
    """Read one decisions file (a wrong key or shape fails with msgspec's message)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    persona: dict[str, Any] = data["persona"]
    return DecisionSet(
        id=persona["id"],
        profile=msgspec.convert(persona["profile"], Profile),
        postings=[
            Decided(
                listing=msgspec.convert({k: v for k, v in p.items() if k not in _META}, MergedListing),
                statuses=list(p["statuses"]),
                decided=p["decided"],
                why=str(p.get("why", "")),
            )
            for p in data["postings"]
        ],
    )


def auc(scored: list[tuple[float, bool]]) -> float:
    """The chance that a wanted listing outscores a dismissed one (a tie: half)."""
    wanted = [s for s, w in scored if w]
    dismissed = [s for s, w in scored if not w]
    pairs = [(a, b) for a in wanted for b in dismissed]
    if not pairs:
        return 0.0
    return sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in pairs) / len(pairs)


def precision_at(scored: list[tuple[float, bool]], k: int = 10) -> float:
    """The share of wanted listings among the first k (a stable sort: ties keep the file's order)."""
    top = sorted(scored, key=lambda s: -s[0])[:k]
    return sum(1 for _, w in top if w) / len(top) if top else 0.0


def fold(decided: DecisionSet, learn_on: list[Decided], rank: list[Decided]) -> Fold:
    """Learn on `learn_on`, rank `rank` with and without what was learned."""
    profile = decided.profile
    examples = [
        Example(parts=contributions(profile, d.listing, d.decided), wanted=bool(d.wanted)) for d in learn_on
    ]
    learned: Learned | None = learn(examples)
    before = [(float(score(profile, d.listing, d.decided).score), bool(d.wanted)) for d in rank]
    after = [(float(score(profile, d.listing, d.decided, learned).score), bool(d.wanted)) for d in rank]
    return Fold(
        learned_from=len(examples),
        ranked=len(rank),
        auc_before=auc(before),
        auc_after=auc(after),
        p10_before=precision_at(before),
        p10_after=precision_at(after),
        multipliers=learned.multipliers if learned else {},
    )


def evaluate(decided: DecisionSet) -> list[Fold]:
    """Both folds: learn on the even-numbered decisions and rank the odd ones, then the reverse."""
    labelled = [d for d in decided.postings if d.wanted is not None]
    even, odd = labelled[0::2], labelled[1::2]
    return [fold(decided, even, odd), fold(decided, odd, even)]


def render(name: str, folds: list[Fold]) -> str:
    """A set's report as plain text."""
    lines = [f"learning on {name}"]
    for n, f in enumerate(folds, start=1):
        lines.append(
            f"  fold {n}: learned from {f.learned_from}, ranked {f.ranked}:"
            f" AUC {f.auc_before:.3f} -> {f.auc_after:.3f},"
            f" precision@10 {f.p10_before:.2f} -> {f.p10_after:.2f}"
        )
        shown = ", ".join(f"{c} {m:.2f}" for c, m in sorted(f.multipliers.items()))
        lines.append(f"    multipliers: {shown}")
    return "\n".join(lines)


SETS = sorted(DECISIONS.glob("*.toml"))


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_a_set_has_sixty_decisions_of_both_kinds(path: Path) -> None:
    """Each set holds at least 60 decided listings, wanted and dismissed ones among them."""
    labels = [d.wanted for d in load_set(path).postings if d.wanted is not None]
    assert len(labels) >= 60
    assert 0.25 < sum(labels) / len(labels) < 0.75


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_learning_ranks_the_held_out_half_no_worse(path: Path) -> None:
    """Learned on one half, the score ranks the other half's wanted listings above its dismissed
    ones at least as well as without learning, both ways round."""
    folds = evaluate(load_set(path))
    for f in folds:
        assert f.multipliers, render(path.stem, folds)
        assert f.auc_after >= f.auc_before, render(path.stem, folds)


def main(argv: list[str] | None = None) -> int:
    """Print the report of each set named (default: every set)."""
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or SETS
    for path in paths:
        print(render(path.stem, evaluate(load_set(path))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
