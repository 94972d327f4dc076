"""The built-in job types without a server: payload rules, registration, composing, pure helpers, settings."""

from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from jetjobs import App, ConfigError, InvalidJob
from jetjobs._builtins import BUILTIN_TYPES, PAYLOADS
from jetjobs._builtins.email import compose, message_id
from jetjobs._builtins.outbound import Reply, raise_for_reply, retry_after
from jetjobs._builtins.payloads import DataTransform, EmailSend, WebhookCall
from jetjobs._builtins.transform import apply_steps
from jetjobs._builtins.webhook import signature
from jetjobs._cli.schemas import PAYLOAD_EXAMPLES
from jetjobs._errors import Reject, Retry, TransformError
from jetjobs._settings import SmtpSettings, load_settings
from jetjobs._submit.validation import check_payload

# --- registration -------------------------------------------------------------------------------


def test_app_registers_the_builtins_unless_told_not_to() -> None:
    """`App()` handles the three built-in types; `App(builtins=False)` handles none."""
    assert sorted(App().handlers) == sorted(BUILTIN_TYPES) == ["data.transform", "email.send", "webhook.call"]
    assert App(builtins=False).handlers == {}
    handler = App().handlers["email.send"]
    assert (handler.payload_type, handler.is_async) == (EmailSend, False)  # smtplib runs in a thread


def test_registering_a_builtin_name_again_explains_the_way_out() -> None:
    """A user handler under a built-in name is refused with a hint; with builtins=False it is fine."""
    with pytest.raises(ConfigError, match=r"registered twice \(it is built in: .*App\(builtins=False\)\)"):
        App().job("email.send")
    App(builtins=False).job("email.send")(lambda ctx, payload: None)


def test_the_handler_modules_load_lazily() -> None:
    """Importing jetjobs does not load the handler modules; they load on the first job."""
    code = "import sys, jetjobs; jetjobs.App(); print([m for m in ('httpx', 'smtplib') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


# --- payloads -----------------------------------------------------------------------------------


@pytest.mark.parametrize("job_type", sorted(PAYLOADS))
def test_published_examples_are_valid_payloads(job_type: str) -> None:
    """Each example in schemas/examples/payloads passes its own check."""
    check_payload(job_type, msgspec.to_builtins(PAYLOAD_EXAMPLES[job_type]))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"to": ["a@example.com"], "subject": "s"}, "an email needs a body"),
        ({"subject": "s", "text": "t"}, "an email needs a recipient"),
        ({"to": ["not-an-address"], "subject": "s", "text": "t"}, "'not-an-address' is not an email address"),
        ({"to": ["a@example.com, b@example.com"], "subject": "s", "text": "t"}, "is not one email address"),
        ({"to": ["a@example.com"], "subject": "s\r\nBcc: x@example.com", "text": "t"}, "must be one line"),
        (
            {"to": ["a@example.com"], "subject": "s", "text": "t", "from": "xyz"},
            "'xyz' is not an email address",
        ),
    ],
)
def test_bad_email_payloads_are_refused(payload: dict[str, Any], message: str) -> None:
    """Missing body or recipient, malformed or smuggled addresses, multi-line subjects."""
    with pytest.raises(InvalidJob) as caught:
        check_payload("email.send", payload)
    assert str(caught.value).startswith("payload of email.send does not match its schema: ")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"url": "file:///etc/passwd"}, "is not an http:// or https:// URL"),
        ({"url": "https://"}, "is not an http:// or https:// URL with a host"),
        ({"url": "http://x:99999/"}, "is not a valid URL"),
        ({"url": "https://x/", "headers": {"X-Jetjobs-Signature": "forged"}}, "is set by jetjobs"),
        ({"url": "https://x/", "headers": {"Bad Name": "v"}}, "is not a valid header name"),
        ({"url": "https://x/", "headers": {"X-A": "v\r\nX-B: w"}}, "must be one line"),
        ({"url": "https://x/", "method": "TRACE"}, "Invalid enum value 'TRACE'"),
    ],
)
def test_bad_webhook_payloads_are_refused(payload: dict[str, Any], message: str) -> None:
    """Only http(s) URLs with a host, well-formed headers, none that jetjobs sets itself."""
    with pytest.raises(InvalidJob) as caught:
        check_payload("webhook.call", payload)
    assert str(caught.value).startswith("payload of webhook.call does not match its schema: ")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([], "Expected `array` of length >= 1"),
        (
            [{"op": "select", "expr": "foo["}],
            "step 1 (select): invalid JMESPath expression 'foo[': incomplete",
        ),
        (
            [{"op": "map", "expr": "a ~ b"}],
            "step 1 (map): invalid JMESPath expression 'a ~ b': Unknown token ~",
        ),
        ([{"op": "select", "expr": ""}], "step 1 (select): the JMESPath expression is empty"),
        ([{"op": "select", "expr": "nope(@)"}], "calls unknown function nope"),
        ([{"op": "sort", "expr": "@"}], "Invalid value 'sort' - at `$.steps[0].op`"),
    ],
)
def test_bad_transform_payloads_are_refused(steps: list[dict[str, Any]], message: str) -> None:
    """Every expression is compiled at submit time; the error names the step and the reason."""
    with pytest.raises(InvalidJob) as caught:
        check_payload("data.transform", {"data": [], "steps": steps})
    assert message in str(caught.value)


