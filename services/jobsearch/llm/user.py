"""A user of the provider layer outside the draft stage (a fit judge, a comment reader): it calls
through an `LlmClient` it was given, or one of its own that it closes when it is done, and says
what a provider's failure was in one short printable line."""

from __future__ import annotations

from types import TracebackType
from typing import Self

from jobsearch.llm.client import LlmClient
from jobsearch.llm.settings import LlmSettings


class ClientUser:
    """`async with User(settings) as user: ...` for a subclass; the client is closed only if
    this user opened it."""

    def __init__(self, settings: LlmSettings, client: LlmClient | None = None) -> None:
        self.client = client or LlmClient(settings)
        self._own_client = client is None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the provider layer's connections if this user opened them."""
        if self._own_client:
            await self.client.aclose()


def one_line(text: str, most: int = 200) -> str:
    """`text` as one printable line of at most `most` characters (an error, a model's words)."""
    line = " ".join("".join(c for c in text if c.isprintable()).split())
    return line if len(line) <= most else line[: most - 1].rstrip() + "\u2026"
