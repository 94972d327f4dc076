"""The labelled de-duplication sets in boards' own shapes: raw payloads, read through the real adapters.

A set is a folder under `fixtures/`: what each board endpoint answers (one payload file per
endpoint, in the board's own shape, named after the source it answers) and `labels.json`, which
says which postings are one real job, what each job pays, and which pairs of different jobs look
alike. `fixtures/dedupe_second/` (the second set) and `fixtures/dedupe_holdout/` (a smaller holdout,
only ever reported on) were both written without looking at the matcher, so they measure dedupe on
data not tuned to it (each `labels.json`'s `about` says how).

```python
postings = await load_second_set()   # [(posting key, job label, Listing)], in SOURCES order
postings = await load_set(HOLDOUT)   # any set's folder, in set_sources(folder) order
expected_salaries()["kestrel-sre"]   # Salary(min=140000.0, max=165000.0, currency="USD", ...)
hard_negative_pairs(HOLDOUT)         # [("lever:…", "lever:…", "why they are different jobs")]
```
The sources a folder answers are read off its file names (`set_sources`): `greenhouse_<token>.json`,
`lever_<site>.json`, `ashby_<board>.json`, `workable_<account>.json`,
`smartrecruiters_<company>.json` (with its posting details in `smartrecruiters_<company>/<id>.json`),
`remoteok.json`, `remotive.json`, `arbeitnow_page<n>.json`, `hackernews_<thread id>.json` and any
`*.rss` feed, whose URL is the feed's own `<atom:link rel="self">` (the second set's feeds name no
URL: `RSS_FILES` gives theirs). The payloads are served by a real local HTTP server
(`tests.http_target`) and read by `jobsearch.sources.fetch_source`, each source's `base_url` pointed
at it: a posting reaches dedupe exactly as the adapter maps it. A posting without a label, a label
without a posting, a request the set has no file for, a payload file no source reads or no request
asked for, all fail loudly (an adapter that changes its paths shows up here).
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import msgspec

from jobsearch.listing import Listing, MergedListing, Salary
from jobsearch.profile import (
    Arbeitnow,
    Ashby,
    Greenhouse,
    HackerNews,
    Lever,
    RemoteOK,
    Remotive,
    Rss,
    SmartRecruiters,
    Source,
    Workable,
    source_name,
)
from jobsearch.sources import BoardHttp, SourceError, fetch_source
from tests.http_target import Answer, HttpTarget, serving
from tests.jobsearch.boards import FAST, FIXTURES

SECOND = FIXTURES / "dedupe_second"
HOLDOUT = FIXTURES / "dedupe_holdout"
DIR = SECOND  # the second set: the default of every function below
LABELS = DIR / "labels.json"
LABELS_FILE = "labels.json"

Posting = tuple[str, str, Listing]  # (posting key, job label, listing)

# The second set's feeds, by public URL: the Rss adapter asks the test server for the same path.
RSS_FILES = {
    "https://weworkremotely.com/remote-jobs.rss": "weworkremotely.rss",
    "https://remotejobsdaily.example/feed/jobs.rss": "remotejobsdaily.rss",
}

_ATOM_LINK = "{http://www.w3.org/2005/Atom}link"
# The boards a folder's payload files answer, in the order a profile would list them: company
# boards, then aggregators. A board's sources come in the order of their names.
_NAMED = (
    ("greenhouse", re.compile(r"greenhouse_(?P<name>.+)\.json")),
    ("lever", re.compile(r"lever_(?P<name>.+)\.json")),
    ("ashby", re.compile(r"ashby_(?P<name>.+)\.json")),
    ("workable", re.compile(r"workable_(?P<name>.+)\.json")),
    ("smartrecruiters", re.compile(r"smartrecruiters_(?P<name>[^/]+)(?:\.json|/\d+\.json)")),
    ("remoteok", re.compile(r"remoteok\.json")),
    ("remotive", re.compile(r"remotive\.json")),
    ("arbeitnow", re.compile(r"arbeitnow_page\d+\.json")),
    ("hackernews", re.compile(r"hackernews_(?P<name>\d+)\.json")),
)


def set_sources(folder: Path, feeds: Mapping[str, str] | None = None) -> tuple[Source, ...]:
    """Every source whose payloads `folder` holds, in the order a profile would list them.

    `feeds` maps each feed's public URL to its file; by default each `*.rss` file names its own
    (`<atom:link rel="self">`), in the order of the file names.

    Raises:
        ValueError: a file of the folder answers no source, or a feed names no URL.
    """
    found: dict[str, set[str]] = {board: set() for board, _ in _NAMED}
    feed_files = dict(feeds) if feeds is not None else _own_feeds(folder)
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_dir() or relative == LABELS_FILE or relative in feed_files.values():
            continue
        board, match = next(
            ((board, m) for board, pattern in _NAMED if (m := pattern.fullmatch(relative))), ("", None)
        )
        if match is None:
            raise ValueError(f"{folder.name}/{relative} answers no board's source")
        found[board].add(match.groupdict().get("name") or "")
    sources: list[Source] = [
        *(Greenhouse(token=name) for name in sorted(found["greenhouse"])),
        *(Lever(site=name) for name in sorted(found["lever"])),
        *(Ashby(board_name=name) for name in sorted(found["ashby"])),
        *(Workable(account=name) for name in sorted(found["workable"])),
        *(SmartRecruiters(company=name) for name in sorted(found["smartrecruiters"])),
        *([RemoteOK()] if found["remoteok"] else []),
        *([Remotive()] if found["remotive"] else []),
        *([Arbeitnow()] if found["arbeitnow"] else []),
        *(HackerNews(thread_id=int(name)) for name in sorted(found["hackernews"], key=int)),
        *(Rss(url=url) for url in feed_files),
    ]
    return tuple(sources)


def _own_feeds(folder: Path) -> dict[str, str]:
    """Each feed file's own URL (its channel's `<atom:link rel="self">`): file name."""
    feeds: dict[str, str] = {}
    for path in sorted(folder.glob("*.rss")):
        channel = ET.parse(path).getroot().find("channel")
        links = channel.findall(_ATOM_LINK) if channel is not None else []
        url = next((link.get("href") for link in links if link.get("rel") == "self"), None)
        if not url:
            raise ValueError(f'{folder.name}/{path.name} names no URL (<atom:link rel="self">)')
        feeds[url] = path.name
    return feeds


# Every source the second set reads.
SOURCES: tuple[Source, ...] = set_sources(DIR, RSS_FILES)


class JobLabel(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """One real job: the pay its postings state (None: none states pay) and the classes it tests."""

    salary: Salary | None
    classes: list[str]
    note: str = ""


class HardNegative(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Two postings of different jobs that look alike, and why they are different."""

    a: str
    b: str
    why: str
    classes: list[str]


