"""Where a job is done, in our words: a board's own workplace field, or what its text says.

Boards spell it their own way (Lever `on-site`, Ashby `OnSite`, Workable `on_site`, SmartRecruiters
a `remote`/`hybrid` flag); `workplace_named` reads any of them. Boards without a field (Greenhouse's
free-text location, RSS feeds, Hacker News) are read with `workplace_in_text`, which only trusts
the plain words: hybrid, remote, on-site (and German Homeoffice, vor Ort).
"""

from __future__ import annotations

import re
from typing import Final

from jobsearch.listing import Workplace

_NAMED: Final[dict[str, Workplace]] = {
    "remote": "remote",
    "fullyremote": "remote",
    "hybrid": "hybrid",
    "onsite": "onsite",
    "inoffice": "onsite",
    "office": "onsite",
    "inperson": "onsite",
}
_HYBRID: Final = re.compile(r"\bhybrid\b", re.I)
# "not remote", "no remote", "non-remote" say the opposite of the word they contain.
_REMOTE: Final = re.compile(
    r"(?<!\bnot )(?<!\bno )(?<!\bnon-)(?<!\bnon )\b(?:remote|work from home|wfh|homeoffice|home-office)\b",
    re.I,
)
_ONSITE: Final = re.compile(r"\b(?:on[- ]?site|in[- ]office|office[- ]based|in[- ]person|vor ort)\b", re.I)


def workplace_named(value: str | None) -> Workplace | None:
    """A board's workplace value as ours (`"on-site"`, `"OnSite"`, `"on_site"` -> onsite); None for
    `unspecified` and anything unknown."""
    if not value:
        return None
    return _NAMED.get(re.sub(r"[\s_-]", "", value).lower())


def workplace_in_text(*texts: str | None) -> Workplace | None:
    """What the texts (a location, a title, a posting's first line) say about where the job is done.

    Hybrid wins over remote, since a hybrid job is often written "hybrid remote"; remote wins over
    on-site, since "remote or on-site in Berlin" offers remote.
    """
    joined = " | ".join(t for t in texts if t)
    if not joined:
        return None
    if _HYBRID.search(joined):
        return "hybrid"
    if _REMOTE.search(joined):
        return "remote"
    if _ONSITE.search(joined):
        return "onsite"
    return None
