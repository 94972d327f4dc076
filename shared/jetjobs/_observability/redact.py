"""Masking secrets in what jetjobs shows: URL passwords and tokens, secret settings.

A NATS URL may carry credentials (`nats://alice:s3cret@host:4222`, `nats://TOKEN@host:4222`), and
so may a webhook URL in a job's payload. Whatever jetjobs prints, logs, raises or puts on a span
goes through `mask_url` first; settings' reprs show `***` for their secret fields.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any

import msgspec

MASK = "***"

# scheme://userinfo@ — userinfo stops at the last `@` before a `/`, `?`, `#`, white space or a comma
# (the separator of NATS_URL's server list), so an unescaped `@` in a password is masked too.
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s,]*)@")


def _masked(match: re.Match[str]) -> str:
    user, colon, _ = match["userinfo"].partition(":")
    # `user:password@` keeps the user name; a lone `token@` is all secret.
    return f"{match['scheme']}{user}:{MASK}@" if colon else f"{match['scheme']}{MASK}@"


def mask_url(text: str) -> str:
    """`text` with the password (or token) of every URL in it replaced by `***`.

    Works on one URL, a comma-separated list of them (NATS_URL) or any message containing URLs:
    `nats://alice:s3cret@h:4222` becomes `nats://alice:***@h:4222`, `nats://t0k3n@h` becomes
    `nats://***@h`.
    """
    if "@" not in text:  # the common case, and the cheap one: a log line per job goes through here
        return text
    return _USERINFO.sub(_masked, text)


def redacted_repr(struct: msgspec.Struct, secrets: tuple[str, ...]) -> str:
    """A repr with `***` for the secret fields and masked URLs in the others.

    Settings end up in tracebacks, test reports and debug logs.
    """
    shown = []
    for field in msgspec.structs.fields(struct):
        value = getattr(struct, field.name)
        if field.name in secrets and value:
            text = MASK
        elif isinstance(value, str):
            text = repr(mask_url(value))
        else:
            text = repr(value)
        shown.append(f"{field.name}={text}")
    return f"{type(struct).__name__}({', '.join(shown)})"


def mask_log_secrets(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: mask URL credentials in every string value of a log line."""
    for key, value in event_dict.items():
        if isinstance(value, str) and "@" in value:
            event_dict[key] = mask_url(value)
    return event_dict
