"""Counts printed with their noun agree with it: "1 row", "1 record", "1 case"."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.archive import adk_traffic_db
from tests.support.cli import invoke
from tests.support.paths import DATA
from tests.support.tiers import costly

pytestmark = costly  # every test here: see tests.support.tiers.costly


def test_one_of_each_is_singular(tmp_path: Path) -> None:
    one_record = tmp_path / "one.jsonl"
    lines = (DATA / "traces" / "adk_v2_b.otlp.jsonl").read_text().splitlines(keepends=True)
    one_record.write_text(lines[0])
    db = tmp_path / "t.duckdb"

    ingested = invoke("ingest", str(one_record), "--db", str(db))
    assert ingested.exit_code == 0, ingested.output
    assert re.fullmatch(r".*one\.jsonl: 1 record, \d+ spans stored, 0 already present\n",
                        ingested.stdout)  # fmt: skip

    table = invoke("sql", "SELECT 1 AS n", "--db", str(db))
    assert table.stdout.rstrip().endswith("\n1 row"), table.stdout
    two = invoke("sql", "SELECT 1 AS n UNION ALL SELECT 2", "--db", str(db))
    assert two.stdout.rstrip().endswith("\n2 rows"), two.stdout


def test_an_export_of_one_session_says_one_case(tmp_path: Path) -> None:
    db = adk_traffic_db(tmp_path / "traffic.duckdb")
    out = tmp_path / "one.evalset.json"

    done = invoke("export-evalset", str(out), "--where", "true", "--limit", "1", "--db", str(db))

    assert done.exit_code == 0, done.output
    assert re.fullmatch(rf"{re.escape(str(out))}: 1 case, \d+ turns?\n", done.stdout)
