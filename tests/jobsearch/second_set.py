"""The second labelled de-duplication set: raw board payloads, read through the real adapters.

`fixtures/dedupe_second/` holds what each board endpoint answers (one payload file per endpoint,
in the board's own shape) and `labels.json`, which says which postings are one real job, what
each job pays, and which pairs of different jobs look alike. It was written without looking at
the matcher, so it measures dedupe on data not tuned to it (`labels.json`'s `about` says how).

```python
postings = await load_second_set()   # [(posting key, job label, Listing)], in SOURCES order
expected_salaries()["kestrel-sre"]   # Salary(min=140000.0, max=165000.0, currency="USD", ...)
hard_negative_pairs()                # [("lever:…", "lever:…", "why they are different jobs")]
```
The payloads are served by a real local HTTP server (`tests.http_target`) and read by
`jobsearch.sources.fetch_source`, each source's `base_url` pointed at it: a posting reaches dedupe
exactly as the adapter maps it. A posting without a label, a label without a posting, or a request
the set has no file for fails loudly (an adapter that changes its paths shows up here).
"""

from __future__ import annotations

import functools
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

DIR = FIXTURES / "dedupe_second"
LABELS = DIR / "labels.json"

Posting = tuple[str, str, Listing]  # (posting key, job label, listing)

# The feeds' public URLs: the Rss adapter asks the test server for the same path.
RSS_FILES = {
    "https://weworkremotely.com/remote-jobs.rss": "weworkremotely.rss",
    "https://remotejobsdaily.example/feed/jobs.rss": "remotejobsdaily.rss",
}

# Every source the set reads, in the order a profile would list them: company boards, then
# aggregators. `_routes` says which files answer each source.
SOURCES: tuple[Source, ...] = (
    Greenhouse(token="bramblecloud"),
    Greenhouse(token="cajueiro"),
    Greenhouse(token="marlowpay"),
    Greenhouse(token="smithrowe"),
    Greenhouse(token="verdantgrid"),
    Lever(site="brightfold"),
    Lever(site="fernbrook"),
    Lever(site="greyheron"),
    Lever(site="kestrelhealth"),
    Ashby(board_name="harborlight"),
    Ashby(board_name="lumenforge"),
    Ashby(board_name="tidalpine"),
    Workable(account="harrowfinch"),
    Workable(account="mueller-analytik"),
    Workable(account="oresund-robotics"),
    SmartRecruiters(company="AlpenglasAG"),
    SmartRecruiters(company="PinnacleTalentPartners"),
    RemoteOK(),
    Remotive(),
    Arbeitnow(),
    HackerNews(thread_id=46120001),
    *(Rss(url=url) for url in RSS_FILES),
)


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
def load_labels() -> Labels:
    """The set's labels, decoded and checked against their shape."""
    return msgspec.json.decode(LABELS.read_bytes(), type=Labels)


def expected_salaries() -> dict[str, Salary | None]:
    """Each job's pay as its postings state it, by job label (None: no posting states pay)."""
    return {label: job.salary for label, job in load_labels().jobs.items()}


def hard_negative_pairs() -> list[tuple[str, str, str]]:
    """Pairs of posting keys of different jobs that look alike, each with why."""
    return [(pair.a, pair.b, pair.why) for pair in load_labels().hard_negatives]


async def load_second_set() -> list[Posting]:
    """Every posting of the set as its board's adapter maps it, with its key and job label.

    Raises:
        AssertionError: a source could not be read, an adapter asked for a path the set does not
            serve, or postings and labels do not match one to one.
    """
    listings: list[Listing] = []
    with serving() as target:
        server = _SetServer(target)
        async with BoardHttp(FAST) as http:
            for source in SOURCES:
                listings.extend(await server.read(http, source))
        if unserved := server.unserved():
            raise AssertionError(f"the adapters asked for paths the set does not serve: {unserved}")
    return _labelled(listings, load_labels())


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
    """Serves the set on a test server. The exact path an adapter asks for (its query included) is
    learnt from the request the server records: the first ask is answered 404, the matching file is
    scripted for that path, and the source is read again."""

    ROUNDS = 10  # reads of one source at most: Arbeitnow learns one page per read

    def __init__(self, target: HttpTarget) -> None:
        self.target = target
        self.scripted: set[str] = set()

    async def read(self, http: BoardHttp, source: Source) -> list[Listing]:
        """`source`'s listings, read through its adapter from this server."""
        routes = _routes(source)
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
                learnt = True
        return learnt

    def unserved(self) -> list[str]:
        """The paths asked for that no file answered."""
        return sorted({request.path for request in self.target.requests} - self.scripted)


def _routes(source: Source) -> list[Route]:  # noqa: PLR0911 - one exit per board
    """The files that answer `source`'s adapter, each with the request it answers."""
    match source:
        case Greenhouse(token=token):
            return [Route(f"/v1/boards/{token}/jobs", {"content": "true"}, DIR / f"greenhouse_{token}.json")]
        case Lever(site=site):
            return [Route(f"/v0/postings/{site}", {"mode": "json", "skip": "0"}, DIR / f"lever_{site}.json")]
        case Ashby(board_name=name):
            return [
                Route(
                    f"/posting-api/job-board/{name}",
                    {"includeCompensation": "true"},
                    DIR / f"ashby_{name}.json",
                )
            ]
        case Workable(account=account):
            return [
                Route(
                    f"/api/v1/widget/accounts/{account}",
                    {"details": "true"},
                    DIR / f"workable_{account}.json",
                )
            ]
        case SmartRecruiters(company=company):
            base = f"/v1/companies/{company}/postings"
            details = sorted((DIR / f"smartrecruiters_{company}").glob("*.json"))
            return [
                Route(base, {"offset": "0"}, DIR / f"smartrecruiters_{company}.json"),
                *(Route(f"{base}/{detail.stem}", {}, detail) for detail in details),
            ]
        case RemoteOK():
            return [Route("/api", {}, DIR / "remoteok.json")]
        case Remotive():
            return [Route("/api/remote-jobs", {}, DIR / "remotive.json")]
        case Arbeitnow():
            pages = sorted(DIR.glob("arbeitnow_page*.json"))
            return [
                Route("/api/job-board-api", {"page": str(n)}, page) for n, page in enumerate(pages, start=1)
            ]
        case HackerNews(thread_id=thread):
            return [Route(f"/api/v1/items/{thread}", {}, DIR / f"hackernews_{thread}.json")]
        case Rss(url=url):
            return [Route(urlsplit(url).path, {}, DIR / RSS_FILES[url], "application/rss+xml; charset=utf-8")]
    raise ValueError(f"the second set has no payload for {source_name(source)}")


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
