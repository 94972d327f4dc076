"""When are two postings one job: the features compared and the decision.

Exact keys (the board's own id, the canonical URL) are looked up by the seen-set; this module
decides the fuzzy case, always within one company (`company_key`):

1. Vetoes: a different level (Senior vs Staff, Engineer vs Engineering Manager, II vs III), cities
   that do not overlap (Berlin vs Munich), regions that do not (Remote - US vs Remote - Europe), a
   different employment type (full time vs intern), other numbers in the title.
2. The titles (`titles`): what the job is (level, tags, gender and remote markers gone) compared
   by their distinctive words and rapidfuzz `token_sort_ratio`: other qualifiers on both sides
   ("Payments" / "Risk") are two jobs; the same words are one title, so one job; one title naming
   more than the other ("Security Engineer" / "Security Engineer, Cloud"), or a reworded one,
   leaves it to the texts.
3. A company whose name only begins like the other's ("Hexaplane" on an aggregator, "Hexaplane
   Software Ltd" on its own board, at least 5 letters in common) is compared too, but matches
   only on the same text; a board's slug and its name with a word such as "AI" ("harborlight" /
   "Harborlight AI") are one company (`same_company`).
4. Description similarity as the tie-breaker: the share of 4-word runs the shorter text has in
   common with the other, not counting the runs the company's other listings have too (its
   About, benefits and equal-opportunity text are boilerplate, not evidence): a truncated
   aggregator copy still scores near 1; two jobs sharing the company's boilerplate score low.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence

import msgspec
from rapidfuzz import fuzz

from jobsearch.dedupe import company
from jobsearch.dedupe.titles import titles_compared
from jobsearch.listing import Listing, MergedListing
from jobsearch.reading import normalise, vocabulary

RELATED_COMPANY = 5  # letters a company key must share, as a prefix, with another to be compared
SAME_TEXT = 0.6  # description containment at or above: one job's text
MIN_WORDS = 50  # a description shorter than this (a teaser, a template) says too little to decide
MIN_OWN_SHINGLES = 20  # 4-word runs a text must have beside the company's boilerplate to decide


class Features(msgspec.Struct, kw_only=True, frozen=True):
    """What matching compares, computed once per posting or merged listing."""

    company: str
    title: str
    level: str
    cities: list[str]
    continents: list[str] = []
    employment: str
    description: str  # normalised words, truncated: the tie-breaker's input
    slug: bool = False  # the company is known by its board's URL token ("fernbrook" on Lever)


class Verdict(msgspec.Struct, kw_only=True, frozen=True):
    """The outcome of one comparison: `same` and why."""

    same: bool
    title_score: float = 0.0
    text_score: float | None = None
    reason: str = ""


def features(listing: Listing | MergedListing, postings: Sequence[Listing] = ()) -> Features:
    """The features of a posting or of a merged listing of `postings` (its cities are all its
    sources' cities; its company a slug if a posting of its company key names it by its slug)."""
    locations = [normalise.location(loc) for loc in listing.locations]
    # "Platform Eng. (EMEA, Remote)", "QA Engineer (LATAM)": the tags are where and how, not what.
    tags = normalise.title_tags(listing.title, {part for loc in locations for part in loc.parts})
    title_words = normalise.title_words(tags.title, listing.company)
    cities = sorted({city for loc in locations for city in loc.cities})
    # "Platform Engineer London": the place is the listing's, not the job's name.
    place_words = {w for c in cities for w in c.split()}
    if place_words and len(set(title_words) - place_words) >= 1:
        title_words = [w for w in title_words if w not in place_words]
    continents = {c for loc in locations for c in loc.continents} | tags.continents
    return Features(
        company=normalise.company_key(listing.company),
        title=normalise.title_core(title_words),
        level=normalise.title_level(title_words),
        cities=cities,
        continents=sorted(continents),
        employment=normalise.employment(listing.employment_type) or tags.employment,
        slug=_slug(listing, postings),
        description=" ".join(normalise.words(listing.description[: normalise.DESCRIPTION_CHARS])),
    )


def _slug(listing: Listing | MergedListing, postings: Sequence[Listing]) -> bool:
    if isinstance(listing, Listing):
        return company.is_slug(listing.board, listing.company)
    key = normalise.company_key(listing.company)
    return any(
        company.is_slug(p.board, p.company) and normalise.company_key(p.company) == key for p in postings
    )


def same_company(a: str, a_slug: bool, b: str, b_slug: bool) -> bool:
    """Two company keys, one beginning the other, name one company: a name and the same name with
    a word that says nothing of the trade ("Nettlebank" / "Nettlebank Technologies"), or a board's
    slug and the name written as the slug and a word such as "AI", "Energy" or "Games"
    ("harborlight" on Ashby, "Harborlight AI" on an aggregator). Names that only begin alike are
    related, not one ("Hexaplane" / "Hexaplane Health": either may be short for the other)."""
    (short, short_slug), (long, _) = sorted(((a, a_slug), (b, b_slug)), key=lambda pair: len(pair[0]))
    if not long.startswith(short):
        return False
    rest = long[len(short) :]
    return rest in vocabulary.GENERIC_COMPANY_WORDS or (short_slug and rest in vocabulary.COMPANY_WORDS)


def block_keys(features: Features) -> list[str]:
    """The keys a listing is found under for fuzzy matching within its company: its level with
    each title word that tells jobs apart (`level|word`). Two postings that share none cannot be
    one job (another level is a veto; no word in common, a different title), so a posting is
    compared with a handful of listings however many its company has."""
    return [f"{features.level}|{token}" for token in normalise.title_tokens(features.title)]


def text_similarity(a: str, b: str, boilerplate: Collection[normalise.Shingle] = frozenset()) -> float | None:
    """Share of the shorter text's 4-word runs found in the other, not counting `boilerplate` (the
    runs the company's other listings have too); None if either text is too short to tell, or
    has too little of its own beside the boilerplate."""
    if len(a.split()) < MIN_WORDS or len(b.split()) < MIN_WORDS:
        return None
    sa, sb = normalise.shingles(a), normalise.shingles(b)
    if boilerplate:
        sa, sb = sa.difference(boilerplate), sb.difference(boilerplate)
        if min(len(sa), len(sb)) < MIN_OWN_SHINGLES:
            return None
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
    titles = titles_compared(new.title, old.title)
    if titles.apart:
        return Verdict(same=False, title_score=titles.score, reason=titles.why)
    return None


def _numbers(title: str) -> set[str]:
    return {word for word in title.split() if word.isdigit()}


def compare(
    new: Features,
    old: Features,
    *,
    strict: bool = False,
    boilerplate: Callable[[], Collection[normalise.Shingle]] = frozenset,
) -> Verdict:
    """Whether `new` and `old` (one company's postings) are one job.

    `strict`: the companies' names only begin alike; one job only on the same text.
    `boilerplate` gives the 4-word runs of the company's other listings, asked for only when the
    texts decide.
    """
    vetoed = screen(new, old)
    if vetoed is not None:
        return vetoed
    titles = titles_compared(new.title, old.title)
    score = titles.score
    if titles.same and not strict:
        # The same title, place, level and type at one company is one job whatever the text: a
        # post written anew (Hacker News, a recruiter) describes it in its own words, and two
        # openings that match this closely are one application for the person anyway.
        return Verdict(same=True, title_score=score, reason="same title")
    text_score = text_similarity(new.description, old.description, boilerplate())
    if text_score is None:
        why = f"{titles.why}; too little text of its own to compare"
        return Verdict(same=False, title_score=score, reason=why)
    if text_score >= SAME_TEXT:
        why = "same title and text" if titles.same else f"{titles.why}; the same text"
        why = f"a company named alike, {why}" if strict else why
        return Verdict(same=True, title_score=score, text_score=text_score, reason=why)
    return Verdict(same=False, title_score=score, text_score=text_score, reason=f"{titles.why}; other text")


def title_agrees(new: Features, old: Features) -> bool:
    """A sanity check for an exact URL match: the titles are not about different jobs.

    A feed may link every posting to one careers page; such a link must not merge them.
    """
    return fuzz.token_set_ratio(new.title, old.title) >= 60.0


def best_match(
    new: Features,
    candidates: list[tuple[str, Features]],
    *,
    strict: frozenset[str] = frozenset(),
    boilerplate: Callable[[str], Collection[normalise.Shingle]] | None = None,
) -> tuple[str, Verdict] | None:
    """The candidate (id, features) that is the same job as `new` with the best scores, if any.

    Candidates whose id is in `strict` are of a company whose name only begins like this one's
    ("Hexaplane" / "Hexaplane Software Ltd"): they match only on the same text.
    `boilerplate(id)` gives the 4-word runs the company's listings other than `id` share.
    """
    best: tuple[str, Verdict] | None = None
    for candidate_id, old in candidates:
        noise: Callable[[], Collection[normalise.Shingle]] = frozenset
        if boilerplate is not None:
            noise = functools.partial(boilerplate, candidate_id)
        verdict = compare(new, old, strict=candidate_id in strict, boilerplate=noise)
        if not verdict.same:
            continue
        rank = (verdict.title_score, verdict.text_score or 0.0)
        if best is None or rank > (best[1].title_score, best[1].text_score or 0.0):
            best = (candidate_id, verdict)
    return best
