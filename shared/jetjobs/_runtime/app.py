"""The application: a registry of job types and their handlers, and the context a handler sees."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

import anyio
import msgspec

from jetjobs._errors import ConfigError, JobCancelled
from jetjobs._wire.envelope import ENCODER, Job, JobOptionFields, JobOptions, JobType

if TYPE_CHECKING:
    from jetjobs._settings import Settings
    from jetjobs._submit.publisher import Enqueued, Publisher

F = TypeVar("F", bound=Callable[..., Any])

_JOB_TYPE = msgspec.json.Decoder(JobType)

# What every `App()` registers unless `builtins=False`, and the names of those types. jetjobs._builtins
# adds itself here when it is imported (importing `jetjobs` does), so the App gets the built-ins
# without importing them: the built-ins sit above the App, not the App above them.
_STANDARD: list[Callable[[App], None]] = []
_STANDARD_NAMES: set[str] = set()


def add_standard_types(names: tuple[str, ...], register: Callable[[App], None]) -> None:
    """Have every `App()` (unless `builtins=False`) call `register(app)`, which registers `names`."""
    _STANDARD.append(register)
    _STANDARD_NAMES.update(names)


@dataclass(frozen=True, slots=True)
class Handler:
    """One registered job type."""

    type: str
    fn: Callable[[JobContext, Any], Any]
    payload_type: Any
    is_async: bool


@dataclass(slots=True)
class JobContext:
    """What a running handler knows about its job, and how it submits follow-up jobs.

    `id` doubles as the idempotency key for the outside world (an `Idempotency-Key` header, an
    email `Message-ID`): a job may run more than once (see README), it completes at most once.

    `cancelled` is set when an operator cancels the job while it runs (`jetjobs cancel`).
    Cancellation is cooperative: await `cancelled.wait()` in a task group, or call
    `check_cancelled()` between steps; whatever the handler then returns, the job stays cancelled.
    """

    job: Job
    attempt: int
    worker_id: str
    publisher: Publisher
    headers: Mapping[str, str] = field(default_factory=dict)
    cancelled: anyio.Event = field(default_factory=anyio.Event)
    stored_at: float = 0.0  # when the server stored the job's message (Unix time, seconds)
    received_at: float = 0.0  # when this worker received the delivery (Unix time, seconds)

    @property
    def settings(self) -> Settings:
        """The worker's settings (SMTP, webhook secrets and the like live here, never in payloads)."""
        return self.publisher.settings

    @property
    def id(self) -> str:
        """The job id."""
        return self.job.id

    @property
    def type(self) -> str:
        """The job type."""
        return self.job.type

    def check_cancelled(self) -> None:
        """Raise JobCancelled if the job was cancelled; safe from sync handlers' threads too."""
        if self.cancelled.is_set():
            raise JobCancelled(f"job {self.job.id} was cancelled")

    async def enqueue(
        self,
        job_type: str,
        payload: Mapping[str, Any] | msgspec.Struct | None = None,
        options: JobOptions | None = None,
        **fields: Unpack[JobOptionFields],
    ) -> Enqueued:
        """Submit a follow-up job (e.g. the next pipeline stage); the options of `Publisher.enqueue`.

        Give a `key` derived from this job (`f"{ctx.id}:next"`) so that a rerun of this handler
        does not submit the follow-up twice.
        """
        return await self.publisher.enqueue(job_type, payload, options, **fields)


class App:
    """Job types and their handlers. Workers run an App: `jetjobs worker module:app`.

    The built-in types (`email.send`, `webhook.call`, `data.transform`: jetjobs._builtins) are
    registered unless `builtins=False`. `fingerprint` goes, opaque, into the heartbeat of every
    worker running this App: say there what the handlers run with (a hash of their settings and
    version, never a secret in clear), and a client reading the live workers can tell the ones
    started with other settings.
    """

    def __init__(self, name: str = "jetjobs", *, builtins: bool = True, fingerprint: str = "") -> None:
        self.name = name
        self.fingerprint = fingerprint
        self.handlers: dict[str, Handler] = {}
        if builtins:
            for register in _STANDARD:
                register(self)

    def job(self, job_type: str, *, payload: Any = dict[str, Any]) -> Callable[[F], F]:
        """Register a handler `fn(ctx, payload)` for `job_type`; async or sync (run in a thread).

        `payload` is the type the job's payload is converted to (a msgspec Struct, a dict...);
        a payload that does not convert is dead-lettered with reason `invalid`.
        """
        try:
            _JOB_TYPE.decode(ENCODER.encode(job_type))
        except msgspec.ValidationError as exc:
            raise ConfigError(f"job type {job_type!r} is not valid: {exc}") from None
        if job_type in self.handlers:
            builtin = job_type in _STANDARD_NAMES
            hint = " (it is built in: use another name, or App(builtins=False))" if builtin else ""
            raise ConfigError(f"job type {job_type!r} is registered twice{hint}")

        def register(fn: F) -> F:
            self.handlers[job_type] = Handler(
                type=job_type,
                fn=fn,
                payload_type=payload,
                is_async=inspect.iscoroutinefunction(fn),
            )
            return fn

        return register
