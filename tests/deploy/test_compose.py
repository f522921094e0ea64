"""Static checks of docker-compose.yml, the Dockerfile and .dockerignore.

No Docker daemon runs in the test environment, so these files are only parsed. The tests check
that the compose services, the collector configs and `tracegrade serve`'s defaults agree: the
collector exports to the service and port where serve listens, serve binds an address the
collector can reach, the database lives on a volume, and the image installs the package and runs
as a non-root user.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:  # only for annotations: the objects arrive as fixtures from conftest.py
    from .conftest import Compose, Dockerfile, Interpolation, ServeArgs, ServeDefaults

    ServeService = tuple[str, ServeArgs]

COLLECTOR_IMAGE = re.compile(
    r"otel/opentelemetry-collector-contrib:(\d+\.\d+\.\d+)(@sha256:[0-9a-f]{64})?"
)
OTLP_PORTS = {4317, 4318}
MIB = {"k": 1 / 1024, "m": 1, "g": 1024}
# .dockerignore wildcards (Go filepath.Match plus `**`) as regular expressions.
GLOB = {"**/": "(.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def collector_service(compose: Compose) -> str:
    found = [
        name
        for name, spec in compose.services.items()
        if str(spec.get("image", "")).startswith("otel/opentelemetry-collector-contrib")
    ]
    assert len(found) == 1, f"expected one collector service, found {found}"
    return found[0]


def collector_config_path(compose: Compose) -> str:
    """The --config path in the collector's command (its image's default when absent)."""
    command = compose.services[collector_service(compose)].get("command", [])
    for i, arg in enumerate(command):
        if arg.startswith("--config="):
            return str(arg.split("=", 1)[1])
        if arg == "--config":
            return str(command[i + 1])
    return "/etc/otelcol-contrib/config.yaml"


def otlphttp_endpoints(config: dict[str, Any]) -> list[str]:
    exporters = config["exporters"]
    return [exporters[e]["endpoint"] for e in exporters if e.split("/")[0] == "otlphttp"]


def mebibytes(size: str) -> float:
    match = re.fullmatch(r"(\d+)\s*([kmg])i?b?", size.strip().lower())
    assert match, f"unreadable size {size!r}"
    return int(match.group(1)) * MIB[match.group(2)]


def dockerignore_excludes(patterns: list[str], path: str) -> bool:
    """Whether .dockerignore keeps `path` out of the build context (later patterns win)."""

    def matches(pattern: str, candidate: str) -> bool:
        tokens = re.findall(r"\*\*/|\*\*|\*|\?|\[[^\]]*\]|[^*?\[]+", pattern.strip("/"))
        regex = "".join(
            GLOB.get(token, token if token.startswith("[") else re.escape(token))
            for token in tokens
        )
        return re.fullmatch(regex, candidate) is not None

    parts = PurePosixPath(path).parts
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if any(matches(pattern.lstrip("!"), prefix) for prefix in prefixes):
            excluded = not negated
    return excluded


@pytest.fixture(scope="session")
def dockerignore(repo_root: Path) -> list[str]:
    lines = (repo_root / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


# --- the collector service ---------------------------------------------------------------------


def test_collector_image_is_pinned(compose: Compose) -> None:
    image = compose.services[collector_service(compose)]["image"]
    assert COLLECTOR_IMAGE.fullmatch(image), f"pin an exact release, not {image!r}"


def test_collector_configs_name_the_pinned_image(compose: Compose, repo_root: Path) -> None:
    """Each config says which collector release its option names were checked against."""
    image = compose.services[collector_service(compose)]["image"]
    version = image.split(":")[1].split("@")[0]
    for path in sorted((repo_root / "collector-config").glob("*.yaml")):
        named = {match[0] for match in COLLECTOR_IMAGE.findall(path.read_text())}
        assert named == {version}, f"{path.name} names {named}, compose pins {version}"


@pytest.mark.parametrize(
    ("env", "expected"),
    [({}, "production.yaml"), ({"COLLECTOR_CONFIG": "eval.yaml"}, "eval.yaml")],
)
def test_collector_mounts_the_chosen_config_where_it_reads_it(
    compose: Compose, repo_root: Path, env: dict[str, str], expected: str
) -> None:
    mounts = {
        target: source for source, target in compose.volume_mounts(collector_service(compose), env)
    }
    source = mounts.get(collector_config_path(compose))
    assert source is not None, f"nothing mounted at {collector_config_path(compose)}: {mounts}"
    path = (repo_root / source).resolve()
    assert path == repo_root / "collector-config" / expected
    assert path.is_file()


def test_collector_publishes_the_otlp_ports_its_receivers_listen_on(
    compose: Compose, collector_configs: dict[str, dict[str, Any]]
) -> None:
    published = compose.published_ports(collector_service(compose), {})
    for name, config in collector_configs.items():
        protocols = config["receivers"]["otlp"]["protocols"]
        listening = {int(p["endpoint"].rsplit(":", 1)[1]) for p in protocols.values()}
        # Agents use the standard OTLP ports, so host and container ports are the same.
        assert listening <= {
            p.container_port for p in published if p.host_port == p.container_port
        }, name
    assert {p.host_port for p in published} >= OTLP_PORTS


def test_collector_waits_for_a_healthy_tracegrade(
    compose: Compose, serve_service: ServeService
) -> None:
    depends_on = compose.services[collector_service(compose)]["depends_on"]
    assert depends_on[serve_service[0]]["condition"] == "service_healthy"


def test_collector_memory_limits_nest(
    compose: Compose, collector_configs: dict[str, dict[str, Any]]
) -> None:
    """GOMEMLIMIT < memory_limiter's hard limit < the container's memory limit."""
    service = collector_service(compose)
    gomemlimit = mebibytes(str(compose.environment(service)["GOMEMLIMIT"]))
    container = mebibytes(str(compose.services[service]["mem_limit"]))
    for name, config in collector_configs.items():
        limit = config["processors"]["memory_limiter"]["limit_mib"]
        assert gomemlimit < limit < container, name


# --- the tracegrade service --------------------------------------------------------------------


def test_exporter_targets_the_serve_service_at_its_listening_port(
    collector_configs: dict[str, dict[str, Any]], serve_service: ServeService
) -> None:
    name, args = serve_service
    for config_name, config in collector_configs.items():
        endpoints = otlphttp_endpoints(config)
        assert endpoints, config_name
        for endpoint in endpoints:
            url = urlsplit(endpoint)
            assert (url.scheme, url.hostname, url.port) == ("http", name, args.http_port), (
                f"{config_name}: {endpoint} is not where `tracegrade serve` listens"
            )


def test_serve_binds_an_address_the_collector_can_reach(serve_service: ServeService) -> None:
    assert serve_service[1].host == "0.0.0.0"


def test_serve_publishes_no_otlp_port_the_collector_already_has(
    compose: Compose, serve_service: ServeService
) -> None:
    name, args = serve_service
    collector_ports = {p.host_port for p in compose.published_ports(collector_service(compose), {})}
    for port in compose.published_ports(name, {}):
        assert port.host_port not in collector_ports | OTLP_PORTS, port
        # Published only for the read-only SQL endpoint: loopback, and the port serve listens on.
        assert port.host_ip == "127.0.0.1", port
        assert port.container_port == args.http_port, port


def test_database_lives_on_a_named_volume(compose: Compose, serve_service: ServeService) -> None:
    name, args = serve_service
    assert args.db, "pass --db so the database path is explicit"
    mounts = compose.volume_mounts(name, {})
    holding = [s for s, t in mounts if PurePosixPath(args.db).is_relative_to(t)]
    assert len(holding) == 1, f"{args.db} is not under exactly one mount: {mounts}"
    assert holding[0] in (compose.data.get("volumes") or {}), f"{holding[0]} is not a named volume"


def test_serve_healthcheck_hits_health_on_its_port(
    compose: Compose, serve_service: ServeService, serve_defaults: ServeDefaults
) -> None:
    name, args = serve_service
    test = compose.services[name]["healthcheck"]["test"]
    assert test[0] == "CMD"
    assert f"http://127.0.0.1:{args.http_port}{serve_defaults.health_path}" in " ".join(test)


def test_serve_is_built_from_the_dockerfile(
    compose: Compose, repo_root: Path, serve_service: ServeService
) -> None:
    build = compose.services[serve_service[0]]["build"]
    assert (repo_root / build["context"] / build.get("dockerfile", "Dockerfile")).is_file()


def test_one_required_token_reaches_both_services(
    compose: Compose,
    collector_configs: dict[str, dict[str, Any]],
    serve_service: ServeService,
    interpolation: Interpolation,
) -> None:
    """serve listens on the compose network, not loopback, where it refuses to run without a
    token: compose requires TRACEGRADE_TOKEN (`${VAR:?message}`, unset or empty stops it) and
    gives the same one to the collector's exporter and to serve, in the environment (an
    option would show in `ps`)."""
    assert all("TRACEGRADE_TOKEN" in str(c.get("extensions")) for c in collector_configs.values())
    services = (collector_service(compose), serve_service[0])
    values = [compose.environment(service).get("TRACEGRADE_TOKEN") for service in services]
    for value in values:
        assert value is not None, values
        assert value.startswith("${TRACEGRADE_TOKEN:?"), values
        assert interpolation.apply(value, {"TRACEGRADE_TOKEN": "s3cret"}) == "s3cret"
        for unset in ({}, {"TRACEGRADE_TOKEN": ""}):
            with pytest.raises(interpolation.missing, match="openssl rand"):
                interpolation.apply(value, unset)
    argv = compose.argv(serve_service[0], None)
    assert "--token" not in argv
    assert "--allow-unauthenticated" not in argv


# --- the image ---------------------------------------------------------------------------------


def test_image_is_python_311_slim(dockerfile: Dockerfile) -> None:
    assert dockerfile.all("FROM") == ["python:3.11-slim"]


def test_image_installs_the_package_without_a_pip_cache(dockerfile: Dockerfile) -> None:
    """Its dependencies come from the lock (tests/deploy/test_lock.py): the package itself
    brings none, nor fetches a build backend."""
    package = "pip install --no-cache-dir --no-deps --no-build-isolation ."
    assert any(package in run for run in dockerfile.all("RUN"))


def test_image_copies_everything_the_build_backend_needs(
    dockerfile: Dockerfile, dockerignore: list[str], repo_root: Path
) -> None:
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = [
        "pyproject.toml",
        project["project"]["readme"],
        *wheel["packages"],
        *wheel.get("force-include", {}),
    ]
    copied = {
        src
        for args in dockerfile.all("COPY")
        for src in args.split()[:-1]
        if not src.startswith("--")
    }
    for path in needed:
        assert any(PurePosixPath(path).is_relative_to(src) for src in copied), f"not copied: {path}"
        assert not dockerignore_excludes(dockerignore, path), f".dockerignore drops {path}"


def test_image_runs_as_a_non_root_user(dockerfile: Dockerfile) -> None:
    user = dockerfile.last("USER").split(":")[0]
    assert user not in {"root", "0"}
    created = any("useradd" in run and user in run.split() for run in dockerfile.all("RUN"))
    assert created, f"user {user!r} is never created"


def test_image_runs_serve_reachable_and_exposes_its_ports(
    dockerfile: Dockerfile, image_serve_args: ServeArgs, serve_service: ServeService
) -> None:
    assert dockerfile.exec_form("ENTRYPOINT") == ["tracegrade"]
    assert image_serve_args.host == "0.0.0.0"
    exposed = {int(p.split("/")[0]) for args in dockerfile.all("EXPOSE") for p in args.split()}
    assert exposed == {image_serve_args.http_port, image_serve_args.grpc_port}
    compose_args = serve_service[1]
    assert exposed == {compose_args.http_port, compose_args.grpc_port}


def test_image_healthcheck_hits_health_on_the_serve_port(
    dockerfile: Dockerfile, image_serve_args: ServeArgs, serve_defaults: ServeDefaults
) -> None:
    healthcheck = dockerfile.last("HEALTHCHECK")
    url = f"http://127.0.0.1:{image_serve_args.http_port}{serve_defaults.health_path}"
    assert url in healthcheck


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".venv/bin/python",
        "venv/lib/site.py",
        "tracegrade.duckdb",
        "examples/weather/tracegrade.duckdb.wal",
        "src/tracegrade/__pycache__",
        "tests/__pycache__/conftest.cpython-311-pytest-8.pyc",
        ".mypy_cache/3.11/x.json",
        ".pytest_cache/v/cache",
    ],
)
def test_dockerignore_keeps_local_state_out_of_the_context(
    dockerignore: list[str], path: str
) -> None:
    assert dockerignore_excludes(dockerignore, path)
