"""Fixtures for the static checks of the deployment files.

No Docker daemon runs in the test environment, so docker-compose.yml, the Dockerfile and the
collector configs are parsed and checked against each other and against `tracegrade serve`'s
defaults. Parsing lives here and reaches the tests as fixtures, so the tests work under any pytest
import mode.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tracegrade.server import config as serve_config

REPO_ROOT = Path(__file__).resolve().parents[2]
COLLECTOR_CONFIG_DIR = REPO_ROOT / "collector-config"
COLLECTOR_CONFIG_NAMES = ("production.yaml", "eval.yaml")


@dataclass(frozen=True)
class ServeDefaults:
    """What `tracegrade serve` does when no option says otherwise."""

    host: str
    http_port: int
    grpc_port: int
    health_path: str


# The serve contract these files are built against, read from serve itself: changing serve's
# defaults fails these tests instead of quietly breaking the pipeline.
SERVE_DEFAULTS = ServeDefaults(
    host=serve_config.DEFAULT_HOST,
    http_port=serve_config.DEFAULT_HTTP_PORT,
    grpc_port=serve_config.DEFAULT_GRPC_PORT,
    health_path=serve_config.HEALTH_PATH,
)


@dataclass(frozen=True)
class ServeArgs:
    """The options of one `tracegrade serve` command line, defaults filled in."""

    host: str
    http_port: int
    grpc_port: int
    db: str | None

    @classmethod
    def parse(cls, argv: list[str], defaults: ServeDefaults) -> ServeArgs:
        assert argv[:2] == ["tracegrade", "serve"], f"not a `tracegrade serve` command: {argv}"
        options: dict[str, str] = {}
        rest = iter(argv[2:])
        for arg in rest:
            assert arg.startswith("--"), f"unexpected positional argument {arg!r} in {argv}"
            name, eq, value = arg.partition("=")
            options[name] = value if eq else next(rest)
        return cls(
            host=options.get("--host", defaults.host),
            http_port=int(options.get("--port", defaults.http_port)),
            grpc_port=int(options.get("--grpc-port", defaults.grpc_port)),
            db=options.get("--db"),
        )


_INTERPOLATION = re.compile(
    r"\$\$|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<default>(?:\$\$|[^}$])*))?\}"
)


class MissingVariable(Exception):
    """`${VAR:?message}` with VAR unset or empty: compose stops with the message."""


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """Compose's variable substitution (`${VAR}`, `${VAR:-default}`, `${VAR-default}`,
    `${VAR:?error}`, `${VAR?error}`, `$$`)."""

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, default = match.group("name", "op", "default")
        current = env.get(name)
        if op == ":-" and not current:
            return default
        if op == "-" and current is None:
            return default
        if (op == ":?" and not current) or (op == "?" and current is None):
            raise MissingVariable(default.replace("$$", "$"))
        return current or ""

    return _INTERPOLATION.sub(substitute, value)


@dataclass(frozen=True)
class PublishedPort:
    host_ip: str | None
    host_port: int
    container_port: int


@dataclass(frozen=True)
class Compose:
    """docker-compose.yml, parsed."""

    data: dict[str, Any]

    @property
    def services(self) -> dict[str, Any]:
        found: dict[str, Any] = self.data["services"]
        return found

    def argv(self, service: str, dockerfile: Dockerfile | None) -> list[str]:
        """The full command line a service runs: image ENTRYPOINT plus compose `command`."""
        spec = self.services[service]
        command = spec.get("command", [])
        if isinstance(command, str):
            command = shlex.split(command)
        entrypoint = spec.get("entrypoint")
        if entrypoint is None and "build" in spec and dockerfile is not None:
            entrypoint = dockerfile.exec_form("ENTRYPOINT")
        if isinstance(entrypoint, str):
            entrypoint = shlex.split(entrypoint)
        return [*(entrypoint or []), *command]

    def environment(self, service: str) -> dict[str, str | None]:
        """Service environment; None marks a pass-through entry (`- NAME`, no value)."""
        env = self.services[service].get("environment", {})
        if isinstance(env, dict):
            return {k: (None if v is None else str(v)) for k, v in env.items()}
        parsed: dict[str, str | None] = {}
        for entry in env:
            name, eq, value = entry.partition("=")
            parsed[name] = value if eq else None
        return parsed

    def published_ports(self, service: str, env: Mapping[str, str]) -> list[PublishedPort]:
        ports = []
        for entry in self.services[service].get("ports", []):
            if isinstance(entry, dict):
                ports.append(
                    PublishedPort(
                        entry.get("host_ip"), int(entry["published"]), int(entry["target"])
                    )
                )
                continue
            spec = interpolate(str(entry), env).split("/")[0]
            parts = spec.rsplit(":", 2)
            assert len(parts) >= 2, f"{service}: port {entry!r} is not published on the host"
            host_ip = parts[0] if len(parts) == 3 else None
            ports.append(PublishedPort(host_ip, int(parts[-2]), int(parts[-1])))
        return ports

    def volume_mounts(self, service: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
        """(source, target) of each mount; sources interpolated, relative ones kept relative."""
        mounts = []
        for entry in self.services[service].get("volumes", []):
            if isinstance(entry, dict):
                mounts.append((interpolate(str(entry["source"]), env), str(entry["target"])))
            else:
                source, target, *_ = interpolate(str(entry), env).split(":")
                mounts.append((source, target))
        return mounts


@dataclass(frozen=True)
class Dockerfile:
    """A Dockerfile as (INSTRUCTION, arguments) pairs, continuations joined, comments dropped."""

    instructions: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        instructions: list[tuple[str, str]] = []
        pending = ""
        for line in text.splitlines():
            stripped = line.strip()
            if not pending and (not stripped or stripped.startswith("#")):
                continue
            if stripped.endswith("\\"):
                pending += stripped[:-1] + " "
                continue
            keyword, _, args = (pending + stripped).partition(" ")
            instructions.append((keyword.upper(), args.strip()))
            pending = ""
        return cls(instructions)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]

    def last(self, keyword: str) -> str:
        found = self.all(keyword)
        assert found, f"Dockerfile has no {keyword}"
        return found[-1]

    def exec_form(self, keyword: str) -> list[str]:
        args = self.last(keyword)
        assert args.startswith("["), f"{keyword} should use the exec (JSON) form: {args}"
        parsed = json.loads(args)
        assert isinstance(parsed, list)
        return [str(item) for item in parsed]


@pytest.fixture(scope="session")
def serve_defaults() -> ServeDefaults:
    return SERVE_DEFAULTS


@pytest.fixture(scope="session")
def compose() -> Compose:
    return Compose(yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text()))


@pytest.fixture(scope="session")
def dockerfile() -> Dockerfile:
    return Dockerfile.parse((REPO_ROOT / "Dockerfile").read_text())


# `${env:NAME:-default}` in a collector config: compose sets none of these, so the Collector in
# compose uses the default; tests/collector sets them to run the same file on loopback ports.
_COLLECTOR_DEFAULT = re.compile(r"\$\{env:[A-Za-z_][A-Za-z0-9_]*:-(?P<default>[^}]*)\}")


def load_collector_config(name: str) -> dict[str, Any]:
    """A collector config as the Collector in compose reads it (env defaults filled in)."""
    text = (COLLECTOR_CONFIG_DIR / name).read_text()
    config: dict[str, Any] = yaml.safe_load(_COLLECTOR_DEFAULT.sub(r"\g<default>", text))
    return config


@pytest.fixture(scope="session")
def collector_configs() -> dict[str, dict[str, Any]]:
    """Every collector config, by file name."""
    return {name: load_collector_config(name) for name in COLLECTOR_CONFIG_NAMES}


@pytest.fixture(params=COLLECTOR_CONFIG_NAMES)
def config_name(request: pytest.FixtureRequest) -> str:
    """Each collector config's file name in turn."""
    name: str = request.param
    return name


