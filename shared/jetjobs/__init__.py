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
"""

from jetjobs.app import App, JobContext
from jetjobs.builtins.hosts import HostDenied, HostPolicy
from jetjobs.connection import open_connection
from jetjobs.embedded import EmbeddedServer
from jetjobs.envelope import DeadLetter, Job, Priority, StatusRecord
from jetjobs.errors import (
    ConfigError,
    InvalidJob,
    JetJobsError,
    JobCancelled,
    JobTooLarge,
    Reject,
    Retry,
    ServerError,
    TopologyConflict,
)
from jetjobs.publisher import Enqueued, Publisher
from jetjobs.settings import NatsSettings, Settings, load_settings
from jetjobs.telemetry import setup_tracing, shutdown_tracing
from jetjobs.version import VERSION
from jetjobs.worker import Worker, run_worker

__all__ = [
    "App",
    "ConfigError",
    "DeadLetter",
    "EmbeddedServer",
    "Enqueued",
    "HostDenied",
    "HostPolicy",
    "InvalidJob",
    "JetJobsError",
    "Job",
    "JobCancelled",
    "JobContext",
    "JobTooLarge",
    "NatsSettings",
    "Priority",
    "Publisher",
    "Reject",
    "Retry",
    "ServerError",
    "Settings",
    "StatusRecord",
    "TopologyConflict",
    "Worker",
    "load_settings",
    "open_connection",
    "run_worker",
    "setup_tracing",
    "shutdown_tracing",
]

__version__ = VERSION
