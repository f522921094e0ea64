"""bench/score's stored run as production traffic, for `run.py --traffic-sample`.

Apart from stored.py, whose text keys the cached run (a change there rebuilds it: minutes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from stored import cached_database

HOURS = 48


def cached_traffic(n: int, cache: Path) -> Path:
    """The stored run's spans as traffic: tracegrade's eval spans deleted (each turn's ADK
    spans then start their own trace, with no run id), each trace moved back by up to HOURS
    (by a hash of its id) from when it was written. Made once from the cached run."""
    import duckdb

    source = cached_database(n, cache)
    path = source.with_name(f"{source.stem}-traffic.duckdb")
    if not path.exists():
        building = path.with_suffix(".building")
        shutil.copyfile(source, building)
        connection = duckdb.connect(str(building))
        connection.execute("DELETE FROM spans WHERE scope_name = 'tracegrade'")
        connection.execute(
            "UPDATE spans SET start_ns = start_ns - back, end_ns = end_ns - back FROM ("  # noqa: S608 — a constant
            f"SELECT DISTINCT trace_id, (hash(trace_id) % {HOURS * 3600})::BIGINT "
            "* 1000000000 AS back FROM spans) moved WHERE spans.trace_id = moved.trace_id"
        )
        connection.execute("CHECKPOINT")
        connection.close()
        shutil.move(building, path)
    return path
