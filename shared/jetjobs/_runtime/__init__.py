"""The worker's runtime: from a registered handler to an acked delivery.

- `app`: the registry of job types (`App`) and what a handler sees (`JobContext`).
- `worker`: fetch from the queue consumers, run with bounded concurrency, shut down.
- `priority`: the local buffer of fetched deliveries, drained by priority.
- `lease`: keep every held delivery alive while it waits or runs.
- `metrics`: the worker's Prometheus metrics.
- `execution`: one delivery, from admission to ack, nak or term, as a pipeline of steps:
  `delivery` (the one value handed along) → `admit` → `claim` → `run` (with `isolation`, an async
  handler in a context of its own) → `outcome` (with `backoff`) → `record` → `settle`.
"""
