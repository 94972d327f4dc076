"""Reading Hacker News "Who is hiring?" comments as a person does (`read_comment`).

```python
reading = read_comment('Acme | Senior Backend Engineer | Berlin | REMOTE (EU) | €90k-€110k | ...')
reading.company, [r.title for r in reading.roles], reading.roles[0].region  # "Acme", [...], "EU"
read_comment("SEEKING WORK | Data engineer | ...").skip  # "not a posting: job seeker"
```
`markup` turns the comment's HTML into lines, `fields` reads one field by what it is (`vocab` holds
the words), `roles` finds the roles, `links` the way to apply, `skips` what is no posting, and
`reader` puts them together.
"""

from __future__ import annotations

from jobsearch.sources.hn.posting import Reading, Role
from jobsearch.sources.hn.reader import read_comment

__all__ = ["Reading", "Role", "read_comment"]