def test_transform_input_is_data_or_url_not_both() -> None:
    """`data` and `url` together are refused."""
    with pytest.raises(InvalidJob, match="give the input as `data` or as `url`, not both"):
        check_payload(
            "data.transform", {"data": [1], "url": "https://x/", "steps": [{"op": "select", "expr": "@"}]}
        )


def test_types_without_a_check_pass_through() -> None:
    """Only registered job types are checked at submit time."""
    check_payload("anything.else", {"whatever": True})


# --- transform steps ----------------------------------------------------------------------------


def steps_of(*steps: dict[str, Any]) -> DataTransform:
    return msgspec.convert({"steps": list(steps)}, DataTransform)


def test_filter_uses_jmespath_truth() -> None:
    """0 is true in JMESPath; null, false and empty strings, lists and objects are false."""
    data = [{"v": 0}, {"v": None}, {"v": False}, {"v": ""}, {"v": []}, {"v": {}}, {"v": "x"}, {}]
    out = apply_steps(steps_of({"op": "filter", "expr": "v"}).steps, data)
    assert out == [{"v": 0}, {"v": "x"}]


def test_map_and_rename_over_lists_and_objects() -> None:
    """`map` projects each item; `rename` renames the keys of an object or of each object in a list."""
    transform = steps_of({"op": "map", "expr": "{n: name}"}, {"op": "rename", "fields": {"n": "name"}})
    assert apply_steps(transform.steps, [{"name": "Ada", "x": 1}]) == [{"name": "Ada"}]
    rename = steps_of({"op": "rename", "fields": {"a": "b"}})
    assert apply_steps(rename.steps, {"a": 1, "c": 2}) == {"b": 1, "c": 2}


def test_steps_that_do_not_fit_raise() -> None:
    """List steps on an object, rename on scalars, and failing functions raise TransformError."""
    with pytest.raises(TransformError, match=r"step 1 \(map\) needs a list, got dict"):
        apply_steps(steps_of({"op": "map", "expr": "@"}).steps, {"a": 1})
    with pytest.raises(TransformError, match=r"step 1 \(rename\) needs an object or a list of objects"):
        apply_steps(steps_of({"op": "rename", "fields": {}}).steps, [1, 2])
    with pytest.raises(TransformError, match=r"step 1 \(select\): .*length\(\)"):
        apply_steps(steps_of({"op": "select", "expr": "length(@)"}).steps, 5)


# --- webhook and outbound -----------------------------------------------------------------------


