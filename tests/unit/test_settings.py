"""load_settings: JETJOBS_*/NATS_* variables and a TOML file to a frozen Settings, or a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from jetjobs._errors import ConfigError
from jetjobs._settings import NatsSettings, Settings, load_settings


def test_empty_environment_gives_defaults() -> None:
    """No variables at all: every default, and no URL (the embedded server)."""
    assert load_settings(env={}) == Settings()
    assert load_settings(env={}).nats.url is None


def test_unrelated_variables_are_ignored() -> None:
    """Variables without the JETJOBS_/NATS_ names (PATH, HOME, NATSX) do not matter."""
    assert load_settings(env={"PATH": "/bin", "HOME": "/root", "NATSX_URL": "x"}) == Settings()


def test_jetjobs_variables_map_to_settings() -> None:
    """Each JETJOBS_<NAME> sets the field <name>, converting the string to its type."""
    settings = load_settings(
        env={
            "JETJOBS_NAMESPACE": "billing",
            "JETJOBS_ACK_WAIT": "12.5",
            "JETJOBS_MAX_JOB_BYTES": "2048",
            "JETJOBS_STORAGE": "memory",
            "JETJOBS_REPLICAS": "3",
            "JETJOBS_BACKOFF_JITTER": "0",
            "JETJOBS_WEIGHT_HIGH": "10",
            "JETJOBS_WEIGHT_NORMAL": "5",
            "JETJOBS_WEIGHT_LOW": "2",
        }
    )
    assert settings.namespace == "billing"
    assert settings.ack_wait == 12.5
    assert settings.max_job_bytes == 2048
    assert settings.storage == "memory"
    assert settings.replicas == 3
    assert settings.backoff_jitter == 0.0
    assert (settings.weight_high, settings.weight_normal, settings.weight_low) == (10, 5, 2)


def test_nats_variables_map_to_connection_settings() -> None:
    """The standard NATS_* variables fill the nats section; empty ones are treated as unset."""
    settings = load_settings(
        env={
            "NATS_URL": "nats://broker:4222",
            "NATS_USER": "svc",
            "NATS_PASSWORD": "s3cret",
            "NATS_TOKEN": "",
            "NATS_CREDS": "/etc/nats/svc.creds",
            "NATS_TLS_CA": "/etc/ca.pem",
            "NATS_TLS_CERT": "/etc/cert.pem",
            "NATS_TLS_KEY": "/etc/key.pem",
            "NATS_CONNECT_TIMEOUT": "2",
            "NATS_STORE_DIR": "/var/lib/nats",
        }
    )
    assert settings.nats == NatsSettings(
        url="nats://broker:4222",
        user="svc",
        password="s3cret",
        token=None,
        creds="/etc/nats/svc.creds",
        tls_ca="/etc/ca.pem",
        tls_cert="/etc/cert.pem",
        tls_key="/etc/key.pem",
        connect_timeout=2.0,
        store_dir="/var/lib/nats",
    )


def test_overrides_win_over_the_environment() -> None:
    """Keyword overrides replace what the environment says."""
    settings = load_settings(env={"JETJOBS_ACK_WAIT": "5"}, ack_wait=7.0)
    assert settings.ack_wait == 7.0


def test_settings_are_frozen() -> None:
    """Settings cannot be changed after loading (share one instance safely)."""
    settings = load_settings(env={})
    with pytest.raises(AttributeError):
        settings.ack_wait = 1.0  # type: ignore[misc]


def test_unknown_jetjobs_variable_is_named() -> None:
    """A misspelt JETJOBS_ variable fails at start, naming it and listing the known ones."""
    with pytest.raises(ConfigError, match=r"^JETJOBS_FOO is not a jetjobs setting") as caught:
        load_settings(env={"JETJOBS_FOO": "1"})
    assert "JETJOBS_ACK_WAIT" in str(caught.value)
    assert "JETJOBS_CONFIG" not in str(caught.value)


@pytest.mark.parametrize(
    ("value", "reason"), [("abc", "Expected `float`, got `str`"), ("-1", "Expected `float` > 0.0")]
)
def test_bad_value_names_the_variable(value: str, reason: str) -> None:
    """A value of the wrong type or range fails with a message that starts with the variable."""
    with pytest.raises(ConfigError) as caught:
        load_settings(env={"JETJOBS_ACK_WAIT": value})
    message = str(caught.value)
    assert message.startswith("JETJOBS_ACK_WAIT")
    assert reason in message


@pytest.mark.parametrize(
    ("env", "prefix"),
    [
        ({"JETJOBS_REPLICAS": "9"}, "JETJOBS_REPLICAS: Expected `int` <= 5"),
        ({"JETJOBS_STORAGE": "disk"}, "JETJOBS_STORAGE: Expected `str` matching regex"),
        ({"JETJOBS_NAMESPACE": "has.dot"}, "JETJOBS_NAMESPACE: Expected `str` matching regex"),
        ({"JETJOBS_MAX_JOB_BYTES": "1.5"}, "JETJOBS_MAX_JOB_BYTES: Expected `int`"),
        ({"NATS_CONNECT_TIMEOUT": "soon"}, "NATS_CONNECT_TIMEOUT: Expected `float`"),
    ],
)
def test_bad_values_name_their_variable(env: dict[str, str], prefix: str) -> None:
    """Every invalid value, including the NATS_* ones, is reported under the variable to fix."""
    with pytest.raises(ConfigError) as caught:
        load_settings(env=env)
    assert str(caught.value).startswith(prefix)


def test_inconsistent_backoff_is_explained() -> None:
    """A backoff cap below its base fails with a message naming both settings."""
    with pytest.raises(ConfigError, match="backoff_max must be >= backoff_base"):
        load_settings(env={"JETJOBS_BACKOFF_BASE": "10", "JETJOBS_BACKOFF_MAX": "5"})


def test_toml_file_is_read_and_environment_wins(tmp_path: Path) -> None:
    """JETJOBS_CONFIG names a TOML file whose keys are settings; variables override the file."""
    config = tmp_path / "jetjobs.toml"
    config.write_text(
        'namespace = "fromfile"\nack_wait = 4\nstorage = "memory"\n\n'
        '[nats]\nurl = "nats://file:4222"\nuser = "filer"\n',
        encoding="utf-8",
    )
    settings = load_settings(
        env={"JETJOBS_CONFIG": str(config), "JETJOBS_ACK_WAIT": "6", "NATS_URL": "nats://env:4222"}
    )
    assert settings.namespace == "fromfile"
    assert settings.storage == "memory"
    assert settings.ack_wait == 6.0
    assert settings.nats.url == "nats://env:4222"
    assert settings.nats.user == "filer"


def test_missing_toml_file_is_a_clear_error(tmp_path: Path) -> None:
    """A JETJOBS_CONFIG that points nowhere names the variable, the path, and the cause."""
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as caught:
        load_settings(env={"JETJOBS_CONFIG": str(missing)})
    message = str(caught.value)
    assert message.startswith(f"JETJOBS_CONFIG={missing}: cannot read the file")
    assert "No such file or directory" in message


def test_malformed_toml_is_a_clear_error(tmp_path: Path) -> None:
    """A file that is not TOML names the variable, the path and where parsing failed."""
    config = tmp_path / "broken.toml"
    config.write_text("namespace = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"not valid TOML \(Invalid value \(at line 1"):
        load_settings(env={"JETJOBS_CONFIG": str(config)})


def test_unknown_key_in_toml_is_named(tmp_path: Path) -> None:
    """An unknown key in the file, top level or under [nats], is named in the error."""
    config = tmp_path / "typo.toml"
    config.write_text("ack_wiat = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown field `ack_wiat`"):
        load_settings(env={"JETJOBS_CONFIG": str(config)})
    config.write_text('[nats]\nurl = "nats://x:1"\nusr = "me"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^\[nats\] in JETJOBS_CONFIG: .*unknown field `usr`"):
        load_settings(env={"JETJOBS_CONFIG": str(config)})


def test_nats_key_that_is_not_a_table_is_a_clear_error(tmp_path: Path) -> None:
    """`nats = "nats://..."` instead of a [nats] table is a ConfigError, not a crash."""
    config = tmp_path / "flat.toml"
    config.write_text('nats = "nats://host:4222"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"`nats` must be a \[nats\] table"):
        load_settings(env={"JETJOBS_CONFIG": str(config)})
