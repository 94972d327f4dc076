"""The `jetjobs` command line and the tools it runs.

- `main`: the parser and every command.
- `log_commands`: `replay`, `schedule ...`, `cancel`, `enqueue --at/--in`.
- `example`: the example app of `jetjobs example`.
- `demo`: the kill-worker proof, `jetjobs demo kill-worker`.
- `processes`: worker subprocesses (public as `jetjobs.testing`).
"""