def test_signature_is_hmac_sha256_of_timestamp_dot_body() -> None:
    """`t=<ts>,v1=<hex HMAC-SHA256(secret, "<ts>.<body>")>`: what a receiver recomputes."""
    body = b'{"order":1}'
    expected = hmac.new(b"k", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert signature("k", 1700000000, body) == f"t=1700000000,v1={expected}"


NOW = datetime(2026, 11, 30, 8, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("120", 120.0),
        ("0", 0.0),
        ("99999", 3600.0),
        ("Mon, 30 Nov 2026 08:00:30 GMT", 30.0),
        ("Mon, 30 Nov 2026 07:59:00 GMT", 0.0),
        ("soon", None),
        ("-5", None),
    ],
)
def test_retry_after_reads_seconds_and_http_dates(header: str | None, seconds: float | None) -> None:
    """Delta seconds or an HTTP date; past dates mean now; capped; garbage means backoff (None)."""
    assert retry_after(header, cap=3600.0, now=NOW) == seconds


def reply(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, httpx.Headers(headers or {}), body)


def test_answers_map_to_outcomes() -> None:
    """2xx passes; 408/429/5xx retry (after Retry-After); 3xx and other 4xx reject with a snippet."""
    raise_for_reply(reply(204), what="POST u", max_retry_after=60)
    with pytest.raises(Retry) as retried:
        raise_for_reply(reply(429, b"slow down", {"Retry-After": "7"}), what="POST u", max_retry_after=60)
    assert (retried.value.delay, retried.value.reason) == (7.0, "POST u answered 429: slow down")
    with pytest.raises(Retry) as capped:
        raise_for_reply(reply(503, b"", {"Retry-After": "7200"}), what="POST u", max_retry_after=60)
    assert capped.value.delay == 60
    with pytest.raises(Reject, match="^POST u answered 422: " + "x" * 300 + "…$"):
        raise_for_reply(reply(422, b"x" * 5000), what="POST u", max_retry_after=60)
    with pytest.raises(Reject, match="answered 301 to https://new/; redirects are not followed"):
        raise_for_reply(reply(301, b"", {"Location": "https://new/"}), what="POST u", max_retry_after=60)


# --- email composition --------------------------------------------------------------------------


def test_compose_sets_message_id_and_keeps_bcc_out_of_the_headers() -> None:
    """Message-ID from the job id; To/Cc headers; Bcc only in the envelope; text-only is not multipart."""
    payload = msgspec.convert(
        {"to": ["Ada <ada@example.com>"], "bcc": ["audit@example.com"], "subject": "Hi", "text": "Hello"},
        EmailSend,
    )
    message, sender, recipients = compose(
        payload, job_id="job-1", settings=SmtpSettings(sender="shop@example.com", domain="example.com")
    )
    assert message["Message-ID"] == "<job-1@example.com>" == message_id("job-1", "example.com")
    assert message["Bcc"] is None
    assert message.get_content_type() == "text/plain"
    assert (sender, recipients) == ("shop@example.com", ["ada@example.com", "audit@example.com"])
    assert message_id("job-1", None) == "<job-1@jetjobs>"


def test_compose_without_a_sender_rejects() -> None:
    """No `from` in the payload and no JETJOBS_SMTP_SENDER: the job cannot succeed."""
    payload = msgspec.convert({"to": ["a@example.com"], "subject": "s", "html": "<p>x</p>"}, EmailSend)
    with pytest.raises(Reject, match="set JETJOBS_SMTP_SENDER"):
        compose(payload, job_id="j", settings=SmtpSettings())


def test_webhook_payload_defaults() -> None:
    """POST without headers or body by default; the timeout falls back to the settings."""
    call = msgspec.convert({"url": "https://hooks.example.com/x"}, WebhookCall)
    assert (call.method, call.headers, call.body, call.timeout) == ("POST", {}, None, None)


# --- settings sections --------------------------------------------------------------------------


def test_smtp_and_webhook_variables_map_into_their_sections() -> None:
    """JETJOBS_SMTP_* and JETJOBS_WEBHOOK_* fill the nested sections, converting types."""
    settings = load_settings(
        env={
            "JETJOBS_SMTP_HOST": "mail.example.com",
            "JETJOBS_SMTP_PORT": "2525",
            "JETJOBS_SMTP_TLS": "tls",
            "JETJOBS_SMTP_USERNAME": "mailer",
            "JETJOBS_SMTP_PASSWORD": "pw",
            "JETJOBS_SMTP_SENDER": "shop@example.com",
            "JETJOBS_WEBHOOK_SECRET": "whsec",
            "JETJOBS_WEBHOOK_TIMEOUT": "2.5",
            "JETJOBS_ACK_WAIT": "4",
        }
    )
    assert settings.smtp == SmtpSettings(
        host="mail.example.com",
        port=2525,
        tls="tls",
        username="mailer",
        password="pw",
        sender="shop@example.com",
    )
    assert (settings.webhook.secret, settings.webhook.timeout, settings.ack_wait) == ("whsec", 2.5, 4.0)


