"""The pipeline's one `jetjobs.App`: each stage package registers its handlers on it.

A stage package exposes `register(app)` and nothing else to the rest of the pipeline; stages talk
only through the jobs of `jobsearch.jobs`. `jobsearch serve STAGE` builds an App with that one
stage and runs a jetjobs worker over the stage's queue. The App carries the service's settings
fingerprint (`jobsearch.settings.service_fingerprint`) into the worker's heartbeat, so that a run
can tell services started with other settings (`jobsearch.run.fingerprint`).

Beside the four stages, two services that are not stages (`SERVICES`): `runs` takes the runs
that schedules fire (`jobsearch.run.scheduled`), one at a time, and `digest` sends the runs'
digests with the platform's built-in email and webhook jobs.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from contextlib import AsyncExitStack

from jetjobs import App
from jobsearch.digest import DIGEST_QUEUE
from jobsearch.jobs import QUEUES, RUNS_QUEUE, STAGES, Service, Stage
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


def build_service(
    service: Service, resources: AsyncExitStack | None = None
) -> tuple[App, list[str], int | None]:
    """The App of `jobsearch serve SERVICE`, the queues it serves, and the concurrency it is held
    to (None: as asked)."""
    if service == "runs":
        from jobsearch.run import scheduled  # noqa: PLC0415 - the run machinery, for this service only

        app = App("jobsearch", builtins=False, fingerprint=service_fingerprint())
        scheduled.register(app)
        return app, [RUNS_QUEUE], 1  # one run at a time: two would share the stage services
    if service == "digest":
        return App("jobsearch-digest", builtins=True), [DIGEST_QUEUE], None
    return build_app([service], resources), [QUEUES[service]], None
