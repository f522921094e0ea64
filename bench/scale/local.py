"""Local DuckDB over the synthetic archive: `tracegrade sql` and `tracegrade score` on a
database with no spans of its own whose archive is the synthetic one, each command run to
its exit (stdout to a pipe) with wall and CPU seconds and the load."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from measure import CACHE, run_timed, say
from synth import meta

_NS_PER_DAY = 86_400 * 10**9


def hot_database(root: Path) -> Path:
    """A new database whose hot table is empty and whose archive is `root`."""
    from tracegrade.store import connect
    from tracegrade.store.archive_location import open_archive

    db = CACHE / "scale" / f"hot-{root.name}.duckdb"
    db.unlink(missing_ok=True)
    connection = connect(db)
    open_archive(connection, root, "s0")
    connection.close()
    return db


def read_back(db: Path, root: Path) -> dict[str, Any]:
    """Every span and trace of the archive through the `spans` view (hot + archive)."""
    sql = "SELECT count(*) AS spans, count(DISTINCT trace_id) AS traces FROM spans"
    timing, out = run_timed(["tracegrade", "sql", "--db", str(db), "--format", "json", sql])
    (counts,) = json.loads(out)
    facts = meta(root)
    if counts["spans"] != facts["spans"] or counts["traces"] != facts["turns"]:
        raise AssertionError(f"read back {counts}, the archive holds {facts}")
    say(f"read back {counts['spans']:,} spans, {counts['traces']:,} traces in {timing.text()}")
    return {
        **counts,
        "wall_s": round(timing.wall_s, 1),
        "cpu_s": round(timing.cpu_s, 1),
        "load": timing.load,
    }


def last_day_since(root: Path) -> str:
    """`--since` reaching back exactly to the start of the archive's last day."""
    start = meta(root)["anchor_ns"] - _NS_PER_DAY
    return f"{(time.time_ns() - start) // 10**9}s"


def score(db: Path, label: str, *options: str) -> dict[str, Any]:
    timing, _ = run_timed(["tracegrade", "score", "--db", str(db), *options])
    turns = _last_scoring_turns(db)
    figures = {
        "what": label,
        "turns": turns,
        "wall_s": round(timing.wall_s, 1),
        "cpu_s": round(timing.cpu_s, 1),
        "turns_per_cpu_s": round(turns / timing.cpu_s) if timing.cpu_s else None,
        "load": timing.load,
    }
    say(f"tracegrade score {label}: {turns:,} turns in {timing.text()}")
    return figures


def _last_scoring_turns(db: Path) -> int:
    from tracegrade.store import connect

    connection = connect(db, read_only=True)
    try:
        ((turns,),) = connection.execute(
            "SELECT turns FROM scorings ORDER BY scored_at DESC LIMIT 1"
        ).fetchall()
        return int(turns)
    finally:
        connection.close()
