"""A synthetic archive of N ADK-shaped turns, written directly in the archive's layout.

Made from the template archive (`archiving.py`: what `tracegrade archive` wrote for 100k
turns made through the OTel SDK), copied as often as N needs, vectorised in DuckDB: copy c
of a template trace gets new trace and span ids (md5 of c and the old id: uniform, so
`--sample` picks ~its share), its own invocation, call and session ids in the attributes
(the template's `-00001234-` and `"session-1234"` become the turn's global index), and
times moved so that the N turns follow each other evenly over `days` days ending at the
build day's midnight UTC (`anchor_ns`): the last 24 hours are exactly one day=D partition.
Each output hour is one zstd file sorted by trace id with the archiver's row groups, at
shard=s0/day=D/hour=H/, with the archived columns in the archiver's order and types: what
the views, `tracegrade score` and Spark read.

The result is cached under $TMPDIR/tracegrade-bench/scale/ (keyed by the generating SQL,
N and days); meta.json, written last, holds the anchor and the counts.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

from measure import CACHE, say, timed, tree_bytes

from tracegrade.store.archive import ARCHIVED_COLUMNS

_NS_PER_DAY = 86_400 * 10**9
_ROW_GROUP = 122_880  # the archiver's (tracegrade.store.archive)
_TEMPLATE_SQL = """
CREATE OR REPLACE TEMP TABLE tpl AS
SELECT * FROM read_parquet('{files}', hive_partitioning = false);
CREATE OR REPLACE TEMP TABLE ranks AS
SELECT trace_id, first_ns, n, row_number() OVER (ORDER BY first_ns, trace_id) - 1 AS rank
FROM (
    SELECT trace_id, min(start_ns) AS first_ns,
           max(regexp_extract(attributes::VARCHAR,
               '"gen_ai.conversation.id":"session-([0-9]+)"', 1))::BIGINT AS n
    FROM tpl GROUP BY trace_id
);
"""
# One copy of the template's first `tpl_turns` traces as turns g = copy * tpl_turns + rank.
_COPY_SQL = """
CREATE OR REPLACE TEMP TABLE gen AS
WITH t AS (
    SELECT trace_id, first_ns, n, {copy} * {turns} + rank AS g,
           {base} + ({copy} * {turns} + rank) * {spacing} AS new_first
    FROM ranks WHERE rank < {turns} AND {copy} * {turns} + rank < {total}
)
SELECT
    md5('{copy}:' || s.trace_id) AS trace_id,
    substr(md5('{copy}:' || s.span_id), 1, 16) AS span_id,
    CASE WHEN s.parent_span_id IS NOT NULL
         THEN substr(md5('{copy}:' || s.parent_span_id), 1, 16) END AS parent_span_id,
    s.name, s.kind,
    s.start_ns + (t.new_first - t.first_ns) AS start_ns,
    s.end_ns + (t.new_first - t.first_ns) AS end_ns,
    s.status_code, s.status_message, s.service_name, s.scope_name, s.scope_version,
    replace(replace(s.attributes::VARCHAR,
        '-' || printf('%08d', t.n) || '-', '-' || printf('%08d', t.g) || '-'),
        '"session-' || t.n || '"', '"session-' || t.g || '"')::JSON AS attributes,
    s.resource, s.events, s.links, s.source,
    s.ingested_at + to_microseconds((t.new_first - t.first_ns) // 1000) AS ingested_at,
    CAST(make_timestamp(t.new_first // 1000) AS DATE) AS day,
    hour(make_timestamp(t.new_first // 1000))::INTEGER AS hour
FROM tpl AS s JOIN t USING (trace_id);
"""


def cached_archive(template: Path, turns: int, days: float) -> Path:
    """The synthetic archive of `turns` turns over `days` days (built once)."""
    key = hashlib.sha256((_TEMPLATE_SQL + _COPY_SQL).encode()).hexdigest()[:10]
    root = CACHE / "scale" / f"archive-{turns}-{days:g}d-{key}"
    if not (root / "meta.json").exists():
        building = root.with_name(root.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        build(template, building, turns, days)
        shutil.rmtree(root, ignore_errors=True)
        building.rename(root)
    return root


def meta(root: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((root / "meta.json").read_text())
    return loaded


def build(
    template: Path, root: Path, turns: int, days: float, tpl_turns: int | None = None
) -> dict[str, Any]:
    """Write the archive of `turns` turns into `root` from the first `tpl_turns` traces of
    the template (all by default); its meta.json describes it."""
    import duckdb

    connection = duckdb.connect()
    files = str(template / "shard=*" / "day=*" / "hour=*" / "*.parquet")
    connection.execute(_TEMPLATE_SQL.format(files=files))
    ((available,),) = connection.execute("SELECT count(*) FROM ranks").fetchall()
    per_copy = min(tpl_turns or available, available)
    anchor = time.time_ns() // _NS_PER_DAY * _NS_PER_DAY  # midnight: the last day is day D
    spacing = int(days * _NS_PER_DAY) // turns
    shape = {"turns": per_copy, "total": turns, "base": anchor - int(days * _NS_PER_DAY)}
    spans = 0
    with timed() as timing:
        for copy in range(-(-turns // per_copy)):
            connection.execute(_COPY_SQL.format(copy=copy, spacing=spacing, **shape))
            spans += _write_hours(connection, root, f"synth-{copy:04d}")
            say(f"copy {copy}: {spans:,} spans so far")
    size = tree_bytes(root)
    facts = {
        "turns": turns,
        "spans": spans,
        "days": days,
        "anchor_ns": anchor,
        "template_turns": per_copy,
        "bytes": size,
        "bytes_per_span": round(size / spans, 1),
        "build": timing.text(),
    }
    (root / "meta.json").write_text(json.dumps(facts, indent=1))
    say(f"built {root}: {turns:,} turns, {spans:,} spans, {size / 1e9:.2f} GB in {timing.text()}")
    return facts


def _write_hours(connection: Any, root: Path, name: str) -> int:
    columns = ", ".join(ARCHIVED_COLUMNS)
    hours = connection.execute("SELECT DISTINCT day, hour FROM gen ORDER BY ALL").fetchall()
    for day, hour in hours:
        folder = root / "shard=s0" / f"day={day}" / f"hour={hour}"
        folder.mkdir(parents=True, exist_ok=True)
        connection.execute(
            f"COPY (SELECT {columns} FROM gen WHERE day = DATE '{day}' AND hour = {hour} "  # noqa: S608 — our values
            f"ORDER BY trace_id, start_ns) TO '{folder / name}.parquet' "
            f"(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {_ROW_GROUP})"
        )
    ((count,),) = connection.execute("SELECT count(*) FROM gen").fetchall()
    return int(count)
