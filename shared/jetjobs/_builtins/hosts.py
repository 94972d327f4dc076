"""Which hosts the built-in jobs may call: the outbound policy of `webhook.call` and `data.transform`.

A payload names a URL, and whoever can submit a job would otherwise make the worker call any
address it can reach: the cloud metadata service, an admin port on loopback, the private network.

| target address                                                    | default | to change      |
|-------------------------------------------------------------------|---------|----------------|
| public                                                            | allowed | `deny_hosts`   |
| loopback, private, link-local (cloud metadata 169.254.169.254),   | refused | `allow_hosts`  |
| shared (100.64/10), unspecified, multicast, reserved, other       |         |                |
| non-global ranges; IPv6 forms embedding one (::ffff:127.0.0.1)    |         |                |

Entries of both lists (`JETJOBS_WEBHOOK_ALLOW_HOSTS`, `JETJOBS_WEBHOOK_DENY_HOSTS`): a host name
(`hooks.example.com`), its subdomains (`*.example.com`), every name (`*`), an address
(`127.0.0.1`, `::1`) or a network (`10.0.0.0/8`). A denied name or address is refused even when
also allowed. An allowed name is trusted whatever it resolves to; otherwise every address the
name resolves to must pass, and so must the address actually connected to (jetjobs._builtins.outbound
checks it again at connect time, so a DNS answer that changes in between gains nothing).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import anyio

from jetjobs._errors import ConfigError, Reject
from jetjobs._settings import WebhookSettings, parse_host_entry

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "169.254.170.2")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class HostDenied(Reject):
    """The policy refuses the target host: the job is rejected (running it again cannot help)."""


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv6 one (mapped `::ffff:a.b.c.d`, NAT64, 6to4), if any."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def internal_kind(address: IPAddress) -> str | None:
    """What kind of internal address this is (`loopback`, `private`...), or None for a public one."""
    inner = embedded_ipv4(address)
    if inner is not None:
        return internal_kind(inner)
    checks = (
        (address in _METADATA, "cloud metadata"),
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_unspecified, "unspecified"),
        (address.is_multicast, "multicast"),
        (address.is_private, "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "non-public"),
    )
    return next((kind for hit, kind in checks if hit), None)


def _normalise(host: str) -> str:
    return host.strip("[]").rstrip(".").lower()


@dataclass(frozen=True, slots=True)
class HostList:
    """Names, subdomain wildcards and networks of one list (allow or deny)."""

    names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    networks: tuple[IPNetwork, ...] = ()
    any_name: bool = False

    @classmethod
    def parse(cls, entries: Iterable[str]) -> HostList:
        """Sort entries into names, `*.suffix` wildcards and networks (blank entries left out).

        Raises:
            ValueError: an entry is not a host name, `*.domain`, `*`, address or network.
        """
        names: set[str] = set()
        suffixes: list[str] = []
        networks: list[IPNetwork] = []
        any_name = False
        for raw in entries:
            if not raw.strip():
                continue
            match parse_host_entry(raw):
                case ("any", _):
                    any_name = True
                case ("suffix", str(suffix)):
                    suffixes.append(suffix)
                case ("network", network):
                    networks.append(network)
                case (_, name):
                    names.add(name)
        return cls(frozenset(names), tuple(suffixes), tuple(networks), any_name)

    def names_host(self, host: str) -> bool:
        """Whether the list names `host` (exactly, by a wildcard, or `*`)."""
        name = _normalise(host)
        return self.any_name or name in self.names or name.endswith(self.suffixes)

    def holds(self, address: IPAddress) -> bool:
        """Whether an address (or the IPv4 one embedded in it) is in one of the list's networks."""
        candidates = [address]
        inner = embedded_ipv4(address)
        if inner is not None:
            candidates.append(inner)
        return any(a in net for a in candidates for net in self.networks if a.version == net.version)


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The allow and deny lists; `refusal` says why a target may not be called.

    Public (`from jetjobs import HostPolicy`) for services whose jobs name URLs too: build one with
    `parse` naming the service's own variables, then `check` before a request and `check_peer` on
    the connected address (see jetjobs.builtins.outbound for both in one request).
    """

    allow: HostList = HostList()
    deny: HostList = HostList()
    # The variables a refusal names, so that its message says what to change.
    allow_variable: str = "JETJOBS_WEBHOOK_ALLOW_HOSTS"
    deny_variable: str = "JETJOBS_WEBHOOK_DENY_HOSTS"

    @classmethod
    def from_settings(cls, settings: WebhookSettings) -> HostPolicy:
        """The policy of JETJOBS_WEBHOOK_ALLOW_HOSTS and JETJOBS_WEBHOOK_DENY_HOSTS."""
        return cls(HostList.parse(settings.allow_hosts), HostList.parse(settings.deny_hosts))

    @classmethod
    def parse(
        cls,
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        *,
        allow_variable: str,
        deny_variable: str = "the deny list",
    ) -> HostPolicy:
        """A policy from entries in the syntax of JETJOBS_WEBHOOK_ALLOW_HOSTS, read from the
        variables named (which refusals and errors then name).

        Raises:
            ConfigError: an entry is not a host name, `*.domain`, `*`, address or network.
        """
        lists = []
        for variable, entries in ((allow_variable, allow), (deny_variable, deny)):
            try:
                lists.append(HostList.parse(entries))
            except ValueError as exc:
                raise ConfigError(f"{variable}: {exc}") from None
        allowed, denied = lists
        return cls(allowed, denied, allow_variable=allow_variable, deny_variable=deny_variable)

    def refusal(self, host: str, addresses: Sequence[IPAddress]) -> str | None:
        """Why `host`, resolving to `addresses`, may not be called; None when it may."""
        if self.deny.names_host(host):
            return f"host {host} is denied by {self.deny_variable}"
        for address in addresses:
            if self.deny.holds(address):
                return f"host {host} resolves to {address}, denied by {self.deny_variable}"
        if self.allow.names_host(host):
            return None
        if not addresses:
            return f"host {host} resolves to no address"
        for address in addresses:
            kind = internal_kind(address)
            if kind is not None and not self.allow.holds(address):
                return (
                    f"host {host} resolves to {address}, a {kind} address; "
                    f"allow it with {self.allow_variable} if it is meant to be called"
                )
        return None

    async def check(self, host: str, port: int) -> list[IPAddress]:
        """Resolve `host` and check every address it resolves to; return them.

        Raises:
            HostDenied: the policy refuses the host or one of its addresses.
            OSError: the name does not resolve (often temporary: the caller retries).
        """
        name = _normalise(host)
        infos = await anyio.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
        reason = self.refusal(name, addresses)
        if reason is not None:
            raise HostDenied(reason)
        return addresses

    def check_peer(self, host: str, peer: str) -> None:
        """Check the address a connection to `host` actually reached.

        Raises:
            HostDenied: the policy refuses that address for this host.
        """
        reason = self.refusal(_normalise(host), [ipaddress.ip_address(peer)])
        if reason is not None:
            raise HostDenied(reason)
