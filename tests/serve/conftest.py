"""One `tracegrade serve` process shared by the tests that ask for `server` (each sends its own
spans, by seed); tests that need other options or a fresh database start their own. Tests of
what a request's answer shows ask for `serve_app`: the same application in this process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.serve_app import ServeApp

from .helpers import Server, start_server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # An empty TRACEGRADE_TOKEN means no auth (docker-compose passes the variable through).
    running = start_server(tmp_path_factory.mktemp("serve"), token="")
    yield running
    running.stop()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def serve_app(tmp_path: Path) -> Iterator[ServeApp]:
    """serve's application on a fresh database, driven in this process (no socket)."""
    app = ServeApp(tmp_path / "serve.duckdb", token="")
    yield app
    app.close()
