"""The outbound host policy of the built-in jobs: internal addresses refused unless allowed, deny wins."""

from __future__ import annotations

import ipaddress

import pytest

from jetjobs._builtins.hosts import HostDenied, HostList, HostPolicy, internal_kind
from jetjobs._settings import WebhookSettings, load_settings


def ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.169.254", "cloud metadata"),
        ("fd00:ec2::254", "cloud metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.251", "multicast"),
        ("100.64.0.1", "non-public"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a9fe:a9fe", "cloud metadata"),
        ("2002:7f00:1::", "loopback"),
    ],
)
def test_internal_addresses_are_classified(address: str, kind: str) -> None:
    """Loopback, private, link-local, metadata and their IPv6 disguises are all internal."""
    assert internal_kind(ip(address)) == kind


@pytest.mark.parametrize("address", ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_not_internal(address: str) -> None:
    """Addresses on the public internet have no internal kind."""
    assert internal_kind(ip(address)) is None


def test_default_policy_refuses_internal_and_allows_public() -> None:
    """With no lists, a public host passes and an internal one is refused, saying how to allow it."""
    policy = HostPolicy()
    assert policy.refusal("hooks.example.com", [ip("93.184.215.14")]) is None
    reason = policy.refusal("127.0.0.1", [ip("127.0.0.1")])
    assert reason == (
        "host 127.0.0.1 resolves to 127.0.0.1, a loopback address; "
        "allow it with JETJOBS_WEBHOOK_ALLOW_HOSTS if it is meant to be called"
    )


def test_every_resolved_address_must_pass() -> None:
    """A name resolving to one public and one private address is refused (the private one is named)."""
    reason = HostPolicy().refusal("mixed.example.com", [ip("93.184.215.14"), ip("10.0.0.7")])
    assert reason is not None
    assert "10.0.0.7, a private address" in reason


def test_metadata_address_is_refused_by_default() -> None:
    """The cloud metadata address is refused, under any name."""
    reason = HostPolicy().refusal("metadata.internal", [ip("169.254.169.254")])
    assert reason is not None
    assert "cloud metadata" in reason


def test_allowed_address_or_network_admits_internal_targets() -> None:
    """An allowed address or network lets exactly those internal addresses through."""
    policy = HostPolicy.from_settings(WebhookSettings(allow_hosts=("127.0.0.1", "10.20.0.0/16")))
    assert policy.refusal("127.0.0.1", [ip("127.0.0.1")]) is None
    assert policy.refusal("svc.internal", [ip("10.20.3.4")]) is None
    assert policy.refusal("svc.internal", [ip("10.21.3.4")]) is not None
    # `localhost` resolving to ::1 as well: ::1 was not allowed.
    assert policy.refusal("localhost", [ip("127.0.0.1"), ip("::1")]) is not None


def test_allowed_names_are_trusted_whatever_they_resolve_to() -> None:
    """An allowed name, exact or by wildcard, may resolve to internal addresses."""
    policy = HostPolicy(allow=HostList.parse(["Hooks.Internal.", "*.svc.cluster.local"]))
    assert policy.refusal("hooks.internal", [ip("10.0.0.5")]) is None
    assert policy.refusal("api.prod.svc.cluster.local", [ip("10.0.0.6")]) is None
    assert policy.refusal("svc.cluster.local", [ip("10.0.0.6")]) is not None  # the wildcard is for subdomains


def test_deny_wins_over_allow() -> None:
    """A denied name, address or network is refused even when also allowed, and even when public."""
    policy = HostPolicy.from_settings(
        WebhookSettings(allow_hosts=("*", "127.0.0.0/8"), deny_hosts=("evil.example", "203.0.113.0/24"))
    )
    assert policy.refusal("evil.example", [ip("93.184.215.14")]) == (
        "host evil.example is denied by JETJOBS_WEBHOOK_DENY_HOSTS"
    )
    assert policy.refusal("cdn.example", [ip("203.0.113.9")]) == (
        "host cdn.example resolves to 203.0.113.9, denied by JETJOBS_WEBHOOK_DENY_HOSTS"
    )
    assert policy.refusal("127.0.0.1", [ip("127.0.0.1")]) is None


def test_denied_network_also_catches_ipv4_mapped_addresses() -> None:
    """`::ffff:203.0.113.9` is the denied 203.0.113.9 in IPv6 clothing."""
    policy = HostPolicy(deny=HostList.parse(["203.0.113.0/24"]))
    assert policy.refusal("x.example", [ip("::ffff:203.0.113.9")]) is not None


def test_no_address_is_refused() -> None:
    """A name that resolved to nothing is not called."""
    assert HostPolicy().refusal("void.example", []) == "host void.example resolves to no address"


def test_check_peer_refuses_the_connected_address() -> None:
    """The address a connection reached is checked too (a DNS answer may have changed)."""
    with pytest.raises(HostDenied, match="loopback"):
        HostPolicy().check_peer("hooks.example.com", "127.0.0.1")
    HostPolicy().check_peer("hooks.example.com", "93.184.215.14")


async def test_check_resolves_literal_addresses() -> None:
    """`check` resolves (an IP literal needs no DNS) and returns the addresses, or raises HostDenied."""
    assert await HostPolicy().check("93.184.215.14", 443) == [ip("93.184.215.14")]
    with pytest.raises(HostDenied):
        await HostPolicy().check("[::1]", 80)


def test_lists_come_from_comma_separated_variables() -> None:
    """JETJOBS_WEBHOOK_ALLOW_HOSTS / _DENY_HOSTS are comma-separated; blanks are ignored."""
    settings = load_settings(
        env={"JETJOBS_WEBHOOK_ALLOW_HOSTS": "127.0.0.1, *.corp.example ,", "JETJOBS_WEBHOOK_DENY_HOSTS": ""}
    )
    assert settings.webhook.allow_hosts == ("127.0.0.1", "*.corp.example")
    assert settings.webhook.deny_hosts == ()
    policy = HostPolicy.from_settings(settings.webhook)
    assert policy.refusal("a.corp.example", [ip("10.0.0.1")]) is None
