"""Report tests: the committed eval-run fixture, scored once per session, and golden files.

`pytest tests/report --update-golden` rewrites the golden files in tests/data/report/golden;
without it, a report that differs from its golden file fails with a unified diff.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.report.helpers import (
    BASE_RUN,
    GOLDEN,
    NEXT_RUN,
    JsonReader,
    compare_golden,
    scored_db,
)
from tracegrade.report import RunReport, build_report
from tracegrade.store import LocalReader, connect


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/data/report/golden from the current output (read the diff after)",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    update = bool(request.config.getoption("--update-golden", default=False))
    return lambda name, actual: compare_golden(GOLDEN / name, actual, update)


@pytest.fixture(scope="session")
def runs_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both fixture runs, ingested through the real file path and scored once."""
    return scored_db(tmp_path_factory.mktemp("report") / "runs.duckdb", runs=(BASE_RUN, NEXT_RUN))


@pytest.fixture(scope="session")
def reader(runs_db: Path) -> Iterator[LocalReader]:
    connection = connect(runs_db, read_only=True)
    yield LocalReader(connection)
    connection.close()


@pytest.fixture(scope="session")
def base_report(reader: LocalReader) -> RunReport:
    return build_report(reader, run_id=BASE_RUN)


@pytest.fixture(scope="session")
def json_reader(reader: LocalReader) -> JsonReader:
    return JsonReader(reader)
