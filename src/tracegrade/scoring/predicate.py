"""A user's SQL expression over a tool call, checked to be one read-only expression.

`tool_error_rate`'s `error_predicate` is text from a config file that becomes SQL: a
boolean expression over the call's `name`, `args` and `result` (JSON text), e.g.
`result->>'status' = 'failed'`. Before it reaches a query it must parse as exactly that:
one expression (checked on DuckDB's own parse tree, `json_serialize_sql`) made of column
references to those three names, constants, operators, CASE, casts and scalar functions;
no subquery, no aggregate or window, no table function, nothing that changes state. Then it
is bound once against NULL values, so a misspelt function or column is a config error.

lead: the serve branch builds the shared read-only guard in store/readonly.py; switch this
to it at merge.
"""

from __future__ import annotations

import json
from typing import Any

import duckdb

from tracegrade.errors import ConfigError

COLUMNS = ("name", "args", "result")
_SOURCE = "_tg_call"
_ALLOWED = {"COLUMN_REF", "CONSTANT", "FUNCTION", "COMPARISON", "CONJUNCTION", "OPERATOR"}
_ALLOWED |= {"CASE", "CAST", "BETWEEN", "COLLATE", "TYPE"}
_STATEFUL = {"nextval", "currval", "setseed", "random", "uuid", "gen_random_uuid"}


def check_predicate(expression: str) -> str:
    """`expression` if it is one read-only boolean expression over COLUMNS, else ConfigError."""
    tree = _parse(expression)
    node = tree["statements"][0]["node"]
    _require_plain_select(node, expression)
    _walk(node["select_list"][0], expression)
    _bind(expression)
    return expression


def _parse(expression: str) -> dict[str, Any]:
    sql = f"SELECT ({expression}) FROM {_SOURCE}"
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise _refused(expression, f"does not parse: {exc}") from None
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        raise _refused(expression, "must be one expression")
    tree: dict[str, Any] = json.loads(
        duckdb.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0]
    )
    if tree.get("error") or len(tree["statements"]) != 1:
        raise _refused(expression, str(tree.get("error_message", "must be one expression")))
    return tree


def _require_plain_select(node: dict[str, Any], expression: str) -> None:
    source = node.get("from_table") or {}
    plain = (
        node.get("type") == "SELECT_NODE"
        and not node.get("modifiers")
        and not node.get("cte_map", {}).get("map")
        and len(node.get("select_list", [])) == 1
        and source.get("type") == "BASE_TABLE"
        and source.get("table_name") == _SOURCE
        and not any(node.get(k) for k in ("where_clause", "having", "qualify", "sample"))
        and not node.get("group_expressions")
    )
    if not plain:
        raise _refused(expression, "must be one expression")


def _walk(node: Any, expression: str) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, expression)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("class")
    if kind is not None:
        _check_node(node, kind, expression)
    for value in node.values():
        _walk(value, expression)


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
    kinds = duckdb.execute(
        "SELECT list(DISTINCT function_type) FROM duckdb_functions() WHERE function_name = ?",
        [name],
    ).fetchall()[0][0]
    return bool(kinds) and bool({"scalar", "macro"} & set(kinds))


def _bind(expression: str) -> None:
    nulls = ", ".join(f"NULL::VARCHAR AS {c}" for c in COLUMNS)
    sql = f"SELECT ({expression})::BOOLEAN FROM (SELECT {nulls}) {_SOURCE}"
    try:
        duckdb.connect().execute(sql).fetchall()
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
