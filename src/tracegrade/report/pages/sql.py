"""The pages' SQL: one SELECT per file in `queries/report/`, read through a `Reader`, so a
page reads the DuckDB file or a running `tracegrade serve` alike."""

from __future__ import annotations

from typing import Any

from tracegrade.report.queries import Row, report_sql
from tracegrade.store.reader import Reader, records


def rows(reader: Reader, name: str, *params: Any) -> list[Row]:
    """The rows of `queries/report/<name>.sql` with these parameters, as dicts."""
    return records(reader, report_sql(name), list(params))
