"""The provider layer's request and answer: the same for every provider."""

from __future__ import annotations

import msgspec

from jobsearch.jobs import Step
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile


class Material(msgspec.Struct, kw_only=True, frozen=True):
    """The facts behind a prompt, for the offline provider, which writes from them, not from text."""

    profile: Profile
    listing: MergedListing


class LlmRequest(msgspec.Struct, kw_only=True, frozen=True):
    """One call: the step, the system instructions, the user prompt, the output budget."""

    step: Step
    system: str
    prompt: str
    max_tokens: int = 1024
    material: Material | None = None

    @property
    def estimated_tokens(self) -> int:
        """Prompt characters / 4 plus the output budget: what the tokens-a-minute limit reserves."""
        return (len(self.system) + len(self.prompt)) // 4 + self.max_tokens


class Reply(msgspec.Struct, kw_only=True, frozen=True):
    """What one provider answered."""

    text: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    finish_reason: str | None = None  # as the provider says it: "stop", "end_turn", "MAX_TOKENS"...


class Completion(msgspec.Struct, kw_only=True, frozen=True):
    """The answer to a call, with where it came from and what it cost."""

    text: str
    provider: str
    model: str
    tokens_in: int
    tokens_out: int
    cost_usd: float
    latency_ms: float
    fell_over: list[str] = []  # "provider: reason" for each provider that failed before this one
