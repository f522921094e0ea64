"""Static checks of the sharded layout: collector-config/sharded.yaml (the front tier) and
docker-compose.sharded.yml (a front collector and two `tracegrade serve` shards).

tests/archive/test_shards.py runs two real shards fed as this routing feeds them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.conftest import (
    REPO_ROOT,
    SERVE_DEFAULTS,
    Compose,
    Dockerfile,
    load_collector_config,
)
from tests.deploy.test_collector_config import component_type, pipelines

Config = dict[str, Any]


@pytest.fixture(scope="module")
def front() -> Config:
    return load_collector_config("sharded.yaml")


@pytest.fixture(scope="module")
def compose() -> Compose:
    return Compose(yaml.safe_load((REPO_ROOT / "docker-compose.sharded.yml").read_text()))


@pytest.fixture(scope="module")
def shards(compose: Compose) -> dict[str, dict[str, str]]:
    """Each service running `tracegrade serve`, with its options."""
    dockerfile = Dockerfile.parse((REPO_ROOT / "Dockerfile").read_text())
    found = {}
    for name in compose.services:
        argv = compose.argv(name, dockerfile)
        if argv[:2] == ["tracegrade", "serve"]:
            found[name] = dict(zip(argv[2::2], argv[3::2], strict=True))
    return found


def test_every_component_is_defined_and_used(front: Config) -> None:
    used = {
        (kind, cid)
        for pipeline in pipelines(front).values()
        for kind in ("receivers", "processors", "exporters")
        for cid in pipeline.get(kind, [])
    }
    defined = {
        (kind, cid) for kind in ("receivers", "processors", "exporters") for cid in front[kind]
    }
    assert used == defined


def test_traces_are_routed_by_trace_id_after_the_limiter_and_batch(front: Config) -> None:
    traces = pipelines(front)["traces"]
    assert traces["processors"][0] == "memory_limiter"
    assert traces["processors"][-1] == "batch"
    assert [component_type(e) for e in traces["exporters"]] == ["load_balancing"]
    assert not any(
        component_type(p) in {"tail_sampling", "probabilistic_sampler"}
        for p in traces["processors"]
    )
    balancer = front["exporters"]["load_balancing"]
    assert balancer["routing_key"] == "traceID"
    otlp = balancer["protocol"]["otlp"]
    # A header: bearertokenauth's gRPC credentials refuse a connection without TLS.
    assert otlp["headers"]["authorization"] == "Bearer ${env:TRACEGRADE_TOKEN}"
    assert "auth" not in otlp
    assert otlp["retry_on_failure"]["enabled"] is True
    assert otlp["retry_on_failure"]["max_elapsed_time"] != "0"


def test_the_balancer_queues_on_disk_and_not_per_shard(front: Config) -> None:
    """Upstream: the per-backend queues are in memory and lose data when the ring changes, so
    the queue is the exporter's own, in file_storage, and a batch leaves it once acknowledged."""
    balancer = front["exporters"]["load_balancing"]
    queue = balancer["sending_queue"]
    assert queue["enabled"] is True
    assert queue["storage"] in front["service"]["extensions"]
    assert component_type(queue["storage"]) == "file_storage"
    assert balancer["retry_on_failure"]["enabled"] is True
    assert balancer["protocol"]["otlp"]["sending_queue"]["enabled"] is False


def test_the_queue_lives_on_a_volume_of_its_own(front: Config, compose: Compose) -> None:
    (storage,) = [e for e in front["extensions"] if component_type(e) == "file_storage"]
    mounts = compose.volume_mounts("collector", {})
    assert (("collector-queue", front["extensions"][storage]["directory"])) in mounts
    assert "collector-queue" in compose.data["volumes"]


def test_each_shard_publishes_its_http_port_on_loopback(
    compose: Compose, shards: dict[str, dict[str, str]]
) -> None:
    published = {name: compose.published_ports(name, {}) for name in shards}
    host_ports = [p.host_port for ports in published.values() for p in ports]
    assert len(set(host_ports)) == len(host_ports) == len(shards)
    for name, ports in published.items():
        (port,) = ports
        assert port.host_ip == "127.0.0.1", name
        assert port.container_port == int(shards[name].get("--port", SERVE_DEFAULTS.http_port))


def test_the_balancer_sends_to_every_shard_at_its_grpc_port(
    front: Config, shards: dict[str, dict[str, str]]
) -> None:
    hostnames = front["exporters"]["load_balancing"]["resolver"]["static"]["hostnames"]
    expected = {
        f"{name}:{options.get('--grpc-port', SERVE_DEFAULTS.grpc_port)}"
        for name, options in shards.items()
    }
    assert len(shards) == 2
    assert set(hostnames) == expected
    assert all(options["--host"] == "0.0.0.0" for options in shards.values())


def test_shards_share_one_archive_under_their_own_names(
    compose: Compose, shards: dict[str, dict[str, str]]
) -> None:
    names = [options["--shard"] for options in shards.values()]
    assert len(set(names)) == len(names)
    (archive,) = {options["--archive"] for options in shards.values()}
    mounts = {name: compose.services[name]["volumes"] for name in shards}
    archive_volumes = {
        v.split(":")[0] for vs in mounts.values() for v in vs if v.split(":")[1] == archive
    }
    assert len(archive_volumes) == 1  # the same named volume in every shard
    db_volumes = [
        v.split(":")[0]
        for name, vs in mounts.items()
        for v in vs
        if Path(shards[name]["--db"]).parent == Path(v.split(":")[1])
    ]
    assert len(set(db_volumes)) == len(shards)  # a hot store of its own each


def test_the_image_prepares_the_archive_folder_for_its_user() -> None:
    text = (REPO_ROOT / "Dockerfile").read_text()
    assert "mkdir /data /archive" in text
    assert "chown tracegrade:tracegrade /data /archive" in text


def test_the_front_collector_reads_the_sharded_config(compose: Compose) -> None:
    volumes = compose.services["collector"]["volumes"]
    assert "./collector-config/sharded.yaml:/etc/otelcol-contrib/config.yaml:ro" in volumes
