"""The Python functions the views call: checking tool-call arguments against their schema,
and tool arguments in canonical form (`tg_canonical_json`, store.canonical), which the turn
facts the writer keeps (store.turn_facts) and scoring's inputs share.

`tool_calls.valid` and `validity_errors` come from the macro `tg_tool_call_check`. The file
holds a stand-in for it (queries/macros/30_tool_calls.sql) that answers "not checked", so
the views keep working in any DuckDB client; `register_view_functions` registers the JSON
Schema check (`tool_schema.check_call`) and points the macro at it on this connection.
It runs on every connection tracegrade opens (`connect`); a cursor is a connection of its
own and needs the call too. A read command's (`Store.reader()`) gets it instead from its
`LocalReader`, before the first query whose answer may depend on the functions
(`needs_view_functions`, from the query's syntax tree): registering costs a read
command's start ~0.1-0.3 s (DuckDB's `create_function` imports numpy, and finding what is
registered scans every function).

The function is module-level on purpose: see scoring/functions.py (duckdb-python#530).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import duckdb
from duckdb.func import SPECIAL
from duckdb.sqltypes import BOOLEAN, VARCHAR, DuckDBPyType

from tracegrade.store.canonical import canonical_json
from tracegrade.store.readonly import tree_nodes

CHECK_FUNCTION = "tg_json_schema_check"
CANONICAL_FUNCTION = "tg_canonical_json"

# What calls the functions among the shipped macros (and DuckDB's `query_table`/`query`,
# which read a relation named by a string); the view that carries their answers, and its
# columns that do. The other views read other columns of it (tests/store/test_view_functions.py
# checks each view's rows either way). Then every view queries/views makes: a view the
# database holds beyond these is a user's, which may select `valid`.
CALLS_FUNCTIONS = frozenset(
    {CHECK_FUNCTION, CANONICAL_FUNCTION, "tg_tool_call_check", "tg_tool_calls"}
    | {"query_table", "query"}
)
CHECKED_VIEW = "tool_calls"
CHECKED_COLUMNS = frozenset({"valid", "validity_errors"})
SHIPPED_VIEWS = frozenset(
    {
        "agent_spans", "span_tree", "llm_calls", "tool_calls", "turns", "trajectories",
        "eval_runs", "expected_turns", "expected_tool_calls", "tool_definitions",
        "simulator_calls", "metric_series",
    }
)  # fmt: skip


def check_type(connection: duckdb.DuckDBPyConnection) -> DuckDBPyType:
    """What the check returns: `valid` (NULL when it cannot tell) and one row per problem.
    Made by the connection: `duckdb.struct_type` opens DuckDB's default connection, and
    one opened in a process that forks crashed the child at exit (SIGSEGV,
    tests/capture/test_fork.py)."""
    fields = {"argument": VARCHAR, "kind": VARCHAR, "message": VARCHAR}
    problem = connection.struct_type(fields)
    return connection.struct_type({"valid": BOOLEAN, "errors": connection.list_type(problem)})


def needs_view_functions(connection: duckdb.DuckDBPyConnection, sql: str) -> bool:
    """Whether the answer to `sql` may depend on the functions: it calls one (or a macro
    that does), reads `tool_calls`' checked columns (by name, by `*`, or as a whole row),
    or reads a view tracegrade does not ship (a user's, which may). Errs towards yes: a
    CTE named `tool_calls` counts, and so does a text DuckDB cannot parse."""
    found = _Referenced.of(connection, sql)
    if found is None or found.names & CALLS_FUNCTIONS:
        return True
    if CHECKED_VIEW in found.names and found.may_read_checked_columns():
        return True
    others = found.names - SHIPPED_VIEWS
    if not others:
        return False
    views = connection.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal")
    return any(name.lower() in others for (name,) in views.fetchall())


@dataclass
class _Referenced:
    """What a query's syntax tree names (DuckDB only parses it: nothing is bound or run)."""

    names: set[str] = field(default_factory=set)  # tables, views, CTEs, functions, macros
    aliases: set[str] = field(default_factory=set)  # the tables' aliases
    columns: list[list[str]] = field(default_factory=list)  # each column reference's parts
    star_or_position: bool = False  # `*`, COLUMNS(...) or #n: columns not named

    @classmethod
    def of(cls, connection: duckdb.DuckDBPyConnection, sql: str) -> _Referenced | None:
        """None when DuckDB cannot parse `sql`."""
        try:
            row = connection.execute("SELECT json_serialize_sql(?::VARCHAR)", [sql]).fetchone()
            tree = json.loads(row[0]) if row else {"error": True}
        except (duckdb.Error, ValueError, RecursionError):
            return None
        if tree.get("error"):
            return None
        found = cls()
        for node in tree_nodes(tree["statements"]):
            found._add(node)
        return found

    def _add(self, node: dict[str, Any]) -> None:
        kind = node.get("type")
        if kind == "BASE_TABLE":
            self.names.add(str(node.get("table_name")).lower())
            self.aliases.add(str(node.get("alias")).lower())
        elif kind == "COLUMN_REF":
            self.columns.append([str(part).lower() for part in node.get("column_names", ())])
        elif kind in ("STAR", "POSITIONAL_REFERENCE"):
            self.star_or_position = True
        if isinstance(node.get("function_name"), str):
            self.names.add(node["function_name"].lower())

    def may_read_checked_columns(self) -> bool:
        rows = self.names | self.aliases  # a relation's name alone as a column: its whole row
        return self.star_or_position or any(
            CHECKED_COLUMNS.intersection(parts) or (len(parts) == 1 and parts[0] in rows)
            for parts in self.columns
        )


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
