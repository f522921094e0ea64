"""Telling a read-only query from one that writes, before running it.

Only a single SELECT passes: not EXPLAIN (EXPLAIN ANALYZE runs its statement), not
several statements, nothing that writes, attaches or configures. `tracegrade sql` and the
server's SQL endpoint both check here.
"""

from __future__ import annotations

import duckdb

from tracegrade.errors import DatabaseError


class QueryRefused(DatabaseError):
    """The query is not one SELECT."""


class QueryUnparsable(DatabaseError):
    """DuckDB cannot parse the query."""


def read_only_statement(sql: str) -> duckdb.Statement:
    """The one SELECT statement in `sql`, or why it is refused."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryUnparsable(f"cannot parse the query: {exc}") from None
    if len(statements) != 1:
        raise QueryRefused(f"send exactly one statement, not {len(statements)}")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise QueryRefused(f"only SELECT queries are allowed (read-only), not {kind.name}")
    return statements[0]
