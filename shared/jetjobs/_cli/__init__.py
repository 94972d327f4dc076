"""The `jetjobs` command line and the tools it runs.

- `main`: the parser and every command.
- `inspect_commands`: `status`, `dlq ...`, `info`, `workers`.
- `log_commands`: `replay`, `schedule ...`, `cancel`, `enqueue --at/--in`.
- `example`: the example app of `jetjobs example`.
- `schemas`: the JSON Schemas of the wire, payloads and settings, and their examples (`jetjobs schemas`).

The top of the house: nothing but `__main__` imports it. `jetjobs demo kill-worker` is parsed here
and run by jetjobs._demo; the worker subprocesses are jetjobs._processes (public as `jetjobs.testing`).
"""
