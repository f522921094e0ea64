"""What the report tests share: the fixture runs, a JSON round-trip reader, golden files."""

from __future__ import annotations

import datetime as dt
import decimal
import difflib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.paths import DATA
from tracegrade.ingest import ingest_file
from tracegrade.report import RunReport
from tracegrade.scoring import (
    Selection,
    available_metrics,
    load_scoring_config,
    parse_config,
    score,
)
from tracegrade.store import SpanWriter
from tracegrade.store.reader import Reader, Rows

REPORT_DATA = DATA / "report"
GOLDEN = REPORT_DATA / "golden"
RUNS_FIXTURE = REPORT_DATA / "report_runs.otlp.jsonl"
CONFIG = REPORT_DATA / "test_config.json"
BASE_RUN = "20260101T000000-base"
NEXT_RUN = "20260101T000500-next"


def compare_golden(path: Path, actual: str, update: bool) -> None:
    """Fail with a unified diff unless `actual` is the golden file's text; `update`
    rewrites the file instead."""
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    if not path.exists():
        pytest.fail(f"no golden file {path}: run `pytest tests/report --update-golden`")
    expected = path.read_text()
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                f"golden/{path.name}",
                "actual",
            )
        )
        pytest.fail(
            f"{path.name} differs from its golden file; if the change is intended, "
            f"run `pytest tests/report --update-golden` and review the diff:\n{diff}",
            pytrace=False,
        )


def score_run(connection: duckdb.DuckDBPyConnection, run_id: str | None) -> str:
    loaded = load_scoring_config(CONFIG)
    return score(connection, Selection(run_id=run_id), loaded.config, loaded.specs).scoring_id


def scored_db(path: Path, source: Path = RUNS_FIXTURE, runs: Sequence[str] = (BASE_RUN,)) -> Path:
    """A database at `path` holding the trace file `source`, ingested through the real file
    path, with each of `runs` scored."""
    writer = SpanWriter.open(path)
    try:
        assert ingest_file(source, writer).ok
        for run_id in runs:
            score_run(writer.connection, run_id)
    finally:
        writer.close()
    return path


class JsonReader:
    """A `Reader` whose rows went through JSON, as from `tracegrade serve`'s SQL endpoint:
    timestamps arrive as text, lists as lists, tuples as lists."""

    def __init__(self, inner: Reader) -> None:
        self.inner = inner

    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], Rows]:
        columns, rows = self.inner.query(sql, params)
        decoded = json.loads(json.dumps([list(row) for row in rows], default=_plain))
        return columns, [tuple(row) for row in decoded]


def _plain(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


# What differs between two scorings of the same spans: the golden files hold fixed values.
SCORED_AT = "2026-01-01T01:00:00Z"
SCORED_BY = "0.0.0+golden"


def fixed_scoring(report: RunReport, scoring_id: str) -> RunReport:
    """The report with the scoring's id, time and tracegrade version fixed; the rest as built."""
    scoring = report.scoring.model_copy(
        update={"scoring_id": scoring_id, "scored_at": SCORED_AT, "tracegrade_version": SCORED_BY}
    )
    return report.model_copy(update={"scoring": scoring})


def score_with(
    connection: duckdb.DuckDBPyConnection, selection: Selection, raw: dict[str, Any]
) -> str:
    """Score with a criteria document given inline (test_config.json's shape)."""
    specs = available_metrics()
    return score(connection, selection, parse_config(raw, specs), specs).scoring_id
