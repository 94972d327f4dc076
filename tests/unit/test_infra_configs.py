"""The nats-server configs under `infra/nats` are valid, and the cluster's nodes fit together.

`nats-server -t` parses a config and exits: it starts no server, opens no port and creates no
store directory, and it rejects unknown keys. It does not check that cluster members agree with
each other, so the cluster configs are also compared here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from jetjobs._transport.embedded import find_nats_server

INFRA = Path(__file__).resolve().parents[2] / "infra" / "nats"
CONFIGS = sorted(INFRA.rglob("*.conf"))
CLUSTER = [INFRA / "cluster" / f"n{i}.conf" for i in (1, 2, 3)]


def check(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`nats-server -t -c config`, run in `cwd` so that relative store paths resolve there."""
    return subprocess.run(
        [find_nats_server(), "-t", "-c", str(config)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_the_shipped_configs_are_all_here() -> None:
    """Single node, sync-always and the three cluster nodes: the files the README names."""
    assert [str(c.relative_to(INFRA)) for c in CONFIGS] == [
        "cluster/n1.conf",
        "cluster/n2.conf",
        "cluster/n3.conf",
        "single.conf",
        "sync-always.conf",
    ]


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c.relative_to(INFRA)) for c in CONFIGS])
def test_config_is_valid_and_touches_nothing(config: Path, tmp_path: Path) -> None:
    """`nats-server -t` accepts the file, and validating it creates no store directory."""
    result = check(config, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "is valid" in result.stderr + result.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_misspelt_key_is_rejected(tmp_path: Path) -> None:
    """A typo in sync_interval fails validation, so a config cannot silently lose its fsync setting."""
    text = (INFRA / "sync-always.conf").read_text(encoding="utf-8")
    broken = tmp_path / "broken.conf"
    broken.write_text(text.replace("sync_interval: always", "sync_intervall: always"), encoding="utf-8")
    result = check(broken, tmp_path)
    assert result.returncode != 0
    assert "sync_intervall" in result.stderr


def jetstream_block(text: str) -> str:
    match = re.search(r"^jetstream\s*\{(.*?)^\}", text, re.S | re.M)
    assert match, "no jetstream { } block"
    return match.group(1)


def test_sync_always_fsyncs_every_write_and_single_does_not() -> None:
    """sync-always.conf sets `sync_interval: always` in its jetstream block; single.conf keeps the default."""
    always = jetstream_block((INFRA / "sync-always.conf").read_text(encoding="utf-8"))
    single = jetstream_block((INFRA / "single.conf").read_text(encoding="utf-8"))
    assert re.search(r"^\s*sync_interval:\s*always\s*$", always, re.M)
    assert not re.search(r"^\s*sync_interval:", single, re.M)


class Node:
    """What one cluster config says about its node (read with regexes: the files are ours)."""

    def __init__(self, path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        cluster = re.search(r"^cluster\s*\{(.*?)^\}", text, re.S | re.M)
        assert cluster, f"{path.name}: no cluster {{ }} block"
        top = text[: cluster.start()] + text[cluster.end() :]
        self.server_name = self._one(r"^server_name:\s*(\S+)", top)
        self.client = self._one(r"^listen:\s*(\S+)", top)
        self.http = self._one(r"^http:\s*(\S+)", top)
        self.store = self._one(r"store_dir:\s*\"([^\"]+)\"", jetstream_block(text))
        self.cluster_name = self._one(r"^\s*name:\s*(\S+)", cluster.group(1))
        self.route_listen = self._one(r"^\s*listen:\s*(\S+)", cluster.group(1))
        routes = re.search(r"routes:\s*\[(.*?)\]", cluster.group(1), re.S)
        assert routes, f"{path.name}: no routes"
        self.routes = set(re.findall(r"nats://(\S+)", routes.group(1)))

    @staticmethod
    def _one(pattern: str, text: str) -> str:
        found = re.findall(pattern, text, re.M)
        assert len(found) == 1, f"expected one match of {pattern!r}, found {found}"
        return str(found[0])


def test_cluster_nodes_fit_together() -> None:
    """One cluster name; distinct server names, ports and stores; each node routes to the other two."""
    nodes = [Node(path) for path in CLUSTER]
    assert {n.cluster_name for n in nodes} == {nodes[0].cluster_name}
    for attribute in ("server_name", "client", "http", "store", "route_listen"):
        values = [getattr(n, attribute) for n in nodes]
        assert len(set(values)) == len(values), f"{attribute} repeats: {values}"
    for node in nodes:
        assert node.routes == {n.route_listen for n in nodes if n is not node}, node.server_name
    assert [n.client for n in nodes] == ["127.0.0.1:4222", "127.0.0.1:4223", "127.0.0.1:4224"]
