"""When are two postings one job: the features compared and the decision.

Exact keys (the board's own id, the canonical URL) are looked up by the seen-set; this module
decides the fuzzy case, always within one company (`company_key`):

1. Vetoes: a different level (Senior vs Staff, Engineer vs Engineering Manager, II vs III), cities
   that do not overlap (Berlin vs Munich), a different employment type (full time vs intern).
2. Title similarity of what the job is (the title without level, gender tag, remote marker):
   rapidfuzz `token_sort_ratio`, so reordering ("Software Engineer, Platform" / "Platform
   Software Engineer") costs nothing and a swapped word ("Backend" / "Frontend") costs a lot.
3. A company whose name only begins like the other's ("Hexaplane" on an aggregator, "Hexaplane
   Software Ltd" on its own board, at least 5 letters in common) is compared too, but matches
   only on the same title and the same text.
4. Description similarity as the tie-breaker: the share of 4-word runs the shorter text has in
   common with the other (a truncated aggregator copy still scores near 1; two jobs sharing the
   company's boilerplate score well below).
"""

from __future__ import annotations

import msgspec
from rapidfuzz import fuzz

from jobsearch.dedupe import normalise
from jobsearch.listing import Listing, MergedListing

RELATED_COMPANY = 5  # letters a company key must share, as a prefix, with another to be compared
SAME_TITLE = 92.0  # token_sort_ratio at or above: the same title, written another way
SIMILAR_TITLE = 70.0  # at or above: perhaps the same job reworded; the descriptions decide
SAME_TEXT = 0.6  # description containment at or above: one job's text
MIN_WORDS = 50  # a description shorter than this (a teaser, a template) says too little to decide


class Features(msgspec.Struct, kw_only=True, frozen=True):
    """What matching compares, computed once per posting or merged listing."""

    company: str
    title: str
    level: str
    cities: list[str]
    continents: list[str] = []
    employment: str
    description: str  # normalised words, truncated: the tie-breaker's input


class Verdict(msgspec.Struct, kw_only=True, frozen=True):
    """The outcome of one comparison: `same` and why."""

    same: bool
    title_score: float = 0.0
    text_score: float | None = None
    reason: str = ""


def features(listing: Listing | MergedListing) -> Features:
    """The features of a posting or of a merged listing (its cities are all its sources' cities)."""
    title_words = normalise.title_words(listing.title, listing.company)
    cities = sorted({c for c in (normalise.city(loc) for loc in listing.locations) if c})
    # "Platform Engineer (London)": the place is the listing's, not the job's name.
    place_words = {w for c in cities for w in c.split()}
    if place_words and len(set(title_words) - place_words) >= 1:
        title_words = [w for w in title_words if w not in place_words]
    continents = sorted({c for loc in listing.locations for c in normalise.continents(loc)})
    return Features(
        company=normalise.company_key(listing.company),
        title=normalise.title_core(title_words),
        level=normalise.title_level(title_words),
        cities=cities,
        continents=continents,
        employment=normalise.employment(listing.employment_type),
        description=" ".join(normalise.words(listing.description[: normalise.DESCRIPTION_CHARS])),
    )


def block_keys(features: Features) -> list[str]:
    """The keys a listing is found under for fuzzy matching within its company: its level with
    each title word that tells jobs apart (`level|word`). Two postings that share none cannot be
    one job (another level is a veto; no word in common, a different title), so a posting is
    compared with a handful of listings however many its company has."""
    return [f"{features.level}|{token}" for token in normalise.title_tokens(features.title)]


def text_similarity(a: str, b: str) -> float | None:
    """Share of the shorter text's 4-word runs found in the other; None if either is too short."""
    if len(a.split()) < MIN_WORDS or len(b.split()) < MIN_WORDS:
        return None
    sa, sb = normalise.shingles(a), normalise.shingles(b)
    return len(sa & sb) / min(len(sa), len(sb))


def _veto(new: Features, old: Features) -> str | None:
    """Why `new` and `old` cannot be one job whatever their titles say, or None."""
    if new.level != old.level:
        return f"level {new.level or 'none'} != {old.level or 'none'}"
    if new.cities and old.cities and not set(new.cities) & set(old.cities):
        return "different cities"
    if new.continents and old.continents and not set(new.continents) & set(old.continents):
        return "different regions"
    if new.employment and old.employment and new.employment != old.employment:
        return "different employment type"
    if _numbers(new.title) != _numbers(old.title):  # "Engineer 12" / "Engineer 13", "Team 4" / "Team 5"
        return "different numbers in the title"
    return None


def screen(new: Features, old: Features) -> Verdict | None:
    """The cheap part of `compare` (no descriptions): a `same=False` verdict, or None to go on."""
    veto = _veto(new, old)
    if veto:
        return Verdict(same=False, reason=veto)
    title_score = fuzz.token_sort_ratio(new.title, old.title)
    if title_score < SIMILAR_TITLE:
        return Verdict(same=False, title_score=title_score, reason="different title")
    return None


def _numbers(title: str) -> set[str]:
    return {word for word in title.split() if word.isdigit()}


def compare(new: Features, old: Features) -> Verdict:
    """Whether `new` and `old` (one company's postings) are one job."""
    vetoed = screen(new, old)
    if vetoed is not None:
        return vetoed
    title_score = fuzz.token_sort_ratio(new.title, old.title)
    text_score = text_similarity(new.description, old.description)
    if title_score >= SAME_TITLE:
        # The same title, place, level and type at one company is one job whatever the text: a
        # post written anew (Hacker News, a recruiter) describes it in its own words, and two
        # openings that match this closely are one application for the person anyway.
        return Verdict(same=True, title_score=title_score, text_score=text_score, reason="same title")
    if text_score is not None and text_score >= SAME_TEXT:
        return Verdict(same=True, title_score=title_score, text_score=text_score, reason="same text")
    return Verdict(same=False, title_score=title_score, text_score=text_score, reason="reworded, other text")


def title_agrees(new: Features, old: Features) -> bool:
    """A sanity check for an exact URL match: the titles are not about different jobs.

    A feed may link every posting to one careers page; such a link must not merge them.
    """
    return fuzz.token_set_ratio(new.title, old.title) >= 60.0


def best_match(
    new: Features, candidates: list[tuple[str, Features]], *, strict: frozenset[str] = frozenset()
) -> tuple[str, Verdict] | None:
    """The candidate (id, features) that is the same job as `new` with the best scores, if any.

    Candidates whose id is in `strict` are of a company whose name only begins like this one's
    ("Hexaplane" / "Hexaplane Software Ltd"): they match only on the same title and the same text.
    """
    best: tuple[str, Verdict] | None = None
    for candidate_id, old in candidates:
        verdict = compare(new, old)
        if not verdict.same:
            continue
        if candidate_id in strict and not (
            verdict.title_score >= SAME_TITLE and (verdict.text_score or 0.0) >= SAME_TEXT
        ):
            continue
        rank = (verdict.title_score, verdict.text_score or 0.0)
        if best is None or rank > (best[1].title_score, best[1].text_score or 0.0):
            best = (candidate_id, verdict)
    return best
