"""The one guard for SQL a user or client writes: one read-only query, run where it cannot write.

Every such text passes here before it runs: `tracegrade sql` and POST /v1/sql (a query),
and the `where` of `tracegrade score`, `export-evalset` and POST /v1/score (a condition).

1. DuckDB parses it: exactly one statement, a SELECT; a condition must parse as exactly
   one expression, the WHERE of a fixed `SELECT * FROM <view>`, with nothing around it.
2. Its syntax tree (`json_serialize_sql`) holds only read-only query nodes (a CTE holding
   DELETE, UPDATE or INSERT is refused) and calls no function that writes, changes
   settings, runs other SQL or reads files.
3. It runs in a READ ONLY transaction, rolled back afterwards, on a database whose external
   access is off and whose configuration is locked: if 1 and 2 ever let something through,
   the write or the file read still fails.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb

from tracegrade.errors import DatabaseError


class QueryRefused(DatabaseError):
    """The text is not one read-only query (or condition)."""


class QueryUnparsable(DatabaseError):
    """DuckDB cannot parse the text."""


_READ_ONLY_NODES = frozenset(
    {"SELECT_NODE", "SET_OPERATION_NODE", "CTE_NODE", "RECURSIVE_CTE_NODE"}
)
# Functions a SELECT may call that write, change the server's state or run SQL of their own.
_SIDE_EFFECTS = frozenset(
    {
        "checkpoint", "force_checkpoint", "nextval", "setseed", "query",
        "json_execute_serialized_sql", "enable_logging", "disable_logging",
        "truncate_duckdb_logs", "enable_profiling", "disable_profiling",
        "add_grammar_extension", "remove_grammar_extension", "register_external_resource",
        "register_external_resource_type", "create_external_resource",
        "deregister_external_resource", "destroy_external_resource",
        "python_map_function", "pandas_scan", "arrow_scan", "arrow_scan_dumb",
        "python_arrow_scan",
    }
)  # fmt: skip
# Functions that read files or URLs (refused here with a clear reason; external access is
# off as well, which also stops `FROM 'file.csv'`).
_FILE_READERS = frozenset({"glob", "sniff_csv", "which_secret"})
_FILE_READER_PREFIXES = ("read_", "parquet_")
# DuckDB reads `FROM 'x.csv'` or `FROM 'https://...'` as a file: no table name holds these.
_PATH_CHARACTERS = frozenset("/\\.:")

_parser: duckdb.DuckDBPyConnection | None = None  # an in-memory database, for parsing only
_parser_lock = threading.Lock()


def read_only_statement(sql: str) -> duckdb.Statement:
    """The one read-only SELECT in `sql`, or `QueryRefused`/`QueryUnparsable` saying why not."""
    statement = _one_select(sql)
    _check_tree(_syntax_tree(sql)["node"])
    return statement


def check_condition(condition: str, relation: str = "turns") -> str:
    """`condition` checked to be one read-only boolean expression over `relation`, wrapped
    for embedding as `... AND <returned text>` in a query that is then checked whole."""
    condition_tree(condition, relation)
    return f"(\n{condition}\n)"


def condition_tree(condition: str, relation: str = "turns") -> dict[str, Any]:
    """The syntax tree of `condition`, once checked as `check_condition` checks it: for a
    caller that allows less still (e.g. no subqueries) and walks the tree itself."""
    # The text is only parsed here (never run), and must parse as one expression to pass.
    text = f"SELECT * FROM {relation} WHERE\n{condition}\n"  # noqa: S608 — parsed, not run
    try:
        _one_select(text)
        node = _syntax_tree(text)["node"]
    except (QueryRefused, QueryUnparsable) as exc:
        raise QueryRefused(f"not one SQL condition: {exc}") from None
    if not _is_plain_where(node, relation):
        raise QueryRefused("not one SQL condition: it adds clauses of its own (ORDER BY, UNION...)")
    _check_tree(node)
    where: dict[str, Any] = node["where_clause"]
    return where


def locked_memory_connection() -> duckdb.DuckDBPyConnection:
    """A new in-memory database with file access off, to bind or try out a user's text."""
    connection = duckdb.connect(":memory:")
    lock_down(connection)
    return connection


def lock_down(connection: duckdb.DuckDBPyConnection) -> None:
    """No file, network or extension access from SQL any more, and no way to turn it back on.

    Idempotent; the settings hold for the whole database, every cursor of it included."""
    if _setting(connection, "lock_configuration"):
        if _setting(connection, "enable_external_access"):
            raise DatabaseError("this database's configuration is locked with file access on")
        return
    connection.execute("SET enable_external_access = false")
    connection.execute("SET GLOBAL python_enable_replacements = false")
    connection.execute("SET lock_configuration = true")


