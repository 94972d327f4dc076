"""The digest: after each run, typed or scheduled, a short message with its best new listings.

```python
message = compose_digest(db_path, run_id, profile.digest, summary_lines=lines)  # None: nothing new
for job in digest_jobs(message, profile.digest, run_id=run_id):
    await publisher.enqueue(job.job_type, job.payload, queue=DIGEST_QUEUE, key=job.key, max_attempts=8)
record_told(db_path, run_id, message)  # each listing is told once
```
What it may tell is `told` (the state of record's listings, and `digest_items`), how it reads
`compose`, where it goes `channels` (the platform's `email.send` and `webhook.call`).
docs/digest.md describes it for the person.
"""

from jobsearch.digest.channels import (
    DIGEST_QUEUE,
    DigestJob,
    NtfyPublish,
    WebhookDigest,
    digest_jobs,
    ntfy_target,
)
from jobsearch.digest.compose import DigestMessage, compose_digest, failure_digest
from jobsearch.digest.told import record_told

__all__ = [
    "DIGEST_QUEUE",
    "DigestJob",
    "DigestMessage",
    "NtfyPublish",
    "WebhookDigest",
    "compose_digest",
    "digest_jobs",
    "failure_digest",
    "ntfy_target",
    "record_told",
]
