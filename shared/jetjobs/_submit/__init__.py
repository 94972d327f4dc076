"""Submitting jobs.

- `publisher`: encode, size-check, publish with `Nats-Msg-Id`, record `queued`.
- `validation`: payload checks a job type may ask for at submit time.
"""
