"""The wire: everything jetjobs writes to JetStream, as other languages see it.

Imports nothing of jetjobs but `_errors`; every folder above uses it. (The JSON Schemas of these
Structs are written by `jetjobs schemas`: jetjobs._cli.schemas.)

- `envelope`: the job envelope, the status record, the dead-letter record (msgspec Structs).
- `headers`: the header names jetjobs sets or reads.
- `delay`: the schedule headers that make a message fire into a job subject (`@at`, cron).
- `timespec`: durations and RFC 3339 times as operators type them and headers carry them.
"""
