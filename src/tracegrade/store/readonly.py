"""Telling a read-only query from one that writes, before running it."""

from __future__ import annotations

import duckdb

from tracegrade.errors import DatabaseError

READ_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})


def check_read_only(sql: str) -> None:
    """Exactly one SELECT (or EXPLAIN); anything that could change the database is refused."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise DatabaseError(f"cannot parse the query: {exc}") from None
    if len(statements) != 1:
        raise DatabaseError(f"give exactly one statement, not {len(statements)}")
    kind = statements[0].type
    if kind not in READ_STATEMENTS:
        raise DatabaseError(
            f"only read-only queries (SELECT) are allowed; this is a {kind.name} statement"
        )
