"""The learner: a per-component multiplier of the fit score fitted to the person's decisions."""

from __future__ import annotations

from datetime import date

import pytest

from jobsearch.fit import score
from jobsearch.fit.learn import HIGHEST, LOWEST, MIN_DECISIONS, Example, Learned, learn
from jobsearch.fit.score import contributions
from jobsearch.listing import MergedListing
from jobsearch.profile import Person, Profile, Search
from jobsearch.store.learned import label_of
from tests.jobsearch.test_fit_learn_set import SETS, load_set


def _remote_lover(n: int) -> list[Example]:
    """Decisions of someone who takes remote jobs and dismisses office ones, skills alike."""
    out = []
    for i in range(n):
        remote = i % 2 == 0
        parts = {"role+": 25.0, "skills+": 20.0 + (i % 3) * 5, "level+": 8.0}
        parts["place_remote+" if remote else "place_office+"] = 8.0
        out.append(Example(parts=parts, wanted=remote if i % 7 else not remote))  # a little noise
    return out


def _first_set_examples() -> list[Example]:
    decided = load_set(SETS[0])
    return [
        Example(parts=contributions(decided.profile, d.listing, d.decided), wanted=bool(d.wanted))
        for d in decided.postings
        if d.wanted is not None
    ]


def test_fewer_than_twenty_decisions_or_one_kind_learn_nothing() -> None:
    """Under `MIN_DECISIONS`, or with no wanted (or no dismissed) listing, nothing is learned."""
    assert MIN_DECISIONS == 20
    assert learn(_remote_lover(19)) is None
    assert learn(_remote_lover(20)) is not None
    assert learn([Example(parts={"skills+": 20.0}, wanted=True)] * 30) is None
    assert learn([Example(parts={"skills+": 20.0}, wanted=False)] * 30) is None


def test_a_preference_the_weights_miss_is_learned() -> None:
    """Remote wanted, office dismissed, at equal points: remote's multiplier rises, office's falls;
    what does not tell them apart stays near 1."""
    learned = learn(_remote_lover(40))
    assert learned is not None
    assert learned.multiplier("place_remote+") > 1.3
    assert learned.multiplier("place_office+") < 0.7
    assert learned.decisions == 40
    assert learned.wanted == sum(1 for e in _remote_lover(40) if e.wanted)


def test_the_same_decisions_give_the_same_weights() -> None:
    """Deterministic: twice the same input, the same multipliers; in another order, the same to
    the fourth decimal."""
    examples = _first_set_examples()
    first, again, reordered = learn(examples), learn(examples), learn(list(reversed(examples)))
    assert first is not None
    assert reordered is not None
    assert first == again
    for component, factor in first.multipliers.items():
        assert reordered.multiplier(component) == pytest.approx(factor, abs=1e-3)


def test_multipliers_stay_within_their_bounds() -> None:
    """Decisions that a component separates perfectly push it only to the bound, never past."""
    examples = [
        Example(
            parts={"skills+": 20.0, "place_remote+": 8.0 if i % 2 else 0.0, "pay-": 0.0 if i % 2 else -25.0},
            wanted=bool(i % 2),
        )
        for i in range(60)
    ]
    learned = learn(examples)
    assert learned is not None
    assert all(LOWEST <= m <= HIGHEST for m in learned.multipliers.values())


def test_the_persons_exclusions_are_never_re_weighted() -> None:
    """`excluded-` keeps its weight whatever the decisions (the person's own rule)."""
    examples = [
        Example(parts={"skills+": 20.0, "excluded-": -100.0 if i % 3 == 0 else 0.0}, wanted=i % 3 == 0)
        for i in range(30)
    ]
    learned = learn(examples)
    assert learned is not None
    assert "excluded-" not in learned.multipliers
    assert learned.multiplier("excluded-") == 1.0


def test_one_decision_cannot_flip_the_ranking() -> None:
    """From 20 decisions, any 21st moves no multiplier by more than 0.15 and no listing's score
    by more than 3 points."""
    decided = load_set(SETS[0])
    labelled = [d for d in decided.postings if d.wanted is not None]
    examples = _first_set_examples()
    base = learn(examples[:20])
    assert base is not None
    for extra in examples[20:]:
        more = learn([*examples[:20], extra])
        assert more is not None
        components = set(base.multipliers) | set(more.multipliers)
        assert max(abs(base.multiplier(c) - more.multiplier(c)) for c in components) <= 0.15
        for d in labelled:
            before = score(decided.profile, d.listing, d.decided, base).score
            after = score(decided.profile, d.listing, d.decided, more).score
            assert abs(before - after) <= 3, d.listing.id


def _profile() -> Profile:
    return Profile(
        person=Person(name="Lena Hoffmann", location="Berlin, Germany", skills=["Python", "SQL", "Airflow"]),
        search=Search(terms=["Data Engineer"], locations=["Berlin", "Germany"]),
    )


def _listing(**fields: object) -> MergedListing:
    base: dict[str, object] = {
        "id": "l1",
        "title": "Data Engineer",
        "company": "Example",
        "url": "https://example.com/1",
        "locations": ["Berlin, Germany"],
        "workplace": "onsite",
        "remote": False,
        "posted_at": date(2026, 11, 30),
        "description": "Requirements\n- Python, SQL, Airflow\n",
    }
    base.update(fields)
    return MergedListing(**base)  # type: ignore[arg-type]


def test_the_score_uses_the_multipliers_and_says_so() -> None:
    """Each reason's points are the rule's times its component's multiplier; the reasons end
    with where the weights came from; without learned weights nothing changes."""
    profile, listing, today = _profile(), _listing(), date(2026, 12, 1)
    plain = score(profile, listing, today)
    learned = Learned(multipliers={"place_office+": 0.25, "skills+": 2.0}, decisions=34, wanted=12)
    weighted = score(profile, listing, today, learned)
    parts = contributions(profile, listing, today)
    assert weighted.reasons[-1].text == "weights learned from 34 of your decisions"
    assert weighted.reasons[-1].points == 0
    place = next(r for r in plain.reasons if r.text.startswith("onsite in"))
    assert next(r for r in weighted.reasons if r.text == place.text).points == round(
        parts["place_office+"] * 0.25
    )
    skills = next(r for r in plain.reasons if "Python" in r.text)
    assert next(r for r in weighted.reasons if r.text == skills.text).points == round(parts["skills+"] * 2)
    assert score(profile, listing, today, None) == plain


@pytest.mark.parametrize(
    ("statuses", "label"),
    [
        (["Applied"], True),
        (["Applied", "Screen", "Interview", "Offer"], True),
        (["Applied", "Rejected"], True),  # the employer's verdict, not the person's
        (["Applied", "Withdrawn"], True),
        (["Withdrawn"], None),
        (["Rejected"], None),
        (["Dismissed"], False),
        (["Applied", "Dismissed"], False),  # the newest decision wins
        (["Dismissed", "Applied"], True),
        (["Applied", "Saved"], None),  # taken back
        (["Dismissed", "Drafted"], None),
        ([], None),
    ],
)
def test_what_counts_as_a_decision(statuses: list[str], label: bool | None) -> None:
    """Applied .. Offer wanted, Dismissed not; Rejected and Withdrawn are later outcomes that do
    not undo a decision; Saved or Drafted set by the person take it back."""
    assert label_of(statuses) is label
