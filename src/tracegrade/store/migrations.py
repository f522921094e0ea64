"""Recorded schema migrations.

Tables change only through the numbered files in `queries/migrations/`. Each runs once
per database, in name order; the names applied are kept in `tracegrade_migrations`, so a
file made by an older tracegrade is brought forward on its next writable open. Never edit
a migration that has shipped: add a new file.
"""

from __future__ import annotations

import duckdb

from tracegrade._resources import sql_files

MIGRATIONS_TABLE = "tracegrade_migrations"


def applied(connection: duckdb.DuckDBPyConnection) -> set[str]:
    """Names of the migrations this database has, or an empty set for a new file."""
    exists = connection.execute(
        "SELECT 1 FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'",
        [MIGRATIONS_TABLE],
    ).fetchall()
    if not exists:
        return set()
    query = f"SELECT name FROM {MIGRATIONS_TABLE}"  # noqa: S608 — a constant table name
    return {row[0] for row in connection.execute(query).fetchall()}


def pending(connection: duckdb.DuckDBPyConnection) -> list[str]:
    done = applied(connection)
    return [path.stem for path in sql_files("migrations") if path.stem not in done]


def migrate(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply every migration this database lacks, each in its own transaction."""
    connection.execute(
        f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} "
        "(name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp)"
    )
    done = applied(connection)
    ran = []
    for path in sql_files("migrations"):
        if path.stem in done:
            continue
        connection.execute("BEGIN TRANSACTION")
        try:
            connection.execute(path.read_text())
            connection.execute(f"INSERT INTO {MIGRATIONS_TABLE} (name) VALUES (?)", [path.stem])  # noqa: S608 — a constant table name
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        ran.append(path.stem)
    return ran
