"""Dedupe on a labelled set of fictional postings: pairwise precision and recall of the merges.

`fixtures/dedupe_labelled.json` (written by `make_dedupe_labelled.py`) holds 88 postings of 40
jobs: cross-posts of one job on a company board and on aggregators, reposts with tracking
parameters, reworded titles, and the hard negatives (similar titles, other levels and cities at
one company, one title at several companies). A pair of postings is a true duplicate pair when
both are labelled with the same job, and a predicted one when dedupe merged them.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import msgspec
import pytest

from jobsearch.dedupe.store import SeenSet
from jobsearch.listing import Listing
from jobsearch.profile import Sample, Search
from jobsearch.sources.sample import fetch

FIXTURE = Path(__file__).with_name("fixtures") / "dedupe_labelled.json"


def labelled() -> list[tuple[str, str, Listing]]:
    """(posting id, job label, listing) of the labelled set."""
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return [(p["id"], p["group"], msgspec.convert(p["listing"], Listing)) for p in data["postings"]]


def pairs(clusters: dict[str, str]) -> set[frozenset[str]]:
    """Every unordered pair of posting ids that share a cluster."""
    by_cluster: dict[str, list[str]] = {}
    for posting, cluster in clusters.items():
        by_cluster.setdefault(cluster, []).append(posting)
    return {frozenset(p) for members in by_cluster.values() for p in itertools.combinations(members, 2)}


def score(
    order: list[tuple[str, str, Listing]], db: Path
) -> tuple[float, float, set[frozenset[str]], set[frozenset[str]]]:
    """Feed postings in `order` to a fresh seen-set: precision, recall, false and missed pairs."""
    seen = SeenSet(db)
    predicted = {pid: seen.record(listing, Search(), "labelled").listing.id for pid, _, listing in order}
    seen.close()
    truth = pairs({pid: label for pid, label, _ in order})
    found = pairs(predicted)
    precision = len(found & truth) / len(found) if found else 1.0
    recall = len(found & truth) / len(truth)
    return precision, recall, found - truth, truth - found


def test_the_set_is_large_and_varied() -> None:
    """At least 80 postings, most jobs posted more than once, and several single postings."""
    postings = labelled()
    labels = [label for _, label, _ in postings]
    assert len(postings) >= 80
    assert len({label for label in labels if labels.count(label) > 1}) >= 25
    assert len({listing.board for _, _, listing in postings}) >= 7


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_precision_and_recall(tmp_path: Path, seed: int | None, capsys: pytest.CaptureFixture[str]) -> None:
    """Pairwise precision and recall are both at least 0.95, whatever order the postings arrive in
    (as written, and two shuffles); the numbers are printed."""
    order = labelled()
    if seed is not None:
        random.Random(seed).shuffle(order)
    precision, recall, false, missed = score(order, tmp_path / "labelled.sqlite")
    with capsys.disabled():
        print(
            f"\ndedupe labelled set (order {seed or 'as written'}): "
            f"precision {precision:.3f}, recall {recall:.3f}"
        )
        for pair in sorted(sorted(p) for p in false):
            print("  merged, but different jobs:", *pair)
        for pair in sorted(sorted(p) for p in missed):
            print("  missed duplicate:", *pair)
    assert precision >= 0.95
    assert recall >= 0.95


def test_sample_board_cross_posts_merge_and_distinct_jobs_stay_apart(tmp_path: Path) -> None:
    """The bundled sample board (written separately, with a note on each case) merges exactly its
    noted cross-posts and reposts (4 pairs) and nothing else."""
    seen = SeenSet(tmp_path / "sample.sqlite")
    clusters = {
        listing.external_id: seen.record(listing, Search(), "sample").listing.id
        for listing in fetch(Sample(), "sample").listings
    }
    seen.close()
    merged = {frozenset(pair) for pair in pairs(clusters)}
    assert merged == {
        frozenset({"nw-101", "nw-101-lever"}),
        frozenset({"lum-7", "lum-7-repost"}),
        frozenset({"bh-3001", "bh-3001-b"}),
        frozenset({"sn-1", "sn-2"}),
    }
