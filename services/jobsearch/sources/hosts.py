"""Which hosts the boards' requests may reach: the platform's outbound host policy, for every request.

A profile chooses the URLs the fetch service calls (a source's `base_url`, an RSS feed's `url`),
and anyone who can submit a `jobsearch.search` job chooses the profile. Without a policy they could
make the service read its cloud metadata, an admin port on loopback or the private network and
have it turned into listings. So BoardHttp sends through `CheckedTransport`, which applies
jetjobs' `HostPolicy` (the one `webhook.call` uses) to each request, redirects included: every
address the host resolves to, before anything is sent, and the address actually connected to,
before the request is written (a DNS answer that changed in between gains nothing). Internal
addresses (loopback, private, link-local, cloud metadata...) are refused unless
`JOBSEARCH_ALLOW_HOSTS` names them, in the syntax of `JETJOBS_WEBHOOK_ALLOW_HOSTS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import httpx

from jetjobs import HostDenied, HostPolicy

ALLOW_HOSTS_VARIABLE = "JOBSEARCH_ALLOW_HOSTS"


def board_host_policy(allow_hosts: Iterable[str]) -> HostPolicy:
    """The boards' policy: internal addresses refused unless `allow_hosts` names them.

    Raises:
        ConfigError: an entry is not a host name, `*.domain`, `*`, address or network.
    """
    return HostPolicy.parse(allow_hosts, allow_variable=ALLOW_HOSTS_VARIABLE)


class CheckedTransport(httpx.AsyncBaseTransport):
    """httpx's network transport, refusing (`HostDenied`) every request the policy refuses.

    No proxy from the environment: the policy must see the real target of every request.
    """

    def __init__(self, policy: HostPolicy) -> None:
        self.policy = policy
        self._network = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Check the request's host and every address it resolves to, then send it."""
        url = request.url
        host = url.host
        try:
            await self.policy.check(host, url.port or (443 if url.scheme == "https" else 80))
        except OSError as exc:  # the name does not resolve: a network failure like any other
            raise httpx.ConnectError(f"cannot resolve {host}: {exc}", request=request) from None

        async def check_connection(event: str, info: Mapping[str, Any]) -> None:
            # A pooled connection is checked once, when it is made, for the host it was made for.
            if event == "connection.connect_tcp.complete":
                stream = info["return_value"]
                try:
                    self.policy.check_peer(host, stream.get_extra_info("server_addr")[0])
                except HostDenied:
                    await stream.aclose()
                    raise

        # A redirect's request shares the first one's extensions: give each its own check.
        request.extensions = {**request.extensions, "trace": check_connection}
        return await self._network.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the network transport's connections."""
        await self._network.aclose()
