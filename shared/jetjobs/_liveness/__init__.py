"""Liveness: who is alive, and what happens to the jobs of those who are not.

- `heartbeat`: each worker's TTL'd entry saying it is alive and what it holds.
- `supervisor`: notices a dead worker and gives its jobs back at once (elected, one at a time).
- `election`: the `leader` key that elects one supervisor at a time.
- `death_records`: a death written down by whoever saw it, for the leader to claim.
- `recovery`: a dead worker's deliveries NAKed, their jobs marked `queued`.
- `orphans`: deliveries a dead worker held but never listed, found and handed back.
- `coverage`: subjects no queue consumer covers, queues no live worker serves.
"""
