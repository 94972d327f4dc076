"""What a listing requires, read against the person's skills as the fit score reads it
(`jobsearch.fit.skills`, `jobsearch.fit.sections`): the drafts lead with what the person meets
and never claim what they do not.

```python
reading = requirements(profile, listing)
reading.required   # ["Python", "PostgreSQL"]: the person's skills the listing requires
reading.mentioned  # ["Kafka"]: the person's skills it names elsewhere (nice to have, the text)
reading.unmet      # ["Terraform"]: tools it requires that the profile does not list
```
Only `[person] skills` count as the person's (not `[search] must`, which names what they want of
a job); each skill is spelled as the profile spells it, each unmet tool as the listing does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jobsearch.fit.sections import sections
from jobsearch.fit.skills import match
from jobsearch.listing import MergedListing
from jobsearch.llm.template.prose import plain
from jobsearch.profile import Profile

UNMET_MOST = 4  # unmet tools named, at most: a letter is not a list of gaps


@dataclass(frozen=True)
class Requirements:
    """A listing's requirements against one person's skills."""

    required: list[str]
    mentioned: list[str]
    unmet: list[str]


def _as_written(tool: str, text: str) -> str:
    """The tool as the listing writes it ("terraform" -> "Terraform"), else as given."""
    found = re.search(rf"(?<![\w.+#-]){re.escape(tool)}(?![\w+#])", text, re.IGNORECASE)
    return plain(found.group(0)) if found else plain(tool)


def requirements(profile: Profile, listing: MergedListing) -> Requirements:
    """Read the listing's title and text against the profile's skills."""
    parts = sections(listing.description)
    found = match(listing.title, parts, profile.person.skills, [], [])
    unmet = [_as_written(tool, parts.required) for tool in found.asks_missing]
    return Requirements(
        required=[s for s in (plain(s) for s in found.required) if s],
        mentioned=[s for s in (plain(s) for s in found.other) if s],
        unmet=[t for t in dict.fromkeys(unmet) if t][:UNMET_MOST],
    )
