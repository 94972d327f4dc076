"""A hand-labelled set of drafts for the draft checks, and a report of how the checks score on it.

A set file (`tests/fixtures/draft_checks/main.toml`, and `holdout.toml`, which is only ever reported
on, never tuned against) holds `[[profiles]]` (an `id` beside a profile's `person`, `writing`, ...
tables, as in `profile_example.toml`), `[[listings]]` (`MergedListing` fields) and `[[drafts]]`.
Each draft names its profile, listing and step and is labelled `honest` (every fact in it is
supported by the profile or the listing) or `invented` (exactly one claim is not: its `kind` and
the exact `claim` substring are given). The set was written by hand without reading the checks,
so it measures them on text not tuned to them.

```python
drafts = load_set(MAIN)          # a DraftSet: profiles and listings by id, drafts in file order
report = evaluate(MAIN)          # runs Facts.of + run_checks on every draft
print(report.render())
```
Run `python -m tests.draft_check_set tests/fixtures/draft_checks/main.toml` for the printed report.
A wrong key, an unknown profile or listing, a claim that is not in its text, a connection note
over 300 characters or a cover letter outside 120-300 words (or over its profile's
`cover_letter_words`) fails the load with a `DraftSetError` naming the file and the draft.
"""

from __future__ import annotations

import re
import sys
import time
import tomllib
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

import msgspec

from jobsearch.draft.checks import Facts, run_checks
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile

FIXTURES = Path(__file__).parent / "fixtures" / "draft_checks"
MAIN = FIXTURES / "main.toml"
HOLDOUT = FIXTURES / "holdout.toml"

Step = Literal["cover_letter", "connection_note"]
Label = Literal["honest", "invented"]
Kind = Literal["number", "skill", "title", "person", "organisation", "degree", "school", "certification"]
KINDS: tuple[Kind, ...] = get_args(Kind)

# The day the sets were written: the durations a letter may state are counted up to it, so that a
# letter true then stays true in the set.
WRITTEN = date(2026, 12, 1)
NOTE_MAX_CHARS = 300  # what LinkedIn lets a connection request carry
LETTER_WORDS = (120, 300)  # a cover letter of the set is a real one, not a fragment

T = TypeVar("T")

_LISTING_FIELDS = frozenset(f.name for f in msgspec.structs.fields(MergedListing))


class DraftSetError(Exception):
    """A set file is wrong; the message names the file and, where there is one, the draft."""


