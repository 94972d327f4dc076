"""The draft stage: `jobsearch.draft` jobs in on `jobsearch-draft`, `jobsearch.export` jobs out.

For each new, matching listing it writes a cover letter and a connection note through the provider
layer (`jobsearch.llm`), checks them (`checks`), and submits one export job carrying the listing
and its drafts. `register(app)` reads the provider settings, so a missing key or an unknown
provider name stops `jobsearch serve draft` at start, naming the variable.
"""

from __future__ import annotations

from collections.abc import Mapping

from jetjobs import App, JobContext
from jobsearch.draft.service import Drafter, handle
from jobsearch.jobs import DRAFT, DraftJob
from jobsearch.llm import LlmClient, LlmSettings, load_llm_settings

__all__ = ["Drafter", "handle", "register"]


def register(
    app: App,
    *,
    settings: LlmSettings | None = None,
    env: Mapping[str, str] | None = None,
    llm: LlmClient | None = None,
) -> None:
    """Register the draft stage's handler on the pipeline's App.

    The provider settings are read here (from `env`, default the process environment), so a bad
    configuration fails before the worker starts. Unless `llm` is given (its owner closes it), the
    client and its connection pool are made on the first job, inside the worker's event loop, and
    shared by every job of the service until the process ends.
    """
    llm_settings = llm.settings if llm is not None else settings or load_llm_settings(env)
    drafter: Drafter | None = Drafter(llm) if llm is not None else None

    @app.job(DRAFT, payload=DraftJob)
    async def draft(ctx: JobContext, job: DraftJob) -> dict[str, object]:
        nonlocal drafter
        if drafter is None:
            drafter = Drafter(LlmClient(llm_settings))
        return await handle(ctx, job, drafter)
