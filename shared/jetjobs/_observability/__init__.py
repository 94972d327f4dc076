"""Observability: what jetjobs tells an operator.

The bottom of the house: imports nothing else of jetjobs, so every folder may log, trace and mask.
(A worker's Prometheus metrics read the server and the worker, so they live in jetjobs._runtime.metrics.)

- `log`: structlog setup, one line per job.
- `telemetry`: one OpenTelemetry trace per job across processes.
- `redact`: secrets masked in everything shown (URLs, settings).
"""
