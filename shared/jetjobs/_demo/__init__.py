"""The kill-worker demonstration (`jetjobs demo kill-worker`), and the pieces the chaos tests reuse.

- `work`: the demo's job type, each run recorded in an execution log (`jetjobs._demo.work:app`).
- `audit`: follow a namespace's job events, then audit a set of jobs (`LedgerCheck`, `Audit`, `submit`).
- `kill_worker`: the proof's orchestration: worker processes, one SIGKILL mid-run, the wait.
- `report`: the proof's ledger, as printed.
"""
