"""An eval run whose spans were routed to two shards by trace id, as the Collector's
loadbalancing exporter routes them: `tracegrade score --db A --db B` scores it as the one
database holding the whole run does; each shard alone says where the rest may be."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.archive import RUNS_FIXTURE, traffic_db
from tests.support.cli import invoke, one_line_error
from tests.support.new_database import new_database
from tests.support.tiers import costly
from tracegrade.exit_codes import ExitCode
from tracegrade.ingest.files import ingest_file
from tracegrade.store import SpanWriter
from tracegrade.store.archive import archive_database

pytestmark = costly  # every test here: see tests.support.tiers.costly

BASE_RUN = "20260101T000000-base"
_SCORES = (
    "SELECT level, run_id, case_id, turn_id, metric, score, threshold, passed, status, "
    "detail::VARCHAR FROM scores ORDER BY ALL"
)


def _shard_file(path: Path, shard: int) -> Path:
    """The fixture's OTLP records with only the spans routed to `shard` of two (by trace id)."""
    records = []
    for line in RUNS_FIXTURE.read_text().splitlines():
        request = json.loads(line)
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                spans = scope["spans"]
                scope["spans"] = [s for s in spans if int(s["traceId"], 16) % 2 == shard]
        records.append(json.dumps(request))
    path.write_text("\n".join(records) + "\n")
    return path


def _database(path: Path, otlp: Path) -> Path:
    writer = SpanWriter.open(new_database(path))
    assert ingest_file(otlp, writer).stored > 0
    writer.close()
    return path


@pytest.fixture
def shards(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The whole run in one database, and its spans split over two shards' databases."""
    whole = _database(tmp_path / "whole.duckdb", RUNS_FIXTURE)
    parts = [_shard_file(tmp_path / f"part{n}.otlp.jsonl", n) for n in (0, 1)]
    first, second = (_database(tmp_path / f"shard{n}.duckdb", parts[n]) for n in (0, 1))
    return whole, first, second


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    connection = duckdb.connect(str(db), read_only=True)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def _assert_same(mine: list[tuple[Any, ...]], theirs: list[tuple[Any, ...]]) -> None:
    """Equal, but for the last bits of means: the spans are read in another order, and
    DuckDB adds floats in the order it reads them (measured: 6.45e-05 and 6.450000000000001e-05)."""
    assert len(mine) == len(theirs) > 0
    for row, other in zip(mine, theirs, strict=True):
        for a, b in zip(row, other, strict=True):
            if isinstance(a, float) and isinstance(b, float):
                assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (row, other)
            else:
                assert a == b, (row, other)


def _report(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text())
    for key in ("scoring_id", "scored_at"):
        report["scoring"].pop(key)
    return report


def _summary(stdout: str) -> str:
    """The terminal summary but for the scoring's id."""
    return re.sub(r"scoring [0-9a-f]{12}", "scoring <id>", stdout)


def _score(tmp_path: Path, name: str, *dbs: Path) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / f"{name}.json"
    result = invoke("score", "--run", BASE_RUN, *(f"--db={db}" for db in dbs), "--json", str(out))
    return result, _report(out)


def test_two_shards_score_as_the_whole_run(tmp_path: Path, shards: tuple[Path, ...]) -> None:
    whole, first, second = shards
    alone, whole_report = _score(tmp_path, "whole", whole)
    together, shards_report = _score(tmp_path, "shards", first, second)

    assert together.exit_code == alone.exit_code == ExitCode.GATE_FAILED, together.output
    assert _summary(together.stdout) == _summary(alone.stdout)
    assert shards_report == whole_report
    assert len(whole_report["cases"]) == 6
    _assert_same(_rows(first, _SCORES), _rows(whole, _SCORES))
    assert _rows(second, "SELECT count(*) FROM scorings") == [(0,)]  # read, not written


def test_each_shard_alone_says_where_the_rest_may_be(
    tmp_path: Path, shards: tuple[Path, ...]
) -> None:
    _, without_run_trace, with_run_trace = shards
    incomplete = invoke("score", "--run", BASE_RUN, "--db", str(with_run_trace))
    no_run = invoke("score", "--run", BASE_RUN, "--db", str(without_run_trace))

    assert incomplete.exit_code == ExitCode.INCOMPLETE, incomplete.output
    assert (
        "Spans routed to several shards? The others may hold these turns: score them "
        f"together, `tracegrade score --run {BASE_RUN} --db SHARD1 --db SHARD2`"
    ) in " ".join(incomplete.stdout.split())
    assert no_run.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(no_run.stderr) == (
        f"tracegrade: no eval run '{BASE_RUN}' is stored (see `tracegrade runs`); where "
        "spans are routed to several shards, its own trace may be on another: give each "
        "shard's --db to score them together"
    )


def test_a_shards_archive_is_read_with_the_others_hot_spans(
    tmp_path: Path, shards: tuple[Path, ...]
) -> None:
    """The second shard's spans all archived (the root every shard files under): read with
    the first's hot table through the second's archive location."""
    whole, first, second = shards
    archive_database(second, tmp_path / "archive", shard="b", retain_days=0)
    assert _rows(second, "SELECT count(*) FROM main.spans") == [(0,)]

    alone, whole_report = _score(tmp_path, "whole", whole)
    together, shards_report = _score(tmp_path, "shards", first, second)

    assert together.exit_code == alone.exit_code, together.output
    assert shards_report == whole_report
    _assert_same(_rows(first, _SCORES), _rows(whole, _SCORES))


def test_a_shard_given_twice_is_refused(tmp_path: Path, shards: tuple[Path, ...]) -> None:
    _, first, second = shards
    again = tmp_path / "again.duckdb"
    again.symlink_to(second)
    dbs = (first, second, again)
    result = invoke("score", "--run", BASE_RUN, *(f"--db={db}" for db in dbs))

    assert result.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(result.stderr) == (
        f"tracegrade: --db {again}: given twice (each shard's database once)"
    )
    assert _rows(first, "SELECT count(*) FROM scorings") == [(0,)]


def test_traffic_of_two_shards_is_scored_together(tmp_path: Path) -> None:
    first = traffic_db(tmp_path / "shard0.duckdb", seeds=range(1, 4))  # 9 turns
    second = traffic_db(tmp_path / "shard1.duckdb", seeds=range(4, 6))  # 6 turns
    result = invoke("score", "--sample", "1", f"--db={first}", f"--db={second}")

    assert result.exit_code == ExitCode.OK, result.output
    assert "traffic sampled at 100% of trace ids · 15 turns scored" in result.stdout
    ((turns,),) = _rows(first, "SELECT turns FROM scorings")
    assert turns == 15
