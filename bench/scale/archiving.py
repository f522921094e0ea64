"""Archiving figure and the template of the synthetic archive.

`tracegrade archive --retain-days 0` moves a copy of bench/score's cached traffic database
(100k ADK-shaped turns, ~1.04M spans made through the OTel SDK and tracegrade's exporter,
content captured, answers of 1-2 KB, spread over 48 hours) into a fresh Parquet archive:
spans/s (the whole command, including the delete from the hot table) and bytes/span. The
archive it writes is kept as the template every synthetic archive is made from, so the
synthetic spans are the real archiver's output with ids and times varied.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from measure import CACHE, run_timed, say, tree_bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "score"))  # bench/score

TEMPLATE_TURNS = 100_000


def template_archive(turns: int = TEMPLATE_TURNS) -> Path:
    """The archive `tracegrade archive` made of the cached traffic (made once, measured)."""
    root = CACHE / "scale" / f"template-{turns}"
    if not (root / "meta.json").exists():
        measure_archiving(turns, root)
    return root


def measure_archiving(turns: int, root: Path) -> dict[str, Any]:
    """Archive a fresh copy of the traffic database into `root`; the figures, also saved
    as root/meta.json."""
    from tracegrade.store import connect

    source = _traffic_database(turns)
    hot = root.with_name(root.name + "-hot.duckdb")
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, hot)
    _renumbered_migration(hot)
    connect(hot).close()  # migrated as `tracegrade db upgrade` would, untimed
    spans = _count(hot)
    hot_size = hot.stat().st_size / spans
    say(f"archiving {spans:,} spans of {turns:,} turns ({hot_size:,.0f} B/span hot)")
    archived = ["tracegrade", "archive", "--db", str(hot), "--archive", str(root)]
    timing, out = run_timed([*archived, "--retain-days", "0", "--shard", "s0"])
    size = tree_bytes(root, "shard=*/**/*.parquet")
    figures = {
        "turns": turns,
        "spans": spans,
        "files": len(list(root.glob("shard=*/**/*.parquet"))),
        "hot_bytes_per_span": round(source.stat().st_size / spans),
        "archive_bytes": size,
        "bytes_per_span": round(size / spans, 1),
        "spans_per_s_wall": round(spans / timing.wall_s),
        "spans_per_s_cpu": round(spans / timing.cpu_s),
        "wall_s": round(timing.wall_s, 1),
        "cpu_s": round(timing.cpu_s, 1),
        "load": timing.load,
        "output": out.strip(),
    }
    left = _count(hot)
    if left:
        raise RuntimeError(f"{left} spans left in the hot table after archiving everything")
    hot.unlink()
    (root / "meta.json").write_text(json.dumps(figures, indent=1))
    say(
        f"archived {spans:,} spans in {timing.text()}: {figures['spans_per_s_wall']:,} spans/s "
        f"wall ({figures['spans_per_s_cpu']:,}/s of CPU), {figures['bytes_per_span']} B/span"
    )
    return figures


def _traffic_database(turns: int) -> Path:
    """bench/score's cached traffic file, opened read-only: other benches share it, and
    `cached_traffic` would migrate the shared source in place. Built when missing."""
    import hashlib

    score = Path(__file__).resolve().parents[1] / "score"
    text = b"".join(
        p.read_bytes()
        for p in (score / "stored.py", score.parent / "adk_spans.py", score / "synthetic.py")
    )
    path = CACHE / f"score-{turns}-{hashlib.sha256(text).hexdigest()[:12]}-traffic.duckdb"
    if path.exists():
        return path
    from traffic import cached_traffic

    return Path(cached_traffic(turns, CACHE))


def _renumbered_migration(path: Path) -> None:
    """Files cached by an earlier tracegrade record the attrs migration as 003_span_attrs
    (since renumbered 004): record it under its current name so it is not applied twice."""
    import duckdb

    connection = duckdb.connect(str(path))
    try:
        connection.execute(
            "UPDATE tracegrade_migrations SET name = '004_span_attrs' WHERE name = '003_span_attrs'"
        )
    finally:
        connection.close()


def _count(path: Path) -> int:
    import duckdb

    connection = duckdb.connect(str(path), read_only=True)
    try:
        ((count,),) = connection.execute("SELECT count(*) FROM main.spans").fetchall()
        return int(count)
    finally:
        connection.close()


if __name__ == "__main__":
    print(json.dumps(json.loads((template_archive() / "meta.json").read_text()), indent=1))
