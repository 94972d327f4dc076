"""The wire: everything jetjobs writes to JetStream, as other languages see it.

- `envelope`: the job envelope, the status record, the dead-letter record (msgspec Structs).
- `schemas`: their JSON Schemas and example messages (`jetjobs schemas`).
- `timespec`: durations and RFC 3339 times as operators type them and headers carry them.
"""
