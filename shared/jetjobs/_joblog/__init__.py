"""Operations on the job log (the JOBS stream and what is kept beside it).

- `ledger`: one status entry per job id, changed only by compare-and-set.
- `dead_letters`: jobs that will not run again, why, and the means to run them again.
- `replay`: run again, as new jobs, what the stream recorded in a time window.
- `schedule`: delayed and recurring jobs, kept and fired by the server.
- `cancel`: the ledger says `cancelled`, then every worker hears about it.
"""
