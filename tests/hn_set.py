"""The labelled Hacker News "Who is hiring?" sets, and how well a reader does on them.

`tests/fixtures/hackernews/set1.toml` (tuned on) and `set2.toml` (written after tuning, read once)
say what a careful person takes from each comment; `set<n>_thread.json` is the same thread as the
Algolia HN API serves it (`make_threads.py`). A reader turns the thread into listings; `score`
matches them to the labels comment by comment (a listing matches the labelled role whose title
shares at least half its words) and counts:

- postings recall (labelled roles found) and precision (listings that are a labelled role);
- multi-role comments split (every role of the comment found);
- per field, over the matched postings: company, title, place, pay, workplace, region, type and
  the apply link (the careers/ATS link, else the e-mail, else none: the listing's URL is then
  the comment).

```python
report = score("set1", read_thread)        # read_thread(item: dict) -> list[Listing]
print("\\n".join(report.lines()))
```
    .venv/bin/python -m tests.hn_set set1 [--misses]
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobsearch.listing import Listing

HERE = Path(__file__).parent / "fixtures" / "hackernews"
HN_ITEM = "https://news.ycombinator.com/item?id="
FIELDS = ("company", "title", "place", "pay", "workplace", "region", "type", "apply")
_EMAIL_LINE = re.compile(r"^Apply by e-mail: (\S+)$", re.M)
_APPLY_LINE = re.compile(r"^Apply: (\S+)$", re.M)
_SHORT = {"sr": "senior", "jr": "junior", "eng": "engineer", "and": "", "&": ""}
_PLACE_NOISE = {"remote", "only", "onsite", "hybrid", "or", "and", "based"}


@dataclass
class Labelled:
    """One labelled role, or what a reader gave, in the same terms."""

    company: str = ""
    title: str = ""
    places: list[str] = field(default_factory=list)
    wp: str | None = None
    region: str | None = None
    type: str | None = None
    pay: tuple[float | None, float | None, str | None, str | None] | None = None
    url: str | None = None
    email: str | None = None


def load(name: str) -> tuple[dict[str, Any], dict[int, list[Labelled] | str]]:
    """The thread (API shape) and, per comment id, its labelled roles or why it is no posting."""
    labelled = tomllib.loads((HERE / f"{name}.toml").read_text())
    thread = json.loads((HERE / f"{name}_thread.json").read_text())
    labels: dict[int, list[Labelled] | str] = {}
    for c in labelled["comment"]:
        if c.get("deleted"):
            labels[c["id"]] = "deleted"
        elif "not_posting" in c:
            labels[c["id"]] = str(c["not_posting"])
        else:
            labels[c["id"]] = [_labelled(p) for p in c["p"]]
    return thread, labels


def _labelled(p: dict[str, Any]) -> Labelled:
    pay = p.get("pay")
    return Labelled(
        company=p["company"],
        title=p["title"],
        places=list(p.get("places", [])),
        wp=p.get("wp"),
        region=p.get("region"),
        type=p.get("type"),
        pay=(pay.get("min"), pay.get("max"), pay.get("cur"), pay.get("per")) if pay else None,
        url=p.get("url"),
        email=p.get("email"),
    )


def from_listing(listing: Listing) -> Labelled:
    """A listing in the labels' terms: its apply link is the one its description names on an
    `Apply:` line, else its URL unless that is the HN comment; its e-mail the one on an `Apply by
    e-mail:` line."""
    s = listing.salary
    pay = None if s is None or (s.min is None and s.max is None) else (s.min, s.max, s.currency, s.interval)
    email = _EMAIL_LINE.search(listing.description or "")
    apply = _APPLY_LINE.search(listing.description or "")
    url = apply.group(1) if apply else None if listing.url.startswith(HN_ITEM) else listing.url
    return Labelled(
        company=listing.company,
        title=listing.title,
        places=list(listing.locations),
        wp=listing.workplace,
        type=listing.employment_type,
        pay=pay,
        url=url,
        email=email.group(1) if email else None,
    )


def _words(text: str | None) -> list[str]:
    raw = re.sub(r"[^\w]+", " ", (text or "").casefold().replace("&", " and ")).split()
    return [w for w in (_SHORT.get(w, w) for w in raw) if w]


def _title_words(text: str) -> set[str]:
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _words(text)}


def _similar(a: str, b: str) -> float:
    x, y = _title_words(a), _title_words(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def _company(text: str) -> str:
    return " ".join(_words(re.sub(r"\([^)]*\)", " ", text)))


def _place(text: str) -> list[str]:
    return [w for w in _words(text) if w not in _PLACE_NOISE]


def _places_right(want: Labelled, got: Labelled) -> bool:
    expected = [p for p in (_place(x) for x in [*want.places, *([want.region] if want.region else [])]) if p]
    given = [p for p in (_place(x) for x in got.places) if p]
    for place in expected:
        hit = next((g for g in given if g[: len(place)] == place or place[: len(g)] == g), None)
        if hit is None:
            return False
        given.remove(hit)
    return not given


def _pay_right(want: Labelled, got: Labelled) -> bool:
    if want.pay is None or got.pay is None:
        return want.pay is None and got.pay is None
    (a, b, cur, per), (c, d, gcur, gper) = want.pay, got.pay
    if a is not None and b is not None and a == b and (c is None) != (d is None):
        c = d = c if c is not None else d  # "$45/hr" read as a floor or a ceiling: the same pay
    close = all(
        (x is None and y is None) or (x is not None and y is not None and abs(x - y) <= 0.005 * x)
        for x, y in ((a, c), (b, d))
    )
    return close and cur == gcur and per == gper


def _type(text: str | None) -> str | None:
    words = "".join(_words(text))
    for key, name in (("full", "full-time"), ("part", "part-time"), ("contract", "contract"),
                      ("intern", "intern"), ("freelance", "contract")):  # fmt: skip
        if key in words:
            return name
    return None


def _url(text: str | None) -> str | None:
    return text.rstrip("/") if text else None


def field_right(name: str, want: Labelled, got: Labelled) -> bool:  # noqa: PLR0911 - one per field
    """Whether the reader got one field of a matched role right."""
    match name:
        case "company":
            return _company(want.company) == _company(got.company)
        case "title":
            return _title_words(want.title) == _title_words(got.title)
        case "place":
            return _places_right(want, got)
        case "pay":
            return _pay_right(want, got)
        case "workplace":
            return want.wp == got.wp
        case "region":  # the region shows among the listing's places (as boards list it)
            return want.region is None or any(_place(want.region) == _place(p) for p in got.places)
        case "type":
            return _type(want.type) == _type(got.type)
        case _:
            return _url(want.url) == _url(got.url) and (want.email is None or want.email == got.email)


@dataclass
class Report:
    """What a reader got right on one set."""

    name: str
    comments: int = 0
    labelled: int = 0
    given: int = 0
    matched: int = 0
    multi: int = 0
    split: int = 0
    not_postings: int = 0
    not_postings_skipped: int = 0
    right: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.given if self.given else 0.0

    def accuracy(self, name: str) -> float:
        return self.right[name] / self.matched if self.matched else 0.0

    def lines(self) -> list[str]:
        fields = ", ".join(f"{f} {self.accuracy(f):.0%}" for f in FIELDS)
        return [
            f"{self.name}: {self.comments} comments, {self.labelled} labelled postings,"
            f" {self.given} listings",
            f"  recall {self.recall:.3f} ({self.matched}/{self.labelled}), precision {self.precision:.3f}"
            f" ({self.matched}/{self.given})",
            f"  multi-role comments split {self.split}/{self.multi}; not postings skipped"
            f" {self.not_postings_skipped}/{self.not_postings}",
            f"  per field (of {self.matched} found): {fields}",
        ]


def score(name: str, read: Callable[[dict[str, Any]], list[Listing]]) -> Report:
    """How `read` (an HN item with its comments -> listings) does on set `name`."""
    thread, labels = load(name)
    report = Report(name=name, comments=len(labels))
    by_comment: dict[int, list[Labelled]] = {}
    for listing in read(thread):
        by_comment.setdefault(int(listing.external_id.split("-")[0]), []).append(from_listing(listing))
    for comment_id, want in labels.items():
        got = by_comment.get(comment_id, [])
        report.given += len(got)
        if isinstance(want, str):
            if want != "deleted":
                report.not_postings += 1
                report.not_postings_skipped += not got
            report.misses.extend(f"{comment_id}: not a posting ({want}), read {g.title!r}" for g in got)
            continue
        report.labelled += len(want)
        found = _pair(want, got)
        report.matched += len(found)
        if len(want) > 1:
            report.multi += 1
            report.split += len(found) == len(want)
        for w in want:
            if (g := found.get(id(w))) is None:
                report.misses.append(f"{comment_id}: missed {w.title!r}")
                continue
            for f in FIELDS:
                if field_right(f, w, g):
                    report.right[f] += 1
                else:
                    report.misses.append(f"{comment_id}: {f} wrong: want {_shown(f, w)} got {_shown(f, g)}")
        extra = len(got) - len(found)
        report.misses.extend(f"{comment_id}: {extra} listing(s) matching no role" for _ in range(extra > 0))
    return report


def _pair(want: list[Labelled], got: list[Labelled]) -> dict[int, Labelled]:
    pairs = sorted(
        ((_similar(w.title, g.title), i, j) for i, w in enumerate(want) for j, g in enumerate(got)),
        reverse=True,
    )
    found: dict[int, Labelled] = {}
    used: set[int] = set()
    for similarity, i, j in pairs:
        if similarity >= 0.5 and id(want[i]) not in found and j not in used:
            found[id(want[i])] = got[j]
            used.add(j)
    return found


def _shown(name: str, p: Labelled) -> str:
    value: object = {
        "company": p.company, "title": p.title, "place": [*p.places, *([p.region] if p.region else [])],
        "pay": p.pay, "workplace": p.wp, "region": p.region, "type": p.type, "apply": (p.url, p.email),
    }[name]  # fmt: skip
    return repr(value)


def main(argv: list[str]) -> int:
    from jobsearch.sources.hackernews import read_thread  # noqa: PLC0415 - only when run

    report = score(argv[0] if argv else "set1", lambda item: read_thread(item, "hn").listings)
    print("\n".join(report.lines()))
    if "--misses" in argv:
        print("\n".join(report.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
