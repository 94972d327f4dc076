"""Which of a comment's links is the way to apply: a careers page or an applicant tracker's posting.

The comment itself stays the listing's source (the back-link HN readers expect); a link to an
applicant tracking system (Greenhouse, Lever, Ashby, Workable, Workday...) or to a page whose
path says careers or jobs is where one applies. A company's home page, a blog post or another HN
item is neither.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

ATS_HOSTS: Final = (
    "greenhouse.io", "lever.co", "ashbyhq.com", "workable.com", "smartrecruiters.com",
    "myworkdayjobs.com", "bamboohr.com", "recruitee.com", "personio.de", "personio.com",
    "breezy.hr", "jobvite.com", "icims.com", "teamtailor.com", "wellfound.com", "angel.co",
    "rippling.com", "pinpointhq.com", "workatastartup.com", "jazzhr.com", "applytojob.com",
)  # fmt: skip
_CAREERS_PATH: Final = re.compile(
    r"(?:^|[/.-])(?:careers?|jobs?|join(?:-us)?|work-with-us|hiring|apply|positions|openings|vacanc\w*"
    r"|vacatures|karriere|stellen\w*|empleos?|trabaja\w*|carrieres|recrutement|recruit\w*|kariera|jobb"
    r"|vagas|lavora\w*"
    r"|opportunities)(?:$|[/.?#-])",
    re.I,
)


def is_apply_link(url: str) -> bool:
    """Whether the link is where one applies (an ATS posting or board, or a careers page)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    host = (parts.hostname or "").casefold()
    if not host or parts.scheme not in ("http", "https") or host.endswith("news.ycombinator.com"):
        return False
    if any(host == h or host.endswith("." + h) for h in ATS_HOSTS):
        return True
    if host.startswith(("careers.", "jobs.", "apply.")):
        return True
    return bool(_CAREERS_PATH.search(parts.path or ""))


def is_careers_page(url: str) -> bool:
    """A company's careers page as a whole (`/careers`, `/jobs`), not one posting on it: a role's
    line that links it still shares it with the comment's other roles."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    segments = [s for s in (parts.path or "").split("/") if s]
    host = (parts.hostname or "").casefold()
    return len(segments) <= 1 and is_apply_link(url) and not any(host.endswith(h) for h in ATS_HOSTS)


def apply_link(links: list[str]) -> str | None:
    """The first link one applies at, if any."""
    return next((url for url in links if is_apply_link(url)), None)
