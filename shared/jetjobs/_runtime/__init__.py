"""The worker's runtime: from a registered handler to an acked delivery.

- `app`: the registry of job types (`App`) and what a handler sees (`JobContext`).
- `worker`: fetch from the queue consumers, run with bounded concurrency, shut down.
- `priority`: the local buffer of fetched deliveries, drained by priority.
- `lease`: keep every held delivery alive while it waits or runs.
- `execution`: one delivery, from admission to ack, nak or term.
- `outcome`, `backoff`: what a finished handler means for its delivery; retry delays.
"""
