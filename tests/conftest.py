from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from tests.support.adk_run import ROUTER as _router
from tests.support.new_database import new_database
from tests.support.tiers import guarded, starts_process
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.store import SpanWriter

# Hypothesis fails an example that takes over 200 ms by default: a timing assertion, which a
# loaded CI machine trips on correct code (speed is measured in bench/, never in tests).
settings.register_profile("tracegrade", deadline=None)
settings.load_profile("tracegrade")


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist's workers run with COLUMNS=80 and LINES=24 set (a developer's shell may
    # export them too): the commands tests start would then wrap their reports at 80
    # columns, as they do for a user who asked for that width. Tests choose a width themselves.
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
    provider = TracerProvider()
    provider.add_span_processor(_router)
    trace.set_tracer_provider(provider)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that starts a process is marked `process` (`slow` is one: its old name)."""
    for item in items:
        if item.get_closest_marker("process") is None and (
            item.get_closest_marker("slow") is not None or starts_process(item)
        ):
            item.add_marker(pytest.mark.process)


@pytest.fixture(autouse=True)
def _no_process_unmarked(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test not marked `process` that starts one fails (see tests.support.tiers)."""
    if request.node.get_closest_marker("process") is not None:
        yield
        return
    with guarded(request.node.nodeid):
        yield


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "test.duckdb"


@pytest.fixture
def writer(db_path: Path) -> Iterator[SpanWriter]:
    w = SpanWriter.open(new_database(db_path))
    yield w
    w.close()


@pytest.fixture
def captured(writer: SpanWriter) -> Iterator[BlockingSpanProcessor]:
    """Spans of everything the test runs go through the real processor and exporter."""
    processor = BlockingSpanProcessor(DuckDBSpanExporter(writer=writer))
    _router.target = processor
    yield processor
    _router.target = None
    processor.shutdown()
