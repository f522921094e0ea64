"""What other engines see in the archive: only committed files (a staged one is in no
glob), the same column types (JSON as strings), the schema version in every file and in
`_schema.json`; older (version 1) files read as before; object-store URLs refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from tests.support.archive import stored_spans, traffic_db
from tracegrade.cli.main import app
from tracegrade.errors import ArchiveError
from tracegrade.store import connect
from tracegrade.store.archive_files import STAGED_SUFFIX, STAGING_DIR
from tracegrade.store.archive_location import FILES_GLOB, set_location

runner = CliRunner()
JSON_COLUMNS = ("attributes", "resource", "events", "links")


def _archived(tmp_path: Path) -> tuple[Path, Path, int]:
    db, root = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 4)), tmp_path / "archive"
    spans = len(stored_spans(db))
    args = ["archive", "--db", str(db), "--archive", str(root), "--retain-days", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return db, root, spans


def test_a_staged_file_is_in_no_engines_listing(tmp_path: Path) -> None:
    _, root, spans = _archived(tmp_path)
    staged = root / STAGING_DIR / "s0" / f"half-written{STAGED_SUFFIX}"
    staged.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(next(root.glob(FILES_GLOB)), staged)  # a whole file's spans, not committed

    connection = duckdb.connect()
    ((duck,),) = connection.execute(
        f"SELECT count(*) FROM read_parquet('{root}/**/*.parquet', hive_partitioning = true)"  # noqa: S608 — a test path
    ).fetchall()
    connection.close()
    arrow = ds.dataset(root, format="parquet", partitioning="hive").count_rows()
    assert duck == arrow == spans
    assert (root / "_schema.json").exists()  # skipped as well
    assert (root / "_shards").is_dir()


def test_every_engine_reads_the_json_columns_as_strings(tmp_path: Path) -> None:
    _, root, _ = _archived(tmp_path)
    file = next(root.glob(FILES_GLOB))

    assert pq.ParquetFile(file).metadata.metadata == {b"tracegrade.archive_schema": b"2"}
    schema = pq.read_schema(file)  # not pyarrow's arrow.json extension type
    assert all(schema.field(c).type == pa.string() for c in JSON_COLUMNS)
    connection = duckdb.connect()
    types = dict(
        connection.execute(
            f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet("  # noqa: S608 — a test path
            f"'{root}/**/*.parquet', hive_partitioning = true))"
        ).fetchall()
    )
    connection.close()
    assert all(types[c] == "VARCHAR" for c in JSON_COLUMNS)
    assert (types["day"], types["hour"]) == ("DATE", "BIGINT")


def test_schema_file_gives_the_partition_types_pyarrow_cannot_infer(tmp_path: Path) -> None:
    _, root, spans = _archived(tmp_path)
    stated = json.loads((root / "_schema.json").read_text())
    assert stated["archive_schema"] == 2
    assert list(stated["columns"]) == pq.read_schema(next(root.glob(FILES_GLOB))).names
    assert ds.dataset(root, partitioning="hive").schema.field("day").type == pa.string()

    partitioning = ds.partitioning(
        pa.schema([("shard", pa.string()), ("day", pa.date32()), ("hour", pa.int32())]),
        flavor="hive",
    )
    table = ds.dataset(root, format="parquet", partitioning=partitioning).to_table()
    assert table.schema.field("day").type == pa.date32()
    assert table.num_rows == spans


def test_version_1_files_read_as_version_2_files_do(tmp_path: Path) -> None:
    """A file an older tracegrade wrote (JSON logical type, no version) beside new ones."""
    db, root, _ = _archived(tmp_path)
    before = _all_spans(db)
    file = next(root.glob(FILES_GLOB))
    as_json = ", ".join(f"{c}::JSON AS {c}" for c in JSON_COLUMNS)
    old = tmp_path / "v1.parquet"
    connection = duckdb.connect()
    connection.execute(
        f"COPY (SELECT * REPLACE ({as_json}) FROM read_parquet('{file}', hive_partitioning = "  # noqa: S608 — a test path
        f"false)) TO '{old}' (FORMAT parquet, COMPRESSION zstd)"
    )
    connection.close()
    assert pq.read_schema(old).field("attributes").type != pa.string()
    shutil.move(old, file)
    assert _all_spans(db) == before


def _all_spans(db: Path) -> list[tuple[object, ...]]:
    connection = connect(db, read_only=True)
    rows = connection.execute("SELECT * EXCLUDE (attrs), attrs::VARCHAR FROM spans ORDER BY ALL")
    result = rows.fetchall()
    connection.close()
    return result


@pytest.mark.parametrize(
    "url", ["s3://bucket/spans", "gs://bucket/spans", "az://c/spans", "https://h/spans"]
)
def test_object_store_urls_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.chdir(tmp_path)
    db = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 2))
    scheme = url.split(":")[0]
    expected = f"archive {url}: object stores ({scheme}://) are not supported yet; give a local"
    for args in (
        ["archive", "--db", str(db), "--archive", url],
        ["serve", "--db", str(tmp_path / "served.duckdb"), "--port", "0", "--archive", url],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.output.count("\n") == 1
        assert expected in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hot.duckdb"]  # no ./s3:/ folder
    connection = connect(db)
    with pytest.raises(ArchiveError, match="not supported yet"):
        set_location(connection, url, "s0")
    connection.close()