@contextmanager
def read_only_transaction(connection: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Run the body in a READ ONLY transaction that is rolled back, on a locked-down database."""
    lock_down(connection)
    connection.execute("BEGIN TRANSACTION READ ONLY")
    try:
        yield
    finally:
        connection.execute("ROLLBACK")


def guarded_rows(
    connection: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None
) -> list[tuple[Any, ...]]:
    """All rows of a user's query, checked and run read-only (for small results)."""
    statement = read_only_statement(sql)
    with read_only_transaction(connection):
        try:
            return connection.execute(statement, params).fetchall()
        except duckdb.Error as exc:
            raise DatabaseError(one_line(str(exc))) from None


def _one_select(sql: str) -> duckdb.Statement:
    _require_unicode(sql)
    try:
        with _parser_lock:
            statements = _parsing().extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryUnparsable(f"cannot parse the query: {one_line(str(exc))}") from None
    if len(statements) != 1:
        raise QueryRefused(f"send exactly one statement, not {len(statements)}")
    try:
        kind = statements[0].type.name
    except ValueError:  # a type the Python API has no name for, e.g. UPDATE EXTENSIONS
        kind = "a statement of another kind"
    if kind != duckdb.StatementType.SELECT.name:
        raise QueryRefused(f"only SELECT queries are allowed (read-only), not {kind}")
    return statements[0]


def one_line(message: str) -> str:
    """DuckDB's message on one line (errors are printed on one line), without the lines that
    draw the query under it (`LINE 2: nope > 1` and a caret), which would only repeat it."""
    kept = []
    for line in message.strip().splitlines():
        if line.startswith("LINE "):
            break
        kept.append(line.strip())
    return " ".join(filter(None, kept))


def _require_unicode(sql: str) -> None:
    try:
        sql.encode()
    except UnicodeEncodeError as exc:
        raise QueryUnparsable(
            f"the query is not valid text: {exc.reason} at character {exc.start}"
        ) from None


def _parsing() -> duckdb.DuckDBPyConnection:
    """The in-memory database that parses (call with `_parser_lock` held): one, not DuckDB's
    default connection as well (`duckdb.extract_statements`), ~20 ms a start."""
    global _parser
    if _parser is None:
        _parser = duckdb.connect()
        lock_down(_parser)
    return _parser


def _syntax_tree(sql: str) -> dict[str, Any]:
    with _parser_lock:
        try:
            row = _parsing().execute("SELECT json_serialize_sql(?::VARCHAR)", [sql]).fetchone()
        except duckdb.Error as exc:
            raise QueryUnparsable(f"cannot parse the query: {one_line(str(exc))}") from None
    try:
        tree = json.loads(row[0] if row else "{}")
    except (ValueError, RecursionError):
        raise QueryRefused("the query is nested too deeply to check") from None
    if tree.get("error") or len(tree.get("statements", ())) != 1:
        raise QueryRefused(f"cannot check the query: {tree.get('error_message', 'no statement')}")
    statement: dict[str, Any] = tree["statements"][0]
    return statement


def tree_nodes(root: Any) -> Iterator[dict[str, Any]]:
    """Every node of a syntax tree `json_serialize_sql` gave, each an object (iteratively:
    a tree can be deeper than Python's recursion)."""
    pending: list[Any] = [root]
    while pending:
        item = pending.pop()
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, dict):
            yield item
            pending.extend(item.values())


def _check_tree(root: dict[str, Any]) -> None:
    for node in tree_nodes(root):
        _check_node(node)


def _check_node(node: dict[str, Any]) -> None:
    kind = node.get("type")
    if isinstance(kind, str) and kind.endswith("_NODE") and kind not in _READ_ONLY_NODES:
        what = kind.removesuffix("_NODE").removesuffix("_QUERY")
        raise QueryRefused(f"only read-only queries are allowed, and this one holds a {what}")
    if kind == "BASE_TABLE" and _PATH_CHARACTERS.intersection(str(node.get("table_name"))):
        raise QueryRefused(f"{node['table_name']!r} is not a table: queries cannot read files")
    name = node.get("function_name")
    if isinstance(name, str):
        name = name.lower()
        if name in _SIDE_EFFECTS:
            raise QueryRefused(f"{name}() is not allowed: it changes the database or runs SQL")
        if name in _FILE_READERS or name.startswith(_FILE_READER_PREFIXES):
            raise QueryRefused(f"{name}() is not allowed: queries cannot read files")


def _is_plain_where(node: dict[str, Any], relation: str) -> bool:
    """`SELECT * FROM <relation> WHERE <one expression>` and nothing else."""
    table = node.get("from_table") or {}
    select = node.get("select_list") or []
    return (
        node.get("type") == "SELECT_NODE"
        and len(select) == 1
        and select[0].get("type") == "STAR"
        and not select[0].get("exclude_list")
        and not select[0].get("replace_list")
        and table.get("type") == "BASE_TABLE"
        and table.get("table_name") == relation
        and not table.get("alias")
        and table.get("sample") is None
        and node.get("where_clause") is not None
        and not node.get("modifiers")
        and not (node.get("cte_map") or {}).get("map")
        and not node.get("group_expressions")
        and not node.get("group_sets")
        and all(node.get(key) is None for key in ("having", "qualify", "sample"))
    )


def _setting(connection: duckdb.DuckDBPyConnection, name: str) -> bool:
    row = connection.execute("SELECT current_setting(?)", [name]).fetchone()
    return bool(row and row[0])
