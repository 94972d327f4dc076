"""robots.txt, read as RFC 9309 says, for the crawled boards (`jobposting`) and `boards find`.

```python
robots, unreadable = await read_robots(http, "jobposting", "https://acme.example/robots.txt")
robots.can_fetch("jobsearch", url)
```
A missing robots.txt (4xx) allows every page; one that cannot be read now (5xx, a timeout)
disallows every page, and the failure is handed back for the caller to report. Rules are parsed
by `urllib.robotparser`, each group's rules longest first so that its first match is the
longest (RFC 9309); the `*` and `$` wildcards are not applied.
"""

from __future__ import annotations

from typing import Final
from urllib.robotparser import RobotFileParser

from jobsearch.sources.errors import SourceError
from jobsearch.sources.http import BoardHttp

DISALLOW_ALL: Final = ["User-agent: *", "Disallow: /"]


async def read_robots(http: BoardHttp, board: str, url: str) -> tuple[RobotFileParser, SourceError | None]:
    """The rules at `url`, and the failure that made them disallow everything, if any.

    Raises:
        SourceError: the host is one `JOBSEARCH_ALLOW_HOSTS` does not allow (`host_denied`).
    """
    robots = RobotFileParser()
    try:
        body = await http.get(board, url, accept="text/plain, */*")
    except SourceError as exc:
        if exc.kind in ("not_found", "refused"):  # RFC 9309: an unavailable robots.txt allows all
            robots.parse([])
            return robots, None
        if exc.kind == "host_denied":
            raise
        robots.parse(DISALLOW_ALL)  # unreachable: RFC 9309 says assume everything is disallowed
        return robots, exc
    robots.parse(longest_first(body.content.decode("utf-8", errors="replace").splitlines()))
    return robots, None


def longest_first(lines: list[str]) -> list[str]:
    """robots.txt lines with each group's rules longest path first, an Allow before a Disallow of
    the same length, and no blank lines.

    `urllib.robotparser` applies the first rule that matches and ends a group at a blank line;
    RFC 9309 applies the longest match (the Allow on a tie) and groups by User-agent lines only.
    In this order, the first match is the longest.
    """
    out: list[str] = []
    rules: list[tuple[int, bool, str]] = []
    for line in lines:
        key, _, value = line.split("#", 1)[0].partition(":")
        key = key.strip().lower()
        if key in ("allow", "disallow"):
            rules.append((-len(value.strip()), key == "disallow", line))
            continue
        if not line.strip():
            continue
        if key == "user-agent" and rules:
            out.extend(rule for *_, rule in sorted(rules))
            rules.clear()
        out.append(line)
    out.extend(rule for *_, rule in sorted(rules))
    return out
