"""Configuration: frozen msgspec Structs, loaded from the environment (and an optional TOML file).

Every setting has an environment variable `JETJOBS_<NAME>` (upper case); the connection uses the
standard `NATS_*` variables. A wrong key or value fails at start with a ConfigError that names the
variable and says what is expected.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import msgspec

from jetjobs.errors import ConfigError

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
    fetch_timeout: Seconds = 5.0
    weight_high: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 8
    weight_normal: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 4
    weight_low: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1
    # Liveness: a worker writes its heartbeat every interval; the key expires after ttl (whole
    # seconds, the server's TTL granularity) and the supervisor recovers the worker's jobs.
    heartbeat_interval: Seconds = 1.0
    heartbeat_ttl: Annotated[int, msgspec.Meta(ge=1, le=3600)] = 3
    # How long a publisher keeps retrying an unacknowledged publish (server restart, failover).
    publish_retry_for: Annotated[float, msgspec.Meta(ge=0)] = 30.0

    def __post_init__(self) -> None:
        if self.backoff_max < self.backoff_base:
            raise ValueError("backoff_max must be >= backoff_base")
        if self.heartbeat_ttl < 2 * self.heartbeat_interval:
            raise ValueError("heartbeat_ttl must be at least twice heartbeat_interval")


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


def _env_name(path: str) -> str:
    """Map a msgspec error path like `$.nats.url` to the variable a user sets."""
    parts = path.removeprefix("$.").split(".")
    if parts == ["nats"]:  # only the TOML file can put an unknown key into the nats table
        return "[nats] in JETJOBS_CONFIG"
    if parts[0] == "nats" and len(parts) > 1:
        for env, field in _NATS_ENV.items():
            if field == parts[1]:
                return env
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
    known = {field.upper() for field in Settings.__struct_fields__ if field != "nats"}
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
            raw[field.lower()] = value
    raw.update(overrides)
    raw["nats"] = nats
    try:
        return msgspec.convert(raw, Settings, strict=False)
    except msgspec.ValidationError as exc:
        message = str(exc)
        where = message.rsplit(" - at `", 1)
        if len(where) == 2:
            raise ConfigError(f"{_env_name(where[1].rstrip('`'))}: {where[0]}") from None
        raise ConfigError(f"invalid settings: {message}") from None