@pytest.mark.parametrize(
    ("env", "prefix"),
    [
        ({"JETJOBS_SMTP_TLS": "ssl"}, "JETJOBS_SMTP_TLS: Invalid enum value 'ssl'"),
        ({"JETJOBS_SMTP_PORT": "smtp"}, "JETJOBS_SMTP_PORT: Expected `int | null`, got `str`"),
        ({"JETJOBS_WEBHOOK_TIMEOUT": "0"}, "JETJOBS_WEBHOOK_TIMEOUT: Expected `float` > 0.0"),
        ({"JETJOBS_SMTP_HSOT": "x"}, "JETJOBS_SMTP_HSOT is not a jetjobs setting"),
        ({"JETJOBS_SMTP": "x"}, "JETJOBS_SMTP is not a jetjobs setting"),
    ],
)
def test_bad_section_values_name_their_variable(env: dict[str, str], prefix: str) -> None:
    """A wrong value or a misspelt name in a section is reported under the variable to fix."""
    with pytest.raises(ConfigError) as caught:
        load_settings(env=env)
    assert str(caught.value).startswith(prefix)


def test_unknown_variable_lists_the_section_settings() -> None:
    """The list of known settings includes the section variables."""
    with pytest.raises(ConfigError) as caught:
        load_settings(env={"JETJOBS_NOPE": "1"})
    assert "JETJOBS_SMTP_HOST" in str(caught.value)
    assert "JETJOBS_WEBHOOK_ALLOW_HOSTS" in str(caught.value)


def test_sections_from_toml_tables_with_variables_winning(tmp_path: Path) -> None:
    """`[smtp]` and `[webhook]` tables in the TOML file; a variable overrides one key of a table."""
    config = tmp_path / "jetjobs.toml"
    config.write_text(
        '[smtp]\nhost = "relay.local"\nport = 25\ntls = "none"\n\n[webhook]\nallow_hosts = ["10.0.0.0/8"]\n',
        encoding="utf-8",
    )
    settings = load_settings(env={"JETJOBS_CONFIG": str(config), "JETJOBS_SMTP_PORT": "2525"})
    assert (settings.smtp.host, settings.smtp.port, settings.smtp.tls) == ("relay.local", 2525, "none")
    assert settings.webhook.allow_hosts == ("10.0.0.0/8",)


def test_unknown_key_in_a_toml_section_is_named(tmp_path: Path) -> None:
    """A typo inside `[smtp]` names the table; a section that is not a table is explained."""
    config = tmp_path / "typo.toml"
    config.write_text('[smtp]\nhots = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^\[smtp\] in JETJOBS_CONFIG: .*unknown field `hots`"):
        load_settings(env={"JETJOBS_CONFIG": str(config)})
    config.write_text('webhook = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"`webhook` must be a \[webhook\] table"):
        load_settings(env={"JETJOBS_CONFIG": str(config)})


def test_a_whole_section_override_wins() -> None:
    """`load_settings(smtp=SmtpSettings(...))` replaces the section its variables would fill."""
    settings = load_settings(env={"JETJOBS_SMTP_HOST": "from-env"}, smtp=SmtpSettings(host="given"))
    assert settings.smtp.host == "given"


def test_secrets_do_not_show_in_reprs() -> None:
    """The SMTP password and the webhook secret print as `***` (settings land in tracebacks)."""
    settings = load_settings(env={"JETJOBS_SMTP_PASSWORD": "hunter2", "JETJOBS_WEBHOOK_SECRET": "whsec-1"})
    assert "hunter2" not in repr(settings)
    assert "whsec-1" not in repr(settings)
    assert "password=***" in repr(settings.smtp)
    assert settings.smtp.password == "hunter2"
