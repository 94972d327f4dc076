"""The built-in job types, registered on every `App()` (opt out with `App(builtins=False)`).

They register themselves: importing this package adds `register_builtins` to what every App
registers (jetjobs._runtime.app.add_standard_types), and `jetjobs` imports it, so the App never imports
the built-ins (they sit above the runtime, see docs/architecture.md).

| type             | payload         | does                                            | settings            |
|------------------|-----------------|-------------------------------------------------|---------------------|
| `email.send`     | `EmailSend`     | one email over SMTP, Message-ID from the job id | `JETJOBS_SMTP_*`    |
| `webhook.call`   | `WebhookCall`   | one HTTP request, Idempotency-Key, signature    | `JETJOBS_WEBHOOK_*` |
| `data.transform` | `DataTransform` | select, filter, map, rename JSON (JMESPath)     | `JETJOBS_WEBHOOK_*` |

The payloads' JSON Schemas are in `schemas/payloads/`.

Modules: `payloads` (the wire Structs), `hosts` (which hosts outbound requests may reach),
`outbound` (one policy-checked HTTP request), and one module per job type.

Importing this package is cheap (`jetjobs` does it): it loads the payload Structs and registers
their checks with jetjobs._submit.validation, so any process that submits a built-in job has a bad payload
refused before it is published. The handler modules, with httpx and smtplib, load on the first job
of their type.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec

from jetjobs._builtins.payloads import DataTransform, EmailSend, WebhookCall
from jetjobs._runtime.app import add_standard_types
from jetjobs._submit.validation import conforms_to, register_payload_check

if TYPE_CHECKING:
    from jetjobs._runtime.app import App, JobContext

PAYLOADS: dict[str, type[msgspec.Struct]] = {
    "email.send": EmailSend,
    "webhook.call": WebhookCall,
    "data.transform": DataTransform,
}
BUILTIN_TYPES: tuple[str, ...] = tuple(PAYLOADS)

__all__ = ["BUILTIN_TYPES", "PAYLOADS", "register_builtins"]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"jetjobs._builtins.{name}")


def _send_email(ctx: JobContext, payload: EmailSend) -> Any:
    """`email.send`: a plain function, so the worker runs it (smtplib) in a thread."""
    return _module("email").send(ctx, payload)


async def _call_webhook(ctx: JobContext, payload: WebhookCall) -> Any:
    """`webhook.call`."""
    return await _module("webhook").call(ctx, payload)


async def _transform(ctx: JobContext, payload: DataTransform) -> Any:
    """`data.transform`."""
    return await _module("transform").transform(ctx, payload)


def register_builtins(app: App) -> None:
    """Register `email.send`, `webhook.call` and `data.transform` on `app`."""
    app.job("email.send", payload=EmailSend)(_send_email)
    app.job("webhook.call", payload=WebhookCall)(_call_webhook)
    app.job("data.transform", payload=DataTransform)(_transform)


for _job_type, _payload_type in PAYLOADS.items():
    register_payload_check(_job_type, conforms_to(_payload_type))
add_standard_types(BUILTIN_TYPES, register_builtins)
