"""jetjobs: durable job processing on NATS JetStream.

```python
from jetjobs import App, JobContext, Retry, Reject

app = App("example")

@app.job("report.build")
async def build(ctx: JobContext, payload: dict) -> dict:
    return {"rows": 42}
```
Run it with `jetjobs worker mymodule:app`; submit with `jetjobs enqueue report.build '{}'` or
`Publisher.enqueue`.

The public API is what `__all__` lists here, plus `jetjobs.testing` (worker subprocesses) and
`jetjobs.ui` (the page kit). Every module under a leading underscore is internal: docs/architecture.md
maps the folders.
"""

from jetjobs._builtins.hosts import HostDenied, HostPolicy
from jetjobs._errors import (
    ConfigError,
    HandlerOutcome,
    InvalidJob,
    JetJobsError,
    JobCancelled,
    JobTimeout,
    JobTooLarge,
    NoStream,
    Reject,
    Retry,
    ServerError,
    StreamError,
    TopologyConflict,
    TransformError,
    WrongLastSequence,
)
from jetjobs._joblog.cancel import CancelResult, cancel
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.replay import ReplayPlan, ReplayReport, plan_replay, replay
from jetjobs._joblog.schedule import Schedule, Schedules
from jetjobs._liveness.supervisor import live_workers
from jetjobs._observability.log import configure_logging
from jetjobs._observability.telemetry import setup_tracing, shutdown_tracing
from jetjobs._runtime.app import App, JobContext
from jetjobs._runtime.backoff import backoff_delay
from jetjobs._runtime.worker import Worker, run_worker
from jetjobs._settings import NatsSettings, Settings, load_settings
from jetjobs._submit.publisher import Enqueued, Publisher
from jetjobs._transport.connection import open_connection
from jetjobs._transport.embedded import EmbeddedServer
from jetjobs._version import VERSION
from jetjobs._wire.envelope import DeadLetter, Job, JobOptions, Priority, StatusRecord, new_job_id

__all__ = [
    "App",
    "CancelResult",
    "ConfigError",
    "DeadLetter",
    "DeadLetters",
    "EmbeddedServer",
    "Enqueued",
    "HandlerOutcome",
    "HostDenied",
    "HostPolicy",
    "InvalidJob",
    "JetJobsError",
    "Job",
    "JobCancelled",
    "JobContext",
    "JobOptions",
    "JobTimeout",
    "JobTooLarge",
    "Ledger",
    "NatsSettings",
    "NoStream",
    "Priority",
    "Publisher",
    "Reject",
    "ReplayPlan",
    "ReplayReport",
    "Retry",
    "Schedule",
    "Schedules",
    "ServerError",
    "Settings",
    "StatusRecord",
    "StreamError",
    "TopologyConflict",
    "TransformError",
    "Worker",
    "WrongLastSequence",
    "backoff_delay",
    "cancel",
    "configure_logging",
    "live_workers",
    "load_settings",
    "new_job_id",
    "open_connection",
    "plan_replay",
    "replay",
    "run_worker",
    "setup_tracing",
    "shutdown_tracing",
]

__version__ = VERSION
