"""A model's judgement of the shortlist's fit (optional: only with `FIT_PROVIDER` set).

```python
async with Judge(load_fit_settings()) as judge:
    verdicts = await judge.judge_all(profile, [(listing, fit), ...])   # never raises
    fit = judged_fit(fit, verdict)                                      # the local fit, moved
```
Each listing gets one call (`judge_prompt`): a score 0-100 and a rationale of two sentences.
The rationale is checked in code (`judge_check`): one citing what neither the listing nor the
profile says is `dropped`, and the local score stands; so it does when the providers fail
(`failed`) or the judgements run past `BUDGET`. A judgement that passes moves the local score by
half the difference, at most `MOST` points, with a reason "model: judged 86 of 100: ...".
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, cast

import anyio
import msgspec
import structlog

from jobsearch.fit.judge_check import check_judgement
from jobsearch.fit.judge_prompt import MAX_TOKENS, build_prompt, read_answer
from jobsearch.fit.score import Fit, Reason, bounded
from jobsearch.jobs import Step
from jobsearch.listing import MergedListing
from jobsearch.llm import LlmClient, LlmError
from jobsearch.llm.fence import UnreadableAnswer
from jobsearch.llm.settings import FIT_STEP, FitJudgeSettings
from jobsearch.llm.user import ClientUser, one_line
from jobsearch.profile import Profile

log = structlog.get_logger("jobsearch.fit")

BUDGET = 120.0  # seconds for a shortlist's judgements together; the rest keep their local score
CALL_WAIT = 30.0  # the most one call waits for a paused provider
MOST = 15  # points a judgement moves the local score, at most, either way
# The provider layer types its route as a drafting step; the judgement is a route of its own.
_STEP = cast(Step, FIT_STEP)

Outcome = Literal["judged", "dropped", "failed"]


class Verdict(msgspec.Struct, kw_only=True, frozen=True):
    """One listing's judgement: `judged` (it passed its check), `dropped` (it did not: `reason`)
    or `failed` (no provider answered: `reason`)."""

    listing_id: str
    revision: int
    outcome: Outcome
    score: int | None = None
    rationale: str = ""
    reason: str = ""
    provider: str = ""
    model: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class Judging(msgspec.Struct, kw_only=True):
    """What a shortlist's judgement did, for the run summary."""

    by: str = ""  # the chain asked, "openai/gpt-4o-mini"
    top: int = 0  # how many of the best it was to judge
    judged: int = 0  # new judgements that passed their check
    reused: int = 0  # judgements stored by an earlier run (the same listing, profile and chain)
    dropped: int = 0  # judgements that failed their check: the local score stands
    failed: int = 0  # listings no provider judged: the local score stands
    reasons: dict[str, int] = {}  # why dropped or failed, counted
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def count(self, verdicts: list[Verdict], *, reused: int = 0) -> None:
        """Add the verdicts of this run's calls (and how many stored ones were used)."""
        self.reused += reused
        reasons = Counter(self.reasons)
        for verdict in verdicts:
            if verdict.outcome == "judged":
                self.judged += 1
            elif verdict.outcome == "dropped":
                self.dropped += 1
            else:
                self.failed += 1
            if verdict.reason:
                reasons[verdict.reason] += 1
            self.tokens_in += verdict.tokens_in
            self.tokens_out += verdict.tokens_out
            self.cost_usd += verdict.cost_usd
        self.reasons = dict(reasons.most_common())


def judged_fit(fit: Fit, score: int, rationale: str) -> Fit:
    """The local fit moved towards the model's score (half the way, at most `MOST` points), with the
    judgement as its first reason."""
    points = max(-MOST, min(MOST, round((score - fit.score) / 2)))
    reason = Reason(points=points, text=f"model: judged {score} of 100: {rationale}")
    return Fit(score=bounded(fit.score + points), reasons=[reason, *fit.reasons])


class Judge(ClientUser):
    """The fit judgement of one service: `async with Judge(settings) as judge: ...`."""

    def __init__(self, settings: FitJudgeSettings, *, client: LlmClient | None = None) -> None:
        super().__init__(settings.llm, client)
        self.settings = settings

    @property
    def top(self) -> int:
        """How many of a shortlist's best listings are judged (`FIT_TOP`)."""
        return self.settings.top

    async def judge(self, profile: Profile, listing: MergedListing, fit: Fit) -> Verdict:
        """One listing's verdict; a provider's failure is a `failed` verdict, never an exception."""
        failed = Verdict(listing_id=listing.id, revision=listing.revision, outcome="failed")
        system, prompt = build_prompt(profile, listing, fit)
        try:
            completion = await self.client.call_llm(
                _STEP, system, prompt, max_tokens=MAX_TOKENS, wait_budget=CALL_WAIT
            )
        except LlmError as exc:
            return msgspec.structs.replace(failed, reason=one_line(str(exc), 200))
        answered = msgspec.structs.replace(
            failed,
            outcome="dropped",
            provider=completion.provider,
            model=completion.model,
            tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out,
            cost_usd=completion.cost_usd,
        )
        try:
            answer = read_answer(completion.text)
        except UnreadableAnswer as exc:
            return msgspec.structs.replace(answered, reason=str(exc))
        rationale = one_line(answer.rationale, 1000)
        problems = check_judgement(
            rationale, answer.quotes, listing=listing, profile=profile, reasons=[r.text for r in fit.reasons]
        )
        answered = msgspec.structs.replace(answered, score=answer.score, rationale=rationale)
        if problems:
            log.info("fit.judgement_dropped", listing=listing.id, problems=problems)
            return msgspec.structs.replace(answered, reason=f"the rationale {problems[0].split(',')[0]}")
        return msgspec.structs.replace(answered, outcome="judged")

    async def judge_all(self, profile: Profile, items: list[tuple[MergedListing, Fit]]) -> list[Verdict]:
        """Every listing's verdict, at once (the provider layer's limits pace the calls); those
        still unanswered after `BUDGET` seconds are `failed`."""
        verdicts: dict[str, Verdict] = {}

        async def one(listing: MergedListing, fit: Fit) -> None:
            try:
                verdicts[listing.id] = await self.judge(profile, listing, fit)
            except Exception as exc:  # a fault here never costs the shortlist a listing
                log.warning("fit.judge_failed", listing=listing.id, error=f"{type(exc).__name__}: {exc}")
                verdicts[listing.id] = Verdict(
                    listing_id=listing.id, revision=listing.revision, outcome="failed",
                    reason=f"{type(exc).__name__}: {one_line(str(exc), 160)}",
                )  # fmt: skip

        with anyio.move_on_after(BUDGET):
            async with anyio.create_task_group() as tg:
                for listing, fit in items:
                    tg.start_soon(one, listing, fit)
        return [
            verdicts.get(listing.id)
            or Verdict(
                listing_id=listing.id,
                revision=listing.revision,
                outcome="failed",
                reason=f"not judged within {BUDGET:.0f} s",
            )
            for listing, _ in items
        ]