class Labels(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """`labels.json`: each posting's job, each job's label, the hard negatives, the class tags."""

    notice: str
    about: str
    classes: dict[str, str]  # class tag: what it means
    postings: dict[str, str]  # "<board>:<external_id>": job label
    jobs: dict[str, JobLabel]
    hard_negatives: list[HardNegative]


@functools.cache
def load_labels(folder: Path = DIR) -> Labels:
    """A set's labels (by default the second set's), decoded and checked against their shape."""
    return msgspec.json.decode((folder / LABELS_FILE).read_bytes(), type=Labels)


def expected_salaries(folder: Path = DIR) -> dict[str, Salary | None]:
    """Each job's pay as its postings state it, by job label (None: no posting states pay)."""
    return {label: job.salary for label, job in load_labels(folder).jobs.items()}


def hard_negative_pairs(folder: Path = DIR) -> list[tuple[str, str, str]]:
    """Pairs of posting keys of different jobs that look alike, each with why."""
    return [(pair.a, pair.b, pair.why) for pair in load_labels(folder).hard_negatives]


async def load_second_set() -> list[Posting]:
    """Every posting of the second set as its board's adapter maps it, with its key and job label."""
    return await load_set(DIR, RSS_FILES)


async def load_set(folder: Path, feeds: Mapping[str, str] | None = None) -> list[Posting]:
    """Every posting of the set in `folder` as its board's adapter maps it, with its key and job
    label, in `set_sources(folder, feeds)` order (each board's postings in the order it lists them).

    Raises:
        AssertionError: a source could not be read, an adapter asked for a path the set does not
            serve, a payload file was asked for by no request, or postings and labels do not match
            one to one.
        ValueError: a file of the folder answers no source.
    """
    feed_files = dict(feeds) if feeds is not None else _own_feeds(folder)
    listings: list[Listing] = []
    with serving() as target:
        server = _SetServer(target)
        async with BoardHttp(FAST) as http:
            for source in set_sources(folder, feed_files):
                listings.extend(await server.read(http, source, _routes(source, folder, feed_files)))
        if unserved := server.unserved():
            raise AssertionError(f"the adapters asked for paths the set does not serve: {unserved}")
    if unread := sorted(path.relative_to(folder).as_posix() for path in _payloads(folder) - server.served):
        raise AssertionError(f"no adapter asked for these files of {folder.name}: {unread}")
    return _labelled(listings, load_labels(folder))


def _payloads(folder: Path) -> set[Path]:
    """Every file of the set but its labels."""
    return {path for path in folder.rglob("*") if path.is_file() and path != folder / LABELS_FILE}


@dataclass(frozen=True)
class Route:
    """A file of the set and the request it answers: a path, and the query parameters that choose
    the answer (a page number, `content=true`). Parameters an adapter adds beyond these are
    accepted, so a new one (Greenhouse's `pay_transparency=true`) does not break the set."""

    path: str
    params: dict[str, str]
    file: Path
    content_type: str = "application/json"

    def answers(self, request_path: str) -> bool:
        """Whether this file answers a request for `request_path` (path and query)."""
        parts = urlsplit(request_path)
        return parts.path == self.path and self.params.items() <= dict(parse_qsl(parts.query)).items()


class _SetServer:
    """Serves a set on a test server. The exact path an adapter asks for (its query included) is
    learnt from the request the server records: the first ask is answered 404, the matching file is
    scripted for that path, and the source is read again."""

    ROUNDS = 10  # reads of one source at most: Arbeitnow learns one page per read

    def __init__(self, target: HttpTarget) -> None:
        self.target = target
        self.scripted: set[str] = set()
        self.served: set[Path] = set()  # the files scripted for some request

    async def read(self, http: BoardHttp, source: Source, routes: list[Route]) -> list[Listing]:
        """`source`'s listings, read through its adapter from this server, `routes` answering."""
        pointed = msgspec.structs.replace(source, base_url=self.target.url(""))
        for _ in range(self.ROUNDS):
            failure: SourceError | None = None
            try:
                fetched = await fetch_source(http, pointed)
            except SourceError as exc:
                failure = exc
            if self._learn(routes):
                continue  # a request was answered 404 that a file answers: read again
            if failure is not None:
                raise AssertionError(
                    f"{source_name(source)}: {failure} (not served: {self.unserved()})"
                ) from failure
            return fetched.listings
        raise AssertionError(f"{source_name(source)}: still asking for new paths after {self.ROUNDS} reads")

    def _learn(self, routes: list[Route]) -> bool:
        learnt = False
        for path in self.unserved():
            route = next((route for route in routes if route.answers(path)), None)
            if route is not None:
                body = route.file.read_bytes()
                self.target.script(path, Answer(200, body, {"Content-Type": route.content_type}))
                self.scripted.add(path)
                self.served.add(route.file)
                learnt = True
        return learnt

    def unserved(self) -> list[str]:
        """The paths asked for that no file answered."""
        return sorted({request.path for request in self.target.requests} - self.scripted)


def _routes(source: Source, folder: Path, feeds: Mapping[str, str]) -> list[Route]:  # noqa: PLR0911 - one exit per board
    """The files of `folder` that answer `source`'s adapter, each with the request it answers."""
    match source:
        case Greenhouse(token=token):
            return [
                Route(f"/v1/boards/{token}/jobs", {"content": "true"}, folder / f"greenhouse_{token}.json")
            ]
        case Lever(site=site):
            return [
                Route(f"/v0/postings/{site}", {"mode": "json", "skip": "0"}, folder / f"lever_{site}.json")
            ]
        case Ashby(board_name=name):
            return [
                Route(
                    f"/posting-api/job-board/{name}",
                    {"includeCompensation": "true"},
                    folder / f"ashby_{name}.json",
                )
            ]
        case Workable(account=account):
            return [
                Route(
                    f"/api/v1/widget/accounts/{account}",
                    {"details": "true"},
                    folder / f"workable_{account}.json",
                )
            ]
        case SmartRecruiters(company=company):
            base = f"/v1/companies/{company}/postings"
            details = sorted((folder / f"smartrecruiters_{company}").glob("*.json"))
            return [
                Route(base, {"offset": "0"}, folder / f"smartrecruiters_{company}.json"),
                *(Route(f"{base}/{detail.stem}", {}, detail) for detail in details),
            ]
        case RemoteOK():
            return [Route("/api", {}, folder / "remoteok.json")]
        case Remotive():
            return [Route("/api/remote-jobs", {}, folder / "remotive.json")]
        case Arbeitnow():
            pages = sorted(
                folder.glob("arbeitnow_page*.json"), key=lambda page: int(page.stem[len("arbeitnow_page") :])
            )
            return [
                Route("/api/job-board-api", {"page": page.stem[len("arbeitnow_page") :]}, page)
                for page in pages
            ]
        case HackerNews(thread_id=thread):
            return [Route(f"/api/v1/items/{thread}", {}, folder / f"hackernews_{thread}.json")]
        case Rss(url=url):
            return [Route(urlsplit(url).path, {}, folder / feeds[url], "application/rss+xml; charset=utf-8")]
    raise ValueError(f"{folder.name} has no payload for {source_name(source)}")


def _labelled(listings: list[Listing], labels: Labels) -> list[Posting]:
    keys = [listing.key for listing in listings]
    repeated = sorted(key for key, count in Counter(keys).items() if count > 1)
    unlabelled = sorted(set(keys) - labels.postings.keys())
    unloaded = sorted(labels.postings.keys() - set(keys))
    if repeated or unlabelled or unloaded:
        raise AssertionError(
            f"postings and labels differ: read twice {repeated}; without a label {unlabelled}; "
            f"labelled but not read {unloaded}"
        )
    return [(listing.key, labels.postings[listing.key], listing) for listing in listings]


class PairScores(msgspec.Struct, kw_only=True, frozen=True):
    """Pairwise precision and recall of a clustering against the job labels."""

    precision: float  # of the pairs put together, the share that are one job (1.0 if none)
    recall: float  # of the pairs that are one job, the share put together (1.0 if none)
    predicted: int
    true: int
    false_merges: list[tuple[str, str]]  # posting keys put together that are different jobs
    missed: list[tuple[str, str]]  # posting keys of one job left apart


def pair_scores(postings: Sequence[Posting], merged_ids: Mapping[str, str]) -> PairScores:
    """Score `merged_ids` (posting key: the merged-listing id it joined) against the labels."""
    job = {key: label for key, label, _ in postings}
    keys = sorted(job)
    true = {(a, b) for a, b in combinations(keys, 2) if job[a] == job[b]}
    predicted = {(a, b) for a, b in combinations(keys, 2) if merged_ids[a] == merged_ids[b]}
    hits = len(true & predicted)
    return PairScores(
        precision=hits / len(predicted) if predicted else 1.0,
        recall=hits / len(true) if true else 1.0,
        predicted=len(predicted),
        true=len(true),
        false_merges=sorted(predicted - true),
        missed=sorted(true - predicted),
    )


def failing_classes(scores: PairScores, labels: Labels) -> Counter[str]:
    """How many failing pairs touch each class: a missed pair counts its job's classes; a false
    merge counts its hard negative's classes, or `unlisted` when it is not a listed hard negative."""
    negatives = {frozenset((pair.a, pair.b)): pair.classes for pair in labels.hard_negatives}
    counts: Counter[str] = Counter()
    for a, _ in scores.missed:
        counts.update(labels.jobs[labels.postings[a]].classes)
    for a, b in scores.false_merges:
        counts.update(negatives.get(frozenset((a, b)), ["unlisted"]))
    return counts


class SalaryCoverage(msgspec.Struct, kw_only=True, frozen=True):
    """How the merged listings carry the pay their postings state."""

    stated: list[str]  # jobs whose postings state pay
    carried: list[str]  # of those, the jobs whose merged listing has a salary
    wrong: list[str]  # of those, the jobs whose merged salary differs from the stated pay
    invented: list[str]  # jobs whose postings state no pay but whose merged listing has a salary

    @property
    def share(self) -> float:
        """The share of the jobs stating pay whose merged listing has a salary."""
        return len(self.carried) / len(self.stated) if self.stated else 1.0


def salary_coverage(
    final: Mapping[str, MergedListing], expected: Mapping[str, Salary | None]
) -> SalaryCoverage:
    """Compare each job's final merged listing (by job label) with the pay its postings state.

    A salary is the stated pay when min, max, currency and interval all agree (where it came
    from, a field or the text, does not matter).
    """

    stated = sorted(label for label, salary in expected.items() if salary is not None)
    carried = [label for label in stated if final[label].salary is not None]
    return SalaryCoverage(
        stated=stated,
        carried=carried,
        wrong=[label for label in carried if _terms(final[label].salary) != _terms(expected[label])],
        invented=sorted(
            label for label, salary in expected.items() if salary is None and final[label].salary is not None
        ),
    )


def _terms(salary: Salary | None) -> tuple[float | str | None, ...]:
    return (salary.min, salary.max, salary.currency, salary.interval) if salary else ()
