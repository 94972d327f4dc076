"""Finding a company's job boards: `jobsearch boards find "Acme" --domain acme.com`.

```python
async with BoardHttp() as http:
    report = await find_company(http, Company("Acme Robotics GmbH", "acme.io"))
[(f.source, f.postings) for f in report.findings if f.verdict == "found"]
```
`slugs` makes the names to try, `probe` tries them through the boards' own adapters
(`jobsearch.sources.fetch_source`), `careers` reads the domain's careers pages for board links and
JobPosting data, `profile_append` appends what was found to a profile, and `command` is the CLI.
"""

from __future__ import annotations

from jobsearch.finding.command import add_boards_commands, cmd_boards_find
from jobsearch.finding.probe import Company, CompanyReport, Finding, Mirrors, find_companies, find_company
from jobsearch.finding.profile_append import Appended, append_sources, source_table
from jobsearch.finding.slugs import slug_candidates, source_key

__all__ = [
    "Appended",
    "Company",
    "CompanyReport",
    "Finding",
    "Mirrors",
    "add_boards_commands",
    "append_sources",
    "cmd_boards_find",
    "find_companies",
    "find_company",
    "slug_candidates",
    "source_key",
    "source_table",
]
