"""The payloads of the built-in job types: wire messages, with JSON Schemas in `schemas/payloads/`.

Each Struct checks itself (`__post_init__`), so the same rules hold when a publisher checks a
payload before submitting it (jetjobs._submit.validation) and when a worker converts it before running.
This module stays light (msgspec, jmespath, the stdlib): `import jetjobs` loads it; the handlers,
with httpx and smtplib, load on their first job.
"""

from __future__ import annotations

import re
from email.utils import parseaddr
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import jmespath
import jmespath.exceptions
import msgspec
from jmespath.functions import Functions

from jetjobs._observability.redact import mask_url

EmailAddress = Annotated[
    str,
    msgspec.Meta(
        min_length=3,
        max_length=320,
        description="`ada@example.com` or `Ada Lovelace <ada@example.com>`",
        examples=["ada@example.com"],
    ),
]
_BARE_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+$")


def mailbox(address: str) -> str:
    """The bare address of `Name <addr>` or `addr`.

    Raises:
        ValueError: it is not one email address (or smuggles a header or a second address).
    """
    if any(c in address for c in "\r\n,;"):
        raise ValueError(f"{address!r} is not one email address")
    bare = parseaddr(address)[1]
    if not _BARE_ADDRESS.match(bare):
        raise ValueError(f"{address!r} is not an email address")
    return bare


def check_http_url(url: str) -> None:
    """Raises ValueError unless `url` is an absolute http(s) URL with a host."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is what raises on a bad one
    except ValueError as exc:
        raise ValueError(f"{mask_url(url)!r} is not a valid URL: {mask_url(str(exc))}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{mask_url(url)!r} is not an http:// or https:// URL with a host")


class EmailSend(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """Payload of `email.send`: one message (server and credentials are the worker's settings).

    At least one recipient (`to`, `cc` or `bcc`) and one body (`text`, `html` or both, sent as
    multipart/alternative). `from` defaults to JETJOBS_SMTP_SENDER.
    """

    to: list[EmailAddress] = []
    cc: list[EmailAddress] = []
    # Envelope recipients only: never written into the message headers.
    bcc: list[EmailAddress] = []
    subject: Annotated[str, msgspec.Meta(max_length=998)]
    text: str | None = None
    html: str | None = None
    from_: EmailAddress | None = msgspec.field(name="from", default=None)
    reply_to: EmailAddress | None = None

    def __post_init__(self) -> None:
        if self.text is None and self.html is None:
            raise ValueError("an email needs a body: give `text`, `html` or both")
        if not (self.to or self.cc or self.bcc):
            raise ValueError("an email needs a recipient in `to`, `cc` or `bcc`")
        if "\r" in self.subject or "\n" in self.subject:
            raise ValueError("`subject` must be one line")
        for address in (*self.to, *self.cc, *self.bcc, self.from_, self.reply_to):
            if address is not None:
                mailbox(address)


HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
# Set by jetjobs itself; a payload may not forge or break them.
RESERVED_HEADERS = frozenset(
    {"idempotency-key", "x-jetjobs-signature", "host", "content-length", "transfer-encoding", "connection"}
)
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


class WebhookCall(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """Payload of `webhook.call`: one HTTP request, sent with `Idempotency-Key: <job id>`.

    `url` is http(s); its host must pass the worker's host policy (JETJOBS_WEBHOOK_ALLOW_HOSTS /
    _DENY_HOSTS). `headers` may not set Idempotency-Key, X-Jetjobs-Signature, Host,
    Content-Length, Transfer-Encoding or Connection.
    """

    url: Annotated[str, msgspec.Meta(examples=["https://hooks.example.com/orders"])]
    method: HttpMethod = "POST"
    headers: dict[str, str] = {}
    # Sent as JSON (`Content-Type: application/json`); null or absent: no body.
    body: Any = None
    # Seconds; default JETJOBS_WEBHOOK_TIMEOUT.
    timeout: Annotated[float, msgspec.Meta(gt=0, le=3600)] | None = None

    def __post_init__(self) -> None:
        check_http_url(self.url)
        for name, value in self.headers.items():
            if not _HEADER_NAME.match(name):
                raise ValueError(f"{name!r} is not a valid header name")
            if name.lower() in RESERVED_HEADERS:
                raise ValueError(f"header {name!r} is set by jetjobs and cannot be given in the payload")
            if "\r" in value or "\n" in value:
                raise ValueError(f"header {name!r} must be one line")


class Select(msgspec.Struct, frozen=True, tag="select", tag_field="op"):
    """Replace the data by the result of a JMESPath expression (`people[*].name`)."""

    expr: str


class Filter(msgspec.Struct, frozen=True, tag="filter", tag_field="op"):
    """Keep the items of a list for which a JMESPath expression is true, e.g. age > `30`."""

    expr: str


class Map(msgspec.Struct, frozen=True, tag="map", tag_field="op"):
    """Replace each item of a list by a JMESPath expression of it (`{name: name, city: address.city}`)."""

    expr: str


class Rename(msgspec.Struct, frozen=True, tag="rename", tag_field="op"):
    """Rename keys of an object, or of each object in a list: `{"old name": "new name"}`."""

    fields: dict[str, str]


Step = Select | Filter | Map | Rename


class DataTransform(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """Payload of `data.transform`: JSON from `data` or `url`, through `steps` in order.

    Every `expr` is a JMESPath expression (jmespath.org), checked when the job is submitted.
    """

    steps: Annotated[list[Step], msgspec.Meta(min_length=1)]
    # The input inline; or fetched from `url` (GET, JSON, same host policy as webhooks).
    data: Any = None
    url: str | None = None

    def __post_init__(self) -> None:
        if self.url is not None:
            if self.data is not None:
                raise ValueError("give the input as `data` or as `url`, not both")
            check_http_url(self.url)
        for number, step in enumerate(self.steps, 1):
            if not isinstance(step, Rename):
                check_expression(step.expr, f"step {number} ({type(step).__name__.lower()})")


_FUNCTIONS = frozenset(Functions().FUNCTION_TABLE)


def check_expression(expr: str, where: str) -> None:
    """Raises ValueError, with a one-line reason, unless `expr` is a JMESPath expression we can run."""
    try:
        parsed = jmespath.compile(expr).parsed
    except jmespath.exceptions.EmptyExpressionError:
        raise ValueError(f"{where}: the JMESPath expression is empty") from None
    except jmespath.exceptions.ParseError as exc:
        if isinstance(exc, jmespath.exceptions.LexerError):
            reason = exc.message
        elif isinstance(exc, jmespath.exceptions.IncompleteExpressionError):
            reason = "incomplete expression"
        else:
            reason = exc.msg
        raise ValueError(
            f"{where}: invalid JMESPath expression {expr!r}: {reason} at position {exc.lex_position}"
        ) from None
    unknown = sorted(_function_names(parsed) - _FUNCTIONS)
    if unknown:
        raise ValueError(f"{where}: JMESPath expression {expr!r} calls unknown function {', '.join(unknown)}")


def _function_names(node: Any) -> set[str]:
    names = {node["value"]} if node.get("type") == "function_expression" else set()
    for child in node.get("children", ()):
        names |= _function_names(child)
    return names
