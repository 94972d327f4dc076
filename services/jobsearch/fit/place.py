"""Place: whether the person can work where and how a listing says.

The person's places are their profile `location` and `[search] locations` (cities, countries,
regions); how they want to work is `[search] remote`. A listing is onsite or hybrid somewhere
(its locations' cities), or remote, possibly restricted to a region or time zone ("Remote - US",
"US only", "must be based in Canada", "EU time zones", "authorised to work in the UK"). Visa:
"no sponsorship" against a person who needs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from jobsearch.reading import normalise, vocabulary

_HYBRID = re.compile(r"\bhybrid\b", re.IGNORECASE)
_ONSITE = re.compile(
    r"\b(?:on[- ]?site|in[- ]office|in the office|office[- ]based|in person)\b", re.IGNORECASE
)
_REGIONS = "|".join(
    sorted({re.escape(n) for names in vocabulary.CONTINENTS.values() for n in names}, key=len, reverse=True)
)
_RESTRICTED = re.compile(
    rf"\b(?:must|need to|needs to|required to|have to|should)\s+(?:be\s+)?"
    rf"(?:based|located|living|reside|residing|live)\s+(?:in|within)\s+(?:the\s+)?({_REGIONS})\b"
    rf"|\b({_REGIONS})[\s-]*(?:only|based (?:candidates|applicants) only)\b"
    rf"|\b(?:authori[sz]ed|eligible|permitted|right) to work in (?:the\s+)?({_REGIONS})\b"
    rf"|\b(?:only|exclusively) (?:hiring|considering|open to|accepting)[^.\n]{{0,30}}?\b(?:in|from) "
    rf"(?:the\s+)?({_REGIONS})\b"
    rf"|\b({_REGIONS})\s+(?:time ?zones?|hours|business hours)\b",
    re.IGNORECASE,
)
_NO_VISA = re.compile(
    r"\b(?:no|not able to|unable to|cannot|can't|do not|don't|will not|won't)\s+(?:offer\s+|provide\s+)?"
    r"(?:visa\s+)?sponsor(?:ship)?\b|\bsponsorship is not available\b|\bwithout (?:visa )?sponsorship\b",
    re.IGNORECASE,
)
_VISA_OFFERED = re.compile(
    r"\b(?:visa sponsorship (?:is )?(?:available|offered|provided)|we (?:can )?sponsor visas?|"
    r"relocation (?:support|package|assistance))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PlaceMatch:
    """How a listing's place meets the person's: `ok` True, False, or None when it says nothing."""

    ok: bool | None
    text: str  # in words, for the reason
    # How the work is done is not how the person wants it: remote when they want to be on site or
    # hybrid ("remote"), onsite in their city when they want hybrid or remote ("onsite"); else "".
    unwanted: str = ""
    visa: str = ""  # "refused", "offered" or ""


def _regions(value: str) -> set[str]:
    """The countries and regions a place names (normal forms)."""
    parts = set(normalise.location(value).parts)
    return {p for p in parts if p in vocabulary.REGIONS}


def _continents(values: list[str]) -> set[str]:
    out: set[str] = set()
    for value in values:
        out |= normalise.continents(value)
    return out


def _person_places(profile: Profile) -> tuple[set[str], set[str], set[str]]:
    """The person's cities, countries/regions and continents."""
    values = [v for v in [profile.person.location or "", *profile.search.locations] if v]
    cities = {c for v in values for c in normalise.location(v).cities}
    regions: set[str] = set()
    for v in values:
        regions |= _regions(v)
    return cities, regions, _continents(values)


def _restriction(listing: MergedListing) -> set[str]:
    """The regions a remote listing is restricted to (normal forms), from its places and text."""
    found: set[str] = set()
    for place in listing.locations:
        if normalise.is_remote_place(place):
            found |= _regions(place)
    for match in _RESTRICTED.finditer(f"{listing.title}\n{listing.description}"):
        name = next(g for g in match.groups() if g)
        found.add(normalise.text(name))
    return found - {"global", "international", "anywhere", "worldwide"}


# Regions that span a continent or more: anyone on one of its continents is inside.
_WIDE = frozenset(
    {
        *("eu", "europe", "emea", "latam", "americas", "apac", "anz", "asia", "oceania", "dach"),
        *("nordics", "benelux", "cee", "scandinavia", "latin america", "asia pacific"),
        *("european union", "north america", "south america"),
    }
)


