"""The Python functions the views call: checking tool-call arguments against their schema,
and tool arguments in canonical form (`tg_canonical_json`, store.canonical), which the turn
facts the writer keeps (store.turn_facts) and scoring's inputs share.

`tool_calls.valid` and `validity_errors` come from the macro `tg_tool_call_check`. The file
holds a stand-in for it (queries/macros/30_tool_calls.sql) that answers "not checked", so
the views keep working in any DuckDB client; `register_view_functions` registers the JSON
Schema check (`tool_schema.check_call`) and points the macro at it on this connection.
It runs on every connection tracegrade opens (`connect`); a cursor is a connection of its
own and needs the call too.

The function is module-level on purpose: see scoring/functions.py (duckdb-python#530).
"""

from __future__ import annotations

from typing import Any

import duckdb
from duckdb.func import SPECIAL
from duckdb.sqltypes import BOOLEAN, VARCHAR, DuckDBPyType

from tracegrade.store.canonical import canonical_json

CHECK_FUNCTION = "tg_json_schema_check"
CANONICAL_FUNCTION = "tg_canonical_json"


def check_type(connection: duckdb.DuckDBPyConnection) -> DuckDBPyType:
    """What the check returns: `valid` (NULL when it cannot tell) and one row per problem.
    Made by the connection: `duckdb.struct_type` opens DuckDB's default connection, and
    one opened in a process that forks crashed the child at exit (SIGSEGV,
    tests/capture/test_fork.py)."""
    fields = {"argument": VARCHAR, "kind": VARCHAR, "message": VARCHAR}
    problem = connection.struct_type(fields)
    return connection.struct_type({"valid": BOOLEAN, "errors": connection.list_type(problem)})


def register_view_functions(connection: duckdb.DuckDBPyConnection) -> None:
    """Register the check (once per database) and use it for `tg_tool_call_check` here."""
    from tracegrade.store.tool_schema import check_call  # jsonschema-rs: not for capture alone

    registered = {
        row[0]
        for row in connection.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name IN (?, ?)",
            [CHECK_FUNCTION, CANONICAL_FUNCTION],
        ).fetchall()
    }
    if CANONICAL_FUNCTION not in registered:
        connection.create_function(
            CANONICAL_FUNCTION,
            canonical_json,
            list[Any]([VARCHAR]),
            VARCHAR,
            null_handling=SPECIAL,
            side_effects=False,
        )
    if CHECK_FUNCTION not in registered:
        connection.create_function(
            CHECK_FUNCTION,
            check_call,
            list[Any]([BOOLEAN, VARCHAR, VARCHAR]),
            check_type(connection),
            null_handling=SPECIAL,
            side_effects=False,
        )
    connection.execute(
        "CREATE OR REPLACE TEMP MACRO tg_tool_call_check(offered, schema, args) AS "
        f"{CHECK_FUNCTION}(offered, schema, args)"
    )
