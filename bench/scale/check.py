"""The synthetic archive reads and scores as the same spans ingested normally (small size).

Builds a small synthetic archive (3 copies of 200 template turns), then:
- database A has no spans of its own and that archive as its archive: the real `spans`
  view reads the Parquet files (hot + archive);
- database B gets the same rows through tracegrade's span writer, as ingest writes them;
- `tracegrade score --since ...` (all turns) runs on both; the `turns` view and the turn
  scores must be equal row for row (floats to 1e-9), and every copy of a template turn must
  score as the others (only ids and times differ between copies).
Raises on any difference; prints what was compared.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

from measure import run_timed, say
from synth import build, meta

COPIES, TEMPLATE_TURNS = 3, 200
_TURN_SCORES = (
    "SELECT metric, turn_id, score, detail::VARCHAR FROM scores "
    "WHERE level = 'turn' ORDER BY metric, turn_id"
)


def check(template: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="tracegrade-scale-check-"))
    root = work / "archive"
    build(template, root, COPIES * TEMPLATE_TURNS, 1.0, tpl_turns=TEMPLATE_TURNS)
    archived, ingested = work / "archived.duckdb", work / "ingested.duckdb"
    _with_archive(archived, root)
    _ingest(ingested, root)
    since = f"{(time.time_ns() - meta(root)['anchor_ns']) // 10**9 + 2 * 86_400}s"
    for db in (archived, ingested):
        run_timed(["tracegrade", "score", "--db", str(db), "--since", since])
    turns_a, turns_b = (
        _rows(db, "SELECT * FROM turns ORDER BY turn_id") for db in (archived, ingested)
    )
    scores_a, scores_b = (_rows(db, _TURN_SCORES) for db in (archived, ingested))
    _same(turns_a, turns_b, "turns")
    _same(scores_a, scores_b, "turn scores")
    if len(turns_a) != COPIES * TEMPLATE_TURNS or not scores_a:
        raise AssertionError(f"{len(turns_a)} turns and {len(scores_a)} scores read back")
    _copies_agree(archived)
    say(
        f"check: {len(turns_a)} turns and {len(scores_a)} turn scores equal between the archive "
        f"and the same spans ingested; the {COPIES} copies of each template turn score alike"
    )


def _with_archive(db: Path, root: Path) -> None:
    from tracegrade.store import connect
    from tracegrade.store.archive_location import open_archive

    connection = connect(db)
    open_archive(connection, root, "s0")
    connection.close()


def _ingest(db: Path, root: Path) -> None:
    import duckdb

    from tracegrade.store.rows import SPAN_COLUMNS, SpanRow
    from tracegrade.store.writer import SpanWriter

    files = str(root / "shard=*" / "day=*" / "hour=*" / "*.parquet")
    select = ", ".join(SPAN_COLUMNS)
    table = duckdb.sql(f"SELECT {select} FROM read_parquet('{files}', hive_partitioning = false)")  # noqa: S608
    rows = [SpanRow(*row) for row in table.fetchall()]
    writer = SpanWriter.open(db)
    writer.write(rows)
    writer.close()


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    from tracegrade.store import connect

    connection = connect(db, read_only=True)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def _same(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]], what: str) -> None:
    if len(a) != len(b):
        raise AssertionError(f"{what}: {len(a)} rows from the archive, {len(b)} ingested")
    for left, right in zip(a, b, strict=True):
        if not all(_equal(x, y) for x, y in zip(left, right, strict=True)):
            raise AssertionError(f"{what} differ:\n archive  {left}\n ingested {right}")


def _equal(x: Any, y: Any) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return bool(x == y)


def _copies_agree(db: Path) -> None:
    """Each (template turn, metric) has one score whichever copy was scored."""
    rows = _rows(
        db,
        "SELECT s.metric, (t.session_id[9:])::BIGINT % " + str(TEMPLATE_TURNS) + " AS rank, "
        "count(DISTINCT round(s.score, 9)) AS scores, count(*) AS copies "
        "FROM scores s JOIN turns t USING (turn_id) WHERE s.level = 'turn' GROUP BY ALL",
    )
    differing = [r for r in rows if r[2] > 1 or r[3] != COPIES]
    if differing or not rows:
        raise AssertionError(f"copies of a template turn score differently: {differing[:5]}")
