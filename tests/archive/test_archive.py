"""`tracegrade archive`: spans move into the Parquet archive once, and every view, score
and report reads the database and the archive as one."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from tests.support.archive import (
    TRAFFIC_SEEDS,
    adk_traffic_db,
    eval_runs_db,
    hot_count,
    stored_spans,
    traffic_db,
)
from tests.support.tiers import costly
from tracegrade.cli.main import app
from tracegrade.errors import ArchiveError
from tracegrade.store import connect
from tracegrade.store.archive import archive_pass
from tracegrade.store.archive_location import set_location

runner = CliRunner()


def _archive(db: Path, root: Path, *extra: str) -> str:
    result = runner.invoke(
        app, ["archive", "--db", str(db), "--archive", str(root), "--retain-days", "0", *extra]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _archived_and_twin(db: Path, tmp_path: Path) -> tuple[Path, Path]:
    """`db` archived whole, and a twin copy of it that keeps every span hot."""
    twin = tmp_path / "twin.duckdb"
    shutil.copy(db, twin)
    _archive(db, tmp_path / "archive")
    assert hot_count(db) == 0
    return db, twin


def _turns(db: Path) -> list[tuple[Any, ...]]:
    return _read(db, "SELECT * FROM turns ORDER BY ALL")


def _read(db: Path, query: str) -> list[tuple[Any, ...]]:
    """Rows as tracegrade reads the database: hot spans and the archive as one."""
    connection = connect(db, read_only=True)
    rows = connection.execute(query).fetchall()
    connection.close()
    return rows


@costly
def test_archive_moves_every_span_once_and_the_views_read_both(tmp_path: Path) -> None:
    db = traffic_db(tmp_path / "hot.duckdb")
    spans, turns = stored_spans(db), _turns(db)
    root = tmp_path / "archive"

    out = _archive(db, root)

    assert f"archived {len(spans)} spans" in out
    assert hot_count(db) == 0
    assert stored_spans(db, root) == spans
    files = sorted(p.relative_to(root).parts[:3] for p in root.glob("shard=*/*/*/*.parquet"))
    assert len(files) == 12  # 40 seeds 1000 s apart: traces started in 12 distinct hours
    assert all(part[0] == "shard=s0" for part in files)
    assert _turns(db) == turns
    query = "SELECT count(*) AS n, count(DISTINCT trace_id) AS t FROM spans"
    result = runner.invoke(app, ["sql", query, "--db", str(db), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["n,t", f"{len(spans)},{len(turns)}"]  # a turn a trace
    assert "archived 0 spans" in _archive(db, root)  # nothing left to move


@costly
def test_archived_spans_read_back_with_the_attrs_the_writer_stored(tmp_path: Path) -> None:
    """The files keep the raw columns; `spans` derives `attrs` for them as the writer did."""
    db = traffic_db(tmp_path / "hot.duckdb")
    before = _attrs(db)
    _archive(db, tmp_path / "archive")
    assert hot_count(db) == 0
    assert _attrs(db) == before
    assert all(attrs is not None for _, _, attrs in before)
    assert any(attrs["gen_ai.tool.name"] for _, _, attrs in before)


def _attrs(db: Path) -> list[tuple[Any, ...]]:
    return _read(db, "SELECT trace_id, span_id, attrs FROM spans ORDER BY ALL")


@costly
def test_export_evalset_reads_the_archive(tmp_path: Path) -> None:
    db, twin = _archived_and_twin(adk_traffic_db(tmp_path / "hot.duckdb"), tmp_path)
    exported = [_exported(path, tmp_path / f"{path.stem}.evalset.json") for path in (db, twin)]
    assert exported[0] == exported[1]
    assert len(json.loads(exported[0])["eval_cases"]) == 3


def _exported(db: Path, out: Path) -> str:
    args = ["export-evalset", str(out), "--where", "true", "--eval-set-id", "x", "--db", str(db)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out.read_text()


@costly
def test_archive_keeps_the_retained_days_hot(tmp_path: Path) -> None:
    db = traffic_db(tmp_path / "hot.duckdb")
    spans = stored_spans(db)
    connection = connect(db)
    set_location(connection, tmp_path / "archive", "s0")
    ((cut,),) = connection.execute("SELECT quantile_disc(end_ns, 0.5) FROM spans").fetchall()
    one_day = 86_400 * 10**9
    # "now" is one day after the median span: traces ended before it move, later ones stay
    done = archive_pass(connection, retain_days=1, now_ns=cut + one_day)
    ((oldest_hot,),) = connection.execute(
        "SELECT min(max_end) FROM (SELECT max(end_ns) AS max_end FROM spans GROUP BY trace_id "
        "HAVING bool_and(true))"
    ).fetchall()
    connection.close()
    assert 0 < done.spans < len(spans)
    assert hot_count(db) == len(spans) - done.spans
    assert stored_spans(db, tmp_path / "archive") == spans
    assert oldest_hot is not None


@costly
def test_score_and_report_read_the_archive(tmp_path: Path) -> None:
    db, twin = _archived_and_twin(eval_runs_db(tmp_path / "hot.duckdb"), tmp_path)

    for path in (db, twin):
        result = runner.invoke(app, ["score", "--db", str(path), "--run", "20260101T000000-base"])
        assert result.exit_code in (0, 1), result.output
    assert _scores(db) == _scores(twin) != []
    outputs = [runner.invoke(app, ["report", "--db", str(p)]).output for p in (db, twin)]
    report = [re.sub(r"scoring [0-9a-f]{12}", "scoring ID", text) for text in outputs]
    assert report[0] == report[1]
    assert "20260101T000000-base" in report[0]


def _scores(db: Path) -> list[tuple[object, ...]]:
    connection = duckdb.connect(str(db), read_only=True)
    rows = connection.execute(
        "SELECT level, run_id, case_id, turn_id, metric, round(score, 9), passed, status "
        "FROM scores ORDER BY ALL"
    ).fetchall()
    connection.close()
    return rows


def test_a_database_keeps_its_archive_and_shard(tmp_path: Path) -> None:
    db = traffic_db(tmp_path / "hot.duckdb", seeds=TRAFFIC_SEEDS[:1])
    _archive(db, tmp_path / "archive", "--shard", "a")
    connection = connect(db)
    with pytest.raises(ArchiveError, match=r"archives to .* as shard 'a'"):
        set_location(connection, tmp_path / "elsewhere", "a")
    with pytest.raises(ArchiveError, match="shard 'b/c'"):
        set_location(connection, tmp_path / "archive", "b/c")
    connection.close()
    result = runner.invoke(app, ["archive", "--db", str(db), "--archive", str(tmp_path / "other")])
    assert result.exit_code == 2
    assert "start a new database" in result.output
