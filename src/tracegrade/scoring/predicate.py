"""A user's SQL expression over a tool call, checked to be one read-only expression.

`tool_error_rate`'s `error_predicate` is text from a config file that becomes SQL: a
boolean expression over the call's `name`, `args` and `result` (JSON text), e.g.
`result->>'status' = 'failed'`. It passes the one guard for users' SQL
(`store.readonly.condition_tree`: one condition, read-only, no file access), and then a
narrower rule, as it runs inside every scoring: column references to those three names,
constants, operators, CASE, casts and scalar functions only; no subquery, aggregate,
window or table function. Then it is bound once against NULL values on a locked-down
in-memory database, so a misspelt function or column is a config error.
"""

from __future__ import annotations

from contextlib import closing
from typing import Any

import duckdb

from tracegrade.errors import ConfigError, DatabaseError
from tracegrade.store.readonly import condition_tree, locked_memory_connection, tree_nodes

COLUMNS = ("name", "args", "result")
_SOURCE = "_tg_call"
_ALLOWED = {"COLUMN_REF", "CONSTANT", "FUNCTION", "COMPARISON", "CONJUNCTION", "OPERATOR"}
_ALLOWED |= {"CASE", "CAST", "BETWEEN", "COLLATE", "TYPE"}
_STATEFUL = {"nextval", "currval", "setseed", "random", "uuid", "gen_random_uuid"}


def check_predicate(expression: str) -> str:
    """`expression` if it is one read-only boolean expression over COLUMNS, else ConfigError."""
    try:
        where = condition_tree(expression, _SOURCE)
    except DatabaseError as exc:
        raise _refused(expression, str(exc)) from None
    _walk(where, expression)
    _bind(expression)
    return expression


def _walk(root: dict[str, Any], expression: str) -> None:
    for node in tree_nodes(root):
        kind = node.get("class")
        if kind is not None:
            _check_node(node, kind, expression)


def _check_node(node: dict[str, Any], kind: str, expression: str) -> None:
    if kind not in _ALLOWED:
        raise _refused(expression, f"may not hold a {kind.lower().replace('_', ' ')}")
    if kind == "COLUMN_REF" and node.get("column_names") not in [[c] for c in COLUMNS]:
        names = ".".join(node.get("column_names", []))
        raise _refused(expression, f"may use only {', '.join(COLUMNS)}, not {names}")
    if kind == "FUNCTION":
        name = str(node.get("function_name", "")).lower()
        if name in _STATEFUL or (not node.get("is_operator") and not _is_scalar(name)):
            raise _refused(expression, f"may not call {node['function_name']}()")


def _is_scalar(name: str) -> bool:
    """A per-row function (scalar or macro), not an aggregate or table function."""
    with closing(locked_memory_connection()) as connection:
        kinds = connection.execute(
            "SELECT list(DISTINCT function_type) FROM duckdb_functions() WHERE function_name = ?",
            [name],
        ).fetchall()[0][0]
    return bool(kinds) and bool({"scalar", "macro"} & set(kinds))


def _bind(expression: str) -> None:
    nulls = ", ".join(f"NULL::VARCHAR AS {c}" for c in COLUMNS)
    # Checked above to be one expression over these columns; run on a locked-down database.
    sql = f"SELECT ({expression})::BOOLEAN FROM (SELECT {nulls}) {_SOURCE}"  # noqa: S608
    try:
        with closing(locked_memory_connection()) as connection:
            connection.execute(sql).fetchall()
    except duckdb.Error as exc:
        raise _refused(expression, str(exc).splitlines()[0]) from None


def _refused(expression: str, why: str) -> ConfigError:
    return ConfigError(f"error_predicate {expression!r} {why}")


def define_predicate(connection: duckdb.DuckDBPyConnection, expression: str | None) -> None:
    """Define `tg_error_predicate(name, args, result)` on this connection (NULL: none)."""
    body = f"({check_predicate(expression)})::BOOLEAN" if expression else "NULL::BOOLEAN"
    connection.execute(
        f"CREATE OR REPLACE TEMP MACRO tg_error_predicate({', '.join(COLUMNS)}) AS {body}"
    )
