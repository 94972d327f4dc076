"""Worker processes for tests, demos and benchmarks: start, signal, restart, read their logs.

```python
from jetjobs.testing import WorkerPool

async with WorkerPool("myapp:app", settings, nats_url, concurrency=4) as pool:
    await pool.start(2)  # two `jetjobs worker` processes, started when each says so
    ...
```
"""

from jetjobs._processes import WorkerPool, WorkerProcess, worker_env

__all__ = ["WorkerPool", "WorkerProcess", "worker_env"]
