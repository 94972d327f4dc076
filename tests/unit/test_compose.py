"""infra/: what can be checked without Docker: the compose file, collector and Prometheus configs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

INFRA = Path(__file__).resolve().parents[2] / "infra"


def load(name: str) -> Any:
    return yaml.safe_load((INFRA / name).read_text(encoding="utf-8"))


def test_compose_has_the_stack() -> None:
    """Three NATS nodes, the collector, Jaeger and Prometheus, with the configs they mount present."""
    compose = load("docker-compose.yml")
    services = compose["services"]
    assert {"n1", "n2", "n3", "otel-collector", "jaeger", "prometheus"} <= set(services)
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (INFRA / source).is_file(), volume


def test_nats_nodes_form_one_cluster() -> None:
    """Every node runs JetStream, has a unique server name, one cluster name, and routes to the others."""
    services = load("docker-compose.yml")["services"]
    nodes = {name: services[name]["command"] for name in ("n1", "n2", "n3")}
    names = set()
    for name, command in nodes.items():
        assert "-js" in command
        flags = dict(zip(command[1::2], command[2::2], strict=False))
        assert command[command.index("--cluster_name") + 1] == "jetjobs"
        names.add(command[command.index("--server_name") + 1])
        routes = command[command.index("--routes") + 1].split(",")
        assert sorted(routes) == sorted(f"nats://{other}:6222" for other in nodes if other != name), flags
    assert names == {"n1", "n2", "n3"}


def test_collector_pipeline_names_are_defined() -> None:
    """Each pipeline names only receivers, processors and exporters that the config defines."""
    config = load("otel-collector.yaml")
    assert config["service"]["pipelines"]
    for name, pipeline in config["service"]["pipelines"].items():
        for kind in ("receivers", "processors", "exporters"):
            for component in pipeline.get(kind, []):
                assert component in config[kind], f"pipeline {name}: {kind[:-1]} {component} is not defined"
    assert "otlp" in config["receivers"]
    assert config["receivers"]["otlp"]["protocols"].keys() == {"grpc", "http"}


@pytest.mark.parametrize("name", ["prometheus.yml"])
def test_prometheus_scrapes_workers(name: str) -> None:
    """Prometheus has a scrape job for the workers' /metrics ports."""
    config = load(name)
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    targets = jobs["jetjobs-workers"]["static_configs"][0]["targets"]
    assert targets
    assert all(t.rsplit(":", 1)[1].isdigit() for t in targets)
