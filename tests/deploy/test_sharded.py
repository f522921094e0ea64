"""Static checks of the sharded layout: collector-config/sharded.yaml (the front tier) and
docker-compose.sharded.yml (a front collector and two `tracegrade serve` shards).

tests/archive/test_shards.py runs two real shards fed as this routing feeds them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.conftest import (
    COLLECTOR_CONFIG_DIR,
    REPO_ROOT,
    SERVE_DEFAULTS,
    Compose,
    Dockerfile,
)
from tests.deploy.test_collector_config import component_type, pipelines

Config = dict[str, Any]


@pytest.fixture(scope="module")
def front() -> Config:
    config: Config = yaml.safe_load((COLLECTOR_CONFIG_DIR / "sharded.yaml").read_text())
    return config


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
    assert [component_type(e) for e in traces["exporters"]] == ["loadbalancing"]
    assert not any(
        component_type(p) in {"tail_sampling", "probabilistic_sampler"}
        for p in traces["processors"]
    )
    balancer = front["exporters"]["loadbalancing"]
    assert balancer["routing_key"] == "traceID"
    otlp = balancer["protocol"]["otlp"]
    assert otlp["auth"]["authenticator"] in front["service"]["extensions"]
    assert otlp["retry_on_failure"]["enabled"] is True
    assert otlp["retry_on_failure"]["max_elapsed_time"] != "0"


def test_the_balancer_sends_to_every_shard_at_its_grpc_port(
    front: Config, shards: dict[str, dict[str, str]]
) -> None:
    hostnames = front["exporters"]["loadbalancing"]["resolver"]["static"]["hostnames"]
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
