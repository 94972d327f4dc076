"""Scraped text in a prompt, and a model's JSON answer read back: shared by every prompt that
hands a provider untrusted text (a draft, a fit judgement, a comment reading).

The text goes inside a tag named with a fresh nonce the text cannot guess; any tag in it that
looks like one of the prompt's own (`<listing ...>`, `</profile>`) is defused to parentheses, so
the text cannot close its fence. An answer is the first `{...}` in it (a model may wrap it in a
code block or a sentence), decoded into the shape asked for.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TypeVar

import msgspec

from jobsearch.listing import MergedListing

T = TypeVar("T")
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class UnreadableAnswer(ValueError):
    """The model's answer is not the JSON object asked for."""


@cache
def _lookalike(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"</?\s*({'|'.join(map(re.escape, names))})[^>]*>", re.IGNORECASE)


def defuse(text: str, names: tuple[str, ...] = ("listing", "profile")) -> str:
    """`text` with every tag that looks like one of the fences `names` made harmless."""
    return _lookalike(names).sub(lambda m: m.group(0).replace("<", "(").replace(">", ")"), text)


def listing_block(listing: MergedListing, extra: list[str]) -> str:
    """A listing as the prompt's fenced data: its facts, the `extra` lines, then its text."""
    lines = [
        f"title: {listing.title}",
        f"company: {listing.company}",
        f"locations: {', '.join(listing.locations) or 'not stated'}",
        f"remote: {'yes' if listing.remote else 'no' if listing.remote is False else 'not stated'}",
        *extra,
        "description:",
        listing.description.strip() or "(none)",
    ]
    return defuse("\n".join(lines))


def json_answer(text: str, decoder: msgspec.json.Decoder[T], what: str) -> T:
    """The first JSON object in a model's answer, decoded (`what` names the shape asked for).

    Raises:
        UnreadableAnswer: no JSON object of that shape is in it.
    """
    found = _OBJECT.search(text)
    if found is None:
        raise UnreadableAnswer("the answer holds no JSON object")
    try:
        return decoder.decode(found.group(0))
    except msgspec.ValidationError as exc:
        raise UnreadableAnswer(f"the answer's JSON is not {what}: {exc}") from None
    except msgspec.DecodeError:
        raise UnreadableAnswer("the answer's JSON cannot be read") from None
