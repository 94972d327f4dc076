"""Observability: what jetjobs tells an operator.

- `log`: structlog setup, one line per job.
- `telemetry`: one OpenTelemetry trace per job across processes.
- `metrics`: a worker's Prometheus metrics.
- `redact`: secrets masked in everything shown (URLs, settings).
"""