class Draft(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """One labelled draft: the text a model might have written for one profile and listing."""

    id: str
    profile: str
    listing: str
    step: Step
    text: str
    label: Label
    kind: Kind | None = None  # invented only: what sort of claim is unsupported
    claim: str | None = None  # invented only: the unsupported claim, exactly as it is in `text`
    note: str = ""  # why the draft is there (which trap an honest one sets), for the reader


class DraftSet(msgspec.Struct, kw_only=True, frozen=True):
    """A whole set file, checked: every draft's profile and listing exist."""

    profiles: dict[str, Profile]
    listings: dict[str, MergedListing]
    drafts: list[Draft]


class Miss(msgspec.Struct, kw_only=True, frozen=True):
    """An invented draft that no check flagged."""

    draft: str
    kind: Kind
    claim: str


class FalseAlarm(msgspec.Struct, kw_only=True, frozen=True):
    """An honest draft that a check flagged, with each failed check as `name: detail`."""

    draft: str
    failed: list[str]


class Report(msgspec.Struct, kw_only=True, frozen=True):
    """How the checks score on one set."""

    name: str
    caught: dict[str, int]  # by kind: invented drafts flagged
    invented: dict[str, int]  # by kind: invented drafts
    honest: int
    honest_flagged: int
    misses: list[Miss]
    false_alarms: list[FalseAlarm]
    named: dict[str, int] = {}  # by kind: invented drafts whose failed checks quote the claim
    ms_per_draft: float = 0.0  # the checks of one draft, facts built once per draft aside
    ms_facts: float = 0.0  # building the facts of one (profile, listing) pair

    @property
    def caught_pct(self) -> float:
        """Invented drafts flagged, as a percentage of all invented drafts."""
        return _pct(sum(self.caught.values()), sum(self.invented.values()))

    @property
    def flagged_pct(self) -> float:
        """Honest drafts flagged, as a percentage of all honest drafts."""
        return _pct(self.honest_flagged, self.honest)

    def render(self) -> str:
        """The report as plain text: per kind, overall, then every miss and false alarm."""
        lines = [f"draft checks on {self.name}", "", "invented caught, by kind:"]
        for kind in KINDS:
            caught, total = self.caught.get(kind, 0), self.invented.get(kind, 0)
            lines.append(f"  {kind:<14} {caught:>3} / {total:<3} {_pct(caught, total):5.1f}%")
        invented = sum(self.invented.values())
        lines += [
            "",
            f"invented caught: {sum(self.caught.values())} / {invented} ({self.caught_pct:.1f}%)",
            f"honest flagged:  {self.honest_flagged} / {self.honest} ({self.flagged_pct:.1f}%)",
            f"caught naming the claim: {sum(self.named.values())} / {invented}",
            f"cost: {self.ms_per_draft:.1f} ms of checks per draft, {self.ms_facts:.1f} ms of facts per pair",
            "",
            f"misses ({len(self.misses)}):",
            *(f"  {m.draft} [{m.kind}] {m.claim!r}" for m in self.misses),
            "",
            f"false alarms ({len(self.false_alarms)}):",
        ]
        for alarm in self.false_alarms:
            lines.append(f"  {alarm.draft}")
            lines += [f"    - {failed}" for failed in alarm.failed]
        return "\n".join(lines)


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def load_set(path: Path) -> DraftSet:
    """Read and check a set file.

    Raises:
        DraftSetError: the file is not TOML, has a wrong key or type, names a profile or listing
            it does not define, or a draft breaks the set's rules (see the module docstring).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DraftSetError(f"{path}: cannot read the set: {exc}") from None
    profiles = {
        entry_id: _convert(path, f"profile {entry_id}", entry, Profile)
        for entry_id, entry in _by_id(path, "profiles", data)
    }
    listings: dict[str, MergedListing] = {}
    for entry_id, entry in _by_id(path, "listings", data, keep_id=True):
        unknown = sorted(set(entry) - _LISTING_FIELDS)
        if unknown:
            raise DraftSetError(f"{path}: listing {entry_id}: unknown keys {unknown}")
        listings[entry_id] = _convert(path, f"listing {entry_id}", entry, MergedListing)
    drafts = [
        _checked(path, _convert(path, f"draft {entry_id}", entry, Draft), profiles, listings)
        for entry_id, entry in _by_id(path, "drafts", data, keep_id=True)
    ]
    return DraftSet(profiles=profiles, listings=listings, drafts=drafts)


def _by_id(
    path: Path, table: str, data: dict[str, Any], *, keep_id: bool = False
) -> list[tuple[str, dict[str, Any]]]:
    """The entries of an array of tables with their ids; a missing or repeated id fails."""
    entries: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for number, entry in enumerate(data.get(table, []), start=1):
        entry_id = entry.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            raise DraftSetError(f"{path}: {table}[{number}]: missing `id`")
        if entry_id in seen:
            raise DraftSetError(f"{path}: {table}: `{entry_id}` appears twice")
        seen.add(entry_id)
        entries.append((entry_id, entry if keep_id else {k: v for k, v in entry.items() if k != "id"}))
    return entries


def _convert(path: Path, what: str, entry: dict[str, Any], type_: type[T]) -> T:
    try:
        return msgspec.convert(entry, type_)
    except msgspec.ValidationError as exc:
        raise DraftSetError(f"{path}: {what}: {exc}") from None


def _checked(
    path: Path, draft: Draft, profiles: dict[str, Profile], listings: dict[str, MergedListing]
) -> Draft:
    """The draft with its text trimmed, once it keeps the set's rules."""
    where = f"{path}: draft {draft.id}"
    profile = profiles.get(draft.profile)
    if profile is None:
        raise DraftSetError(f"{where}: no profile `{draft.profile}`")
    if draft.listing not in listings:
        raise DraftSetError(f"{where}: no listing `{draft.listing}`")
    text = draft.text.strip()
    if draft.label == "honest" and (draft.kind or draft.claim):
        raise DraftSetError(f"{where}: an honest draft has no `kind` or `claim`")
    if draft.label == "invented":
        if draft.kind is None or not draft.claim:
            raise DraftSetError(f"{where}: an invented draft needs a `kind` and a `claim`")
        if draft.claim not in text:
            raise DraftSetError(f"{where}: the claim {draft.claim!r} is not in the text")
    if draft.step == "connection_note" and len(text) > NOTE_MAX_CHARS:
        raise DraftSetError(
            f"{where}: a connection note of {len(text)} characters (at most {NOTE_MAX_CHARS})"
        )
    if draft.step == "cover_letter":
        words = len(text.split())
        low, high = LETTER_WORDS
        limit = min(high, profile.writing.cover_letter_words)
        if not low <= words <= limit:
            raise DraftSetError(f"{where}: a cover letter of {words} words (want {low} to {limit})")
    return msgspec.structs.replace(draft, text=text)


_CLAIM_TOKEN = re.compile(r"\w[\w.+/&-]*")
_FILLER = frozenset({"the", "and", "for", "all", "about", "more", "than", "with", "from", "dear", "have"})


def names_claim(claim: str, failed: list[str]) -> bool:
    """Whether a failed check's detail quotes the invented claim (one of its words with a digit or
    of three letters or more), so that the catch is for the right reason."""
    details = " ".join(failed).lower()
    tokens = [t.rstrip(".").lower() for t in _CLAIM_TOKEN.findall(claim)]
    return any(
        t in details for t in tokens if (any(c.isdigit() for c in t) or len(t) >= 3) and t not in _FILLER
    )


def evaluate(path: Path) -> Report:
    """Run the draft checks on every draft of a set and count what they catch and flag, and what
    the checks cost (wordfreq's lists are loaded before the clock starts)."""
    drafts = load_set(path)
    caught: Counter[str] = Counter()
    named: Counter[str] = Counter()
    invented: Counter[str] = Counter()
    honest = honest_flagged = 0
    misses: list[Miss] = []
    alarms: list[FalseAlarm] = []
    facts_s = checks_s = 0.0
    if drafts.drafts:  # warm up: wordfreq reads its lists once per process
        first = drafts.drafts[0]
        warm = Facts.of(drafts.profiles[first.profile], drafts.listings[first.listing], today=WRITTEN)
        run_checks(first.step, first.text, warm, 250)
    for draft in drafts.drafts:
        profile = drafts.profiles[draft.profile]
        started = time.process_time()
        facts = Facts.of(profile, drafts.listings[draft.listing], today=WRITTEN)
        built = time.process_time()
        checks = run_checks(draft.step, draft.text, facts, profile.writing.cover_letter_words)
        facts_s += built - started
        checks_s += time.process_time() - built
        failed = [f"{check.name}: {check.detail}" for check in checks if not check.passed]
        if draft.label == "invented" and draft.kind is not None and draft.claim is not None:
            invented[draft.kind] += 1
            if failed:
                caught[draft.kind] += 1
                named[draft.kind] += names_claim(draft.claim, failed)
            else:
                misses.append(Miss(draft=draft.id, kind=draft.kind, claim=draft.claim))
        else:
            honest += 1
            if failed:
                honest_flagged += 1
                alarms.append(FalseAlarm(draft=draft.id, failed=failed))
    return Report(
        name=path.name,
        caught=dict(caught),
        invented=dict(invented),
        honest=honest,
        honest_flagged=honest_flagged,
        misses=misses,
        false_alarms=alarms,
        named=dict(named),
        ms_per_draft=1000 * checks_s / max(1, len(drafts.drafts)),
        ms_facts=1000 * facts_s / max(1, len(drafts.drafts)),
    )


def main(argv: list[str] | None = None) -> int:
    """Print the report of each set file named on the command line (default: the main set)."""
    paths = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)] or [MAIN]
    try:
        for path in paths:
            print(evaluate(path).render())
    except DraftSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
