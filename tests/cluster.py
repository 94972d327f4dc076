"""A real 3-node JetStream cluster on loopback, for chaos tests: start, kill -9 a node, restart it.

Each node is an `EmbeddedServer` with a config file written next to its store (server name,
cluster name, routes to the other nodes). Client and route ports are chosen up front, so that
every node can name the others, and so that a killed node comes back on the same address and the
clients' server list stays valid.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

import anyio
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext, api

from jetjobs import EmbeddedServer

HOST = "127.0.0.1"


def free_ports(count: int) -> list[int]:
    """`count` distinct loopback ports that were free a moment ago (bound to 0, then released).

    All sockets stay open until every port is chosen, so the same port is not handed out twice.
    """
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind((HOST, 0))
            ports.append(sock.getsockname()[1])
        return ports


class ClusterNode:
    """One member of the cluster: its name, ports, store and config file, and its server process."""

    def __init__(self, name: str, client_port: int, route_port: int, root: Path) -> None:
        self.name = name
        self.client_port = client_port
        self.route_port = route_port
        self.store_dir = root / name / "jetstream"
        self.config = root / name / "server.conf"
        self.server: EmbeddedServer | None = None

    @property
    def url(self) -> str:
        """The client URL (stable across restarts)."""
        return f"nats://{HOST}:{self.client_port}"

    @property
    def route_url(self) -> str:
        """The route URL other nodes connect to."""
        return f"nats://{HOST}:{self.route_port}"

    def write_config(self, cluster_name: str, peers: list[ClusterNode]) -> None:
        """Write the node's config; store dir, address and client port come from the command line."""
        routes = "\n".join(f"    {peer.route_url}" for peer in peers if peer is not self)
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f"server_name: {self.name}\n"
            "cluster {\n"
            f"  name: {cluster_name}\n"
            f"  listen: {HOST}:{self.route_port}\n"
            f"  routes: [\n{routes}\n  ]\n"
            "}\n",
            encoding="utf-8",
        )

    def start(self) -> None:
        """Start (or restart, on the same store and ports) and wait for "Server is ready"."""
        self.server = EmbeddedServer(
            self.store_dir, host=HOST, port=self.client_port, extra_args=["-c", str(self.config)]
        )
        self.server.start()

    def kill(self) -> None:
        """SIGKILL the node: no leadership hand-over, as a process crash (what the kernel holds survives)."""
        if self.server is not None:
            self.server.kill()
            self.server = None

    def stop(self) -> None:
        """Stop gracefully."""
        if self.server is not None:
            self.server.stop()
            self.server = None


class Cluster:
    """`size` nats-server nodes with JetStream, routed to each other on loopback, stores under `root`."""

    def __init__(self, root: Path, *, size: int = 3) -> None:
        ports = free_ports(2 * size)
        self.name = "c" + uuid.uuid4().hex[:8]
        self.nodes = [ClusterNode(f"n{i + 1}", ports[2 * i], ports[2 * i + 1], root) for i in range(size)]
        for node in self.nodes:
            node.write_config(self.name, self.nodes)

    @property
    def url(self) -> str:
        """Every node's client URL, comma-separated, as `NATS_URL` takes them."""
        return ",".join(node.url for node in self.nodes)

    def node(self, name: str) -> ClusterNode:
        """The node called `name` (n1, n2, ...)."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def serving(self, nc: NATS) -> ClusterNode:
        """The node a client connection is connected to now."""
        url = nc.connected_url
        assert url is not None, "not connected"
        for node in self.nodes:
            if node.client_port == url.port:
                return node
        raise LookupError(f"{url.geturl()} is not a node of this cluster")

    def start(self) -> None:
        """Start every node, in parallel; returns when all report ready (raises if one does not)."""
        errors: list[BaseException] = []

        def start(node: ClusterNode) -> None:
            try:
                node.start()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=start, args=(node,)) for node in self.nodes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            self.stop()
            raise errors[0]

    def stop(self) -> None:
        """Stop every node that runs."""
        for node in self.nodes:
            node.stop()

    def kill(self, name: str) -> ClusterNode:
        """kill -9 the node called `name`."""
        node = self.node(name)
        node.kill()
        return node

    def restart(self, name: str) -> ClusterNode:
        """Start the node called `name` again on its old store and ports."""
        node = self.node(name)
        node.start()
        return node

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


@contextlib.contextmanager
def running_cluster(root: Path, *, size: int = 3) -> Iterator[Cluster]:
    """A started cluster, stopped when the block ends."""
    with Cluster(root, size=size) as cluster:
        yield cluster


async def wait_until_replicated(nc: NATS, *, replicas: int = 3, timeout: float = 30.0) -> None:
    """Wait until the cluster can place a stream with `replicas` replicas.

    That needs a JetStream meta leader and `replicas` peers known to it; until then the API answers
    with an error or not at all. There is no event for it, so this retries a probe stream.
    """
    js = nc.jetstream(timeout=2.0)
    probe = "PROBE_" + uuid.uuid4().hex[:8].upper()
    with anyio.fail_after(timeout):
        while True:
            try:
                await js.add_stream(
                    name=probe,
                    subjects=[f"probe.{probe}"],
                    storage=api.StorageType.MEMORY,
                    num_replicas=replicas,
                )
                break
            except Exception:
                await anyio.sleep(0.2)
        await js.delete_stream(probe)


async def wait_until_current(nc: NATS, stream: str, node: str, *, timeout: float = 30.0) -> api.ClusterInfo:
    """Wait until `node` is back in `stream`'s replica group and caught up; return the group's info."""
    js = nc.jetstream(timeout=2.0)
    with anyio.fail_after(timeout):
        while True:
            try:
                info = (await js.stream_info(stream)).cluster
            except Exception:
                info = None
            if info is not None:
                peers = {peer.name: peer for peer in info.replicas or []}
                if info.leader == node or (node in peers and peers[node].current and not peers[node].offline):
                    return info
            await anyio.sleep(0.2)


async def _leader(js: JetStreamContext, stream: str, consumer: str | None) -> str | None:
    try:
        if consumer is None:
            info = (await js.stream_info(stream)).cluster
        else:
            info = (await js.consumer_info(stream, consumer)).cluster
    except Exception:
        return None
    return info.leader if info else None


async def move_leader(
    nc: NATS, node: str, stream: str, consumer: str | None = None, *, timeout: float = 30.0
) -> None:
    """Make `node` the Raft leader of `stream` (or of its `consumer`), by a stepdown naming it.

    Chaos tests use this to put every group a workload needs on one node before killing it, so
    that the kill forces all of them to elect a new leader at once.
    """
    js = nc.jetstream(timeout=2.0)
    target = f"{stream}.{consumer}" if consumer else stream
    kind = "CONSUMER" if consumer else "STREAM"
    request = json.dumps({"placement": {"preferred": node}}).encode()
    with anyio.fail_after(timeout):
        while (leader := await _leader(js, stream, consumer)) != node:
            if leader is not None:
                with contextlib.suppress(Exception):
                    await nc.request(f"$JS.API.{kind}.LEADER.STEPDOWN.{target}", request, timeout=2.0)
            await anyio.sleep(0.2)


async def poll_until(predicate: Callable[[], bool], *, every: float, timeout: float) -> None:
    """Check `predicate` every `every` seconds until it holds; for conditions that no event announces."""
    with anyio.fail_after(timeout):
        while True:
            if predicate():
                return
            await anyio.sleep(every)
