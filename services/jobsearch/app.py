"""The pipeline's one `jetjobs.App`: each stage package registers its handlers on it.

A stage package exposes `register(app)` and nothing else to the rest of the pipeline; stages talk
only through the jobs of `jobsearch.jobs`. `jobsearch serve STAGE` builds an App with that one
stage and runs a jetjobs worker over the stage's queue. The App carries the service's settings
fingerprint (`jobsearch.settings.service_fingerprint`) into the worker's heartbeat, so that a run
can tell services started with other settings (`jobsearch.run.fingerprint`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from contextlib import AsyncExitStack

from jetjobs import App
from jobsearch.jobs import STAGES, Stage
from jobsearch.settings import service_fingerprint


def build_app(stages: Iterable[Stage] = STAGES, resources: AsyncExitStack | None = None) -> App:
    """An App with the handlers of the given stages (default: all four).

    A stage's `register(app)` may return an object with an async `aclose()` (the fetch stage's
    HTTP client); with `resources`, it is closed when that stack unwinds (the service's end).
    """
    app = App("jobsearch", builtins=False, fingerprint=service_fingerprint())
    for stage in stages:
        module = importlib.import_module(f"jobsearch.{stage}")
        owned = module.register(app)
        if resources is not None and callable(getattr(owned, "aclose", None)):
            resources.push_async_callback(owned.aclose)
    return app