@pytest.fixture
def config(config_name: str, collector_configs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each collector config in turn, parsed."""
    return collector_configs[config_name]


@pytest.fixture
def config_text(config_name: str) -> str:
    """Each collector config in turn, as text (comments included)."""
    return (COLLECTOR_CONFIG_DIR / config_name).read_text()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def serve_service(
    compose: Compose, dockerfile: Dockerfile, serve_defaults: ServeDefaults
) -> tuple[str, ServeArgs]:
    """The compose service that runs `tracegrade serve`, and its parsed options."""
    found = [
        (name, compose.argv(name, dockerfile))
        for name in compose.services
        if compose.argv(name, dockerfile)[:2] == ["tracegrade", "serve"]
    ]
    assert len(found) == 1, f"expected one service running `tracegrade serve`, found {found}"
    name, argv = found[0]
    return name, ServeArgs.parse(argv, serve_defaults)


@pytest.fixture(scope="session")
def image_serve_args(dockerfile: Dockerfile, serve_defaults: ServeDefaults) -> ServeArgs:
    """What the image runs when started without arguments (ENTRYPOINT + CMD)."""
    argv = dockerfile.exec_form("ENTRYPOINT") + dockerfile.exec_form("CMD")
    return ServeArgs.parse(argv, serve_defaults)


class Interpolation:
    """Compose's variable substitution, and the error it stops with, for the tests."""

    missing = MissingVariable

    @staticmethod
    def apply(value: str, env: Mapping[str, str]) -> str:
        return interpolate(value, env)


@pytest.fixture(scope="session")
def interpolation() -> Interpolation:
    return Interpolation()
