"""Configuration: frozen msgspec Structs, loaded from the environment (and an optional TOML file).

Every setting has an environment variable `JETJOBS_<NAME>` (upper case); the connection uses the
standard `NATS_*` variables. A wrong key or value fails at start with a ConfigError that names the
variable and says what is expected. The sections of the built-in job types (`smtp`, `webhook`) read
`JETJOBS_<SECTION>_<NAME>` (lists comma-separated) and `[section]` tables of the TOML file.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import msgspec.inspect

from jetjobs._errors import ConfigError
from jetjobs._observability.redact import redacted_repr

Seconds = Annotated[float, msgspec.Meta(gt=0)]
Token = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


class NatsSettings(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Where and how to connect. `url=None` means: start the embedded nats-server."""

    url: str | None = None
    user: str | None = None
    password: str | None = None
    token: str | None = None
    creds: str | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    connect_timeout: Seconds = 5.0
    store_dir: str | None = None

    def __repr__(self) -> str:
        # The URL's own password or token is masked too (redacted_repr masks URLs in every field).
        return redacted_repr(self, ("password", "token"))


class SmtpSettings(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """The mail server of the built-in `email.send` jobs. Credentials live here, never in payloads."""

    host: str = "localhost"
    # None: the usual port of the TLS mode (587 STARTTLS, 465 implicit TLS, 25 plain).
    port: Annotated[int, msgspec.Meta(ge=1, le=65535)] | None = None
    tls: Literal["starttls", "tls", "none"] = "starttls"
    username: str | None = None
    password: str | None = None
    # The From address when a payload gives none.
    sender: str | None = None
    # The right-hand side of Message-IDs (`<job id@domain>`, default `jetjobs`) and the EHLO name.
    domain: str | None = None
    # A CA bundle to verify the server with, instead of the system's.
    ca_file: str | None = None
    timeout: Seconds = 30.0

    def __repr__(self) -> str:
        return redacted_repr(self, ("password",))


_HOST_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")


HostEntry = (
    tuple[Literal["any"], str]
    | tuple[Literal["suffix", "name"], str]
    | tuple[Literal["network"], ipaddress.IPv4Network | ipaddress.IPv6Network]
)


def parse_host_entry(entry: str) -> HostEntry:
    """One allow/deny-list entry: `("any", "*")`, `("suffix", ".example.com")` for
    `*.example.com`, `("network", 10.0.0.0/8)` for an address or network, or `("name", host)`.
    Brackets, a trailing dot and case are dropped.

    Raises:
        ValueError: not a host name, `*.` and a domain, `*`, an address or a network.
    """
    name = entry.strip().strip("[]").rstrip(".").lower()
    if name == "*":
        return "any", name
    try:
        return "network", ipaddress.ip_network(name, strict=False)
    except ValueError:
        pass
    labels = name.removeprefix("*.").split(".")
    if len(name) <= 253 and all(_HOST_LABEL.match(label) for label in labels):
        return ("suffix", name[1:]) if name.startswith("*.") else ("name", name)
    raise ValueError(
        f"{entry!r} is not a host name, *.domain, IP address or network (e.g. hooks.example.com, 10.0.0.0/8)"
    )


class WebhookSettings(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Outbound HTTP of the built-ins (`webhook.call`, `data.transform` URLs): signing and targets.

    Internal addresses (loopback, private, link-local, cloud metadata) are refused unless a host,
    address or network in `allow_hosts` names them; `deny_hosts` refuses targets in any case.
    """

    # HMAC-SHA256 key of the `X-Jetjobs-Signature` header; None: requests are not signed.
    secret: str | None = None
    allow_hosts: tuple[str, ...] = ()
    deny_hosts: tuple[str, ...] = ()
    timeout: Seconds = 10.0
    # A `Retry-After` longer than this is cut to it.
    max_retry_after: Seconds = 3600.0
    # The largest response body read (a `data.transform` input).
    max_response_bytes: Annotated[int, msgspec.Meta(ge=1024)] = 16 * 1024 * 1024

    def __post_init__(self) -> None:
        for field in ("allow_hosts", "deny_hosts"):
            for entry in getattr(self, field):
                try:
                    parse_host_entry(entry)
                except ValueError as exc:
                    # `field: ...` lets load_settings name the variable (JETJOBS_WEBHOOK_ALLOW_HOSTS).
                    raise ValueError(f"{field}: {exc}") from None

    def __repr__(self) -> str:
        return redacted_repr(self, ("secret",))


class Settings(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """Everything a publisher or worker needs to agree on. Share one instance between them."""

    namespace: Token = "jetjobs"
    nats: NatsSettings = NatsSettings()
    # The lease: a delivery not acked nor extended within ack_wait is redelivered.
    ack_wait: Seconds = 10.0
    duplicate_window: Seconds = 120.0
    history_max_age: Seconds = 7 * 24 * 3600.0
    status_ttl: Seconds = 7 * 24 * 3600.0
    dlq_max_age: Seconds = 30 * 24 * 3600.0
    max_job_bytes: Annotated[int, msgspec.Meta(ge=1024, le=8 * 1024 * 1024)] = 256 * 1024
    max_result_bytes: Annotated[int, msgspec.Meta(ge=0, le=1024 * 1024)] = 16 * 1024
    storage: Annotated[str, msgspec.Meta(pattern="^(file|memory)$")] = "file"
    replicas: Annotated[int, msgspec.Meta(ge=1, le=5)] = 1
    backoff_base: Seconds = 1.0
    backoff_max: Seconds = 300.0
    backoff_jitter: Annotated[float, msgspec.Meta(ge=0, le=1)] = 0.2
    grace_period: Annotated[float, msgspec.Meta(ge=0)] = 30.0
    # How long a pull request waits for jobs; also how long a stopping worker hands back late ones.
    fetch_timeout: Seconds = 2.0
    weight_high: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 8
    weight_normal: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 4
    weight_low: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1
    # Liveness: a worker writes its heartbeat every interval; the key expires after ttl (whole
    # seconds, the server's TTL granularity) and the supervisor recovers the worker's jobs.
    heartbeat_interval: Seconds = 1.0
    heartbeat_ttl: Annotated[int, msgspec.Meta(ge=1, le=3600)] = 3
    # 0: every job is claimed (`running`, its attempt counted) before its handler starts. Above
    # 0, a first delivery's claim is written only once its handler has run this long, and a job
    # that ends sooner is recorded by its outcome's one write; an execution that ends with its
    # worker's death or a ledger outage within that time is then not counted (docs/liveness.md).
    claim_after: Annotated[float, msgspec.Meta(ge=0)] = 0.0
    # How long a publisher keeps retrying an unacknowledged publish (server restart, failover).
    publish_retry_for: Annotated[float, msgspec.Meta(ge=0)] = 30.0
    # The built-in job types (jetjobs._builtins).
    smtp: SmtpSettings = SmtpSettings()
    webhook: WebhookSettings = WebhookSettings()

    def __post_init__(self) -> None:
        if self.backoff_max < self.backoff_base:
            raise ValueError("backoff_max must be >= backoff_base")
        if self.heartbeat_ttl < 2 * self.heartbeat_interval:
            raise ValueError("heartbeat_ttl must be at least twice heartbeat_interval")
        if self.claim_after >= self.ack_wait / 2:
            raise ValueError("claim_after must be shorter than half of ack_wait")


_NATS_ENV = {
    "NATS_URL": "url",
    "NATS_USER": "user",
    "NATS_PASSWORD": "password",
    "NATS_TOKEN": "token",
    "NATS_CREDS": "creds",
    "NATS_TLS_CA": "tls_ca",
    "NATS_TLS_CERT": "tls_cert",
    "NATS_TLS_KEY": "tls_key",
    "NATS_CONNECT_TIMEOUT": "connect_timeout",
    "NATS_STORE_DIR": "store_dir",
}
_PREFIX = "JETJOBS_"
# Variables with the prefix that are not settings (read elsewhere).
_NOT_SETTINGS = {"JETJOBS_CONFIG"}
# Nested sections: `JETJOBS_<SECTION>_<FIELD>` variables, or a `[section]` table in the TOML file.
_SECTIONS: dict[str, type[msgspec.Struct]] = {"smtp": SmtpSettings, "webhook": WebhookSettings}
_SECTION_ENV = {
    f"{section}_{field}".upper(): (section, field)
    for section, struct in _SECTIONS.items()
    for field in struct.__struct_fields__
}


def _list_fields(struct: type[msgspec.Struct]) -> set[str]:
    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    return {f.name for f in info.fields if isinstance(f.type, msgspec.inspect.VarTupleType)}


# Fields given as comma-separated lists in a variable (`JETJOBS_WEBHOOK_ALLOW_HOSTS=a,b`).
_LIST_FIELDS = {(section, field) for section, struct in _SECTIONS.items() for field in _list_fields(struct)}


def _section_tables(raw: dict[str, Any], config_path: str | None) -> dict[str, dict[str, Any]]:
    """Take the `[smtp]`, `[webhook]`... tables out of the TOML data, checking that they are tables."""
    tables: dict[str, dict[str, Any]] = {}
    for section in _SECTIONS:
        table = raw.pop(section, None) or {}
        if not isinstance(table, dict):
            raise ConfigError(
                f"JETJOBS_CONFIG={config_path}: `{section}` must be a [{section}] table, not {table!r}"
            )
        tables[section] = dict(table)
    return tables


def _assign(raw: dict[str, Any], sections: dict[str, dict[str, Any]], field: str, value: str) -> None:
    """Put the value of `JETJOBS_<FIELD>` where it belongs: top level, or its section."""
    if field not in _SECTION_ENV:
        raw[field.lower()] = value
        return
    section, key = _SECTION_ENV[field]
    if (section, key) in _LIST_FIELDS:
        sections[section][key] = [item.strip() for item in value.split(",") if item.strip()]
    else:
        sections[section][key] = value


def _env_name(path: str) -> str:
    """Map a msgspec error path like `$.nats.url` to the variable a user sets."""
    parts = path.removeprefix("$.").split(".")
    if parts == ["nats"]:  # only the TOML file can put an unknown key into the nats table
        return "[nats] in JETJOBS_CONFIG"
    if parts[0] == "nats" and len(parts) > 1:
        for env, field in _NATS_ENV.items():
            if field == parts[1]:
                return env
    if parts[0] in _SECTIONS:
        if len(parts) == 1:  # an unknown key: only the TOML file can put one into a section
            return f"[{parts[0]}] in JETJOBS_CONFIG"
        return f"{_PREFIX}{parts[0].upper()}_{parts[1].split('[')[0].upper()}"
    return _PREFIX + parts[0].upper()


def load_settings(env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Build Settings from a TOML file (`JETJOBS_CONFIG`), then `JETJOBS_*`/`NATS_*`, then overrides.

    Raises:
        ConfigError: naming the variable (or file key) that is wrong and why.
    """
    env = os.environ if env is None else env
    raw: dict[str, Any] = {}
    config_path = env.get("JETJOBS_CONFIG")
    if config_path:
        try:
            raw = tomllib.loads(Path(config_path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"JETJOBS_CONFIG={config_path}: cannot read the file ({exc})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"JETJOBS_CONFIG={config_path}: not valid TOML ({exc})") from None
    nats_table = raw.pop("nats", None) or {}
    if not isinstance(nats_table, dict):
        raise ConfigError(f"JETJOBS_CONFIG={config_path}: `nats` must be a [nats] table, not {nats_table!r}")
    nats: dict[str, Any] = dict(nats_table)
    sections = _section_tables(raw, config_path)
    known = {field.upper() for field in Settings.__struct_fields__ if field not in ("nats", *_SECTIONS)}
    known |= _SECTION_ENV.keys()
    for name, value in env.items():
        if name in _NATS_ENV and value != "":
            nats[_NATS_ENV[name]] = value
        elif name.startswith(_PREFIX) and name not in _NOT_SETTINGS:
            field = name.removeprefix(_PREFIX)
            if field not in known:
                raise ConfigError(
                    f"{name} is not a jetjobs setting; known settings: "
                    + ", ".join(sorted(_PREFIX + k for k in known))
                )
            _assign(raw, sections, field, value)
    raw.update(overrides)
    raw["nats"] = nats
    # An override of a whole section (`smtp=SmtpSettings(...)`) wins over its variables.
    raw.update({section: table for section, table in sections.items() if section not in overrides})
    try:
        return msgspec.convert(raw, Settings, strict=False)
    except msgspec.ValidationError as exc:
        message = str(exc)
        where = message.rsplit(" - at `", 1)
        if len(where) == 2:
            path, problem = where[1].rstrip("`"), where[0]
            field, colon, reason = problem.partition(": ")
            if (
                colon
                and path.removeprefix("$.") in _SECTIONS
                and field in _SECTIONS[path[2:]].__struct_fields__
            ):
                # A section's own check (__post_init__) names the field it refuses.
                path, problem = f"{path}.{field}", reason
            raise ConfigError(f"{_env_name(path)}: {problem}") from None
        raise ConfigError(f"invalid settings: {message}") from None