def _within(regions: set[str], person_regions: set[str], person_continents: set[str]) -> bool:
    """Whether the person is inside one of the regions a listing is restricted to."""
    for region in regions:
        if region in person_regions:
            return True
        inside = normalise.continents_of(region)
        # a continent-wide region ("EU", "EMEA", "LATAM", "Americas") takes everyone on it
        if region in _WIDE and inside & person_continents:
            return True
    return False


def is_remote(listing: MergedListing) -> bool:
    """The listing is remote: the board's field, else its flag, a place or the title."""
    if listing.workplace is not None:
        return listing.workplace == "remote"
    return (
        bool(listing.remote)
        or any(normalise.is_remote_place(p) for p in listing.locations)
        or (normalise.is_remote_title(listing.title))
    )


def is_hybrid(listing: MergedListing) -> bool:
    """The listing is hybrid: the board's field, else its title, a place or its text."""
    if listing.workplace is not None:
        return listing.workplace == "hybrid"
    return any(_HYBRID.search(t) for t in [listing.title, *listing.locations])


def _elsewhere(profile: Profile) -> str:
    return profile.person.location or "another place"


def _remote_match(profile: Profile, listing: MergedListing, visa: str) -> PlaceMatch:
    _, regions, continents = _person_places(profile)
    where = sorted(_restriction(listing))
    if where and (regions or continents) and not _within(set(where), regions, continents):
        limited = ", ".join(w.upper() if len(w) <= 4 else w.title() for w in where)
        return PlaceMatch(
            False, f"remote, but only in {limited}; you are in {_elsewhere(profile)}", visa=visa
        )
    if profile.search.remote in ("onsite", "hybrid"):
        want = "to be on site" if profile.search.remote == "onsite" else "hybrid"
        return PlaceMatch(True, f"remote; you want {want}", unwanted="remote", visa=visa)
    return PlaceMatch(True, "remote" + (f" ({', '.join(where)})" if where else ""), visa=visa)


def place_match(profile: Profile, listing: MergedListing) -> PlaceMatch:
    """How the listing's place and way of working meet the person's."""
    text = f"{listing.title}\n{listing.description}"
    visa = "refused" if _NO_VISA.search(text) else "offered" if _VISA_OFFERED.search(text) else ""
    if is_remote(listing):
        return _remote_match(profile, listing, visa)
    return _office_match(profile, listing, visa)


def _in_your_city(how: str, shown: str, mode: str, visa: str) -> PlaceMatch:
    """An onsite or hybrid job in one of the person's cities: wanted, unless they want hybrid or
    remote and it is onsite."""
    if how == "onsite" and mode in ("hybrid", "remote_or_hybrid"):
        want = "hybrid" if mode == "hybrid" else "remote or hybrid"
        return PlaceMatch(True, f"onsite in {shown}; you want {want}", unwanted="onsite", visa=visa)
    return PlaceMatch(True, f"{how} in {shown}", visa=visa)


def _office_match(profile: Profile, listing: MergedListing, visa: str) -> PlaceMatch:
    cities, regions, continents = _person_places(profile)
    listing_cities = {c for p in listing.locations for c in normalise.location(p).cities}
    listing_regions = {r for p in listing.locations for r in _regions(p)}
    how = "hybrid" if is_hybrid(listing) else "onsite"
    shown = ", ".join(sorted(listing_cities)).title()
    if not listing_cities:
        if listing_regions and (regions or continents) and not listing_regions & regions:
            where = ", ".join(listing.locations)
            return PlaceMatch(False, f"{how} in {where}; you are in {_elsewhere(profile)}", visa=visa)
        return PlaceMatch(None, "", visa=visa)
    mode = profile.search.remote
    if mode == "remote":
        return PlaceMatch(False, f"{how} in {shown}; you want remote", visa=visa)
    parts = [part for p in listing.locations for part in normalise.location(p).parts]
    near = {c for c in cities for part in parts if c in part.split()}  # "Mallow, Co. Cork" is in Cork
    if cities and (listing_cities & cities or near):
        return _in_your_city(how, shown, mode, visa)
    wanted_regions = {r for v in profile.search.locations for r in _regions(v)}
    if listing_regions & wanted_regions:  # "Mississauga, ON, Canada" when Canada is one of your places
        region = ", ".join(sorted(listing_regions & wanted_regions)).title()
        return PlaceMatch(None, f"{how} in {shown}, in {region}", visa=visa)
    wanted = ", ".join(sorted(cities)).title() or "your places"
    want = f"remote or {wanted}" if mode in ("any", "remote_or_hybrid") else wanted
    return PlaceMatch(False, f"{how} in {shown}; you want {want}", visa=visa)
