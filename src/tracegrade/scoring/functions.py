"""Every Python function SQL can call, registered on a connection in one place.

    tg_rouge_tokens(VARCHAR) -> VARCHAR[]                   text.rouge_tokens
    tg_unigram_tokens(VARCHAR) -> VARCHAR[]                 text.unigram_tokens
    tg_rouge_counts(VARCHAR, VARCHAR) -> counts_type()      overlap.rouge_counts
    tg_unigram_counts(VARCHAR, VARCHAR) -> counts_type()    overlap.unigram_counts

`tg_canonical_json` (store.canonical), which the turn facts the writer keeps use too, is
registered with the views' own functions (store.view_functions).

Each is called on NULL too (it decides what NULL means: no args stays NULL, no text is
empty text) and has no side effects, so DuckDB may reuse a result for equal inputs.

The functions are module-level on purpose. DuckDB registers a Python function in the
database instance, which every connection to the same file in this process shares, yet
holds no reference to it: a function object owned only by a closed connection would be
called after it is freed (duckdb/duckdb-python#530).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import duckdb
from duckdb.func import SPECIAL
from duckdb.sqltypes import BIGINT, VARCHAR, DuckDBPyType

from tracegrade.scoring.overlap import rouge_counts, unigram_counts
from tracegrade.scoring.text import rouge_tokens, unigram_tokens
from tracegrade.store.view_functions import register_view_functions


def counts_type(connection: duckdb.DuckDBPyConnection) -> DuckDBPyType:
    """What the counting functions return: `overlap.Counts`, a tuple, arrives as this STRUCT.
    Types are made by the connection: `duckdb.struct_type` and `duckdb.list_type` open
    DuckDB's default connection, which crashes a forked child at exit (view_functions)."""
    return connection.struct_type({"overlap": BIGINT, "actual": BIGINT, "reference": BIGINT})


def _tokens_type(connection: duckdb.DuckDBPyConnection) -> DuckDBPyType:
    return connection.list_type(VARCHAR)


class _Function(NamedTuple):
    name: str
    function: Callable[..., Any]
    parameters: list[DuckDBPyType]
    returns: Callable[[duckdb.DuckDBPyConnection], DuckDBPyType]


FUNCTIONS = (
    _Function("tg_rouge_tokens", rouge_tokens, [VARCHAR], _tokens_type),
    _Function("tg_unigram_tokens", unigram_tokens, [VARCHAR], _tokens_type),
    _Function("tg_rouge_counts", rouge_counts, [VARCHAR, VARCHAR], counts_type),
    _Function("tg_unigram_counts", unigram_counts, [VARCHAR, VARCHAR], counts_type),
)


def register_functions(connection: duckdb.DuckDBPyConnection) -> None:
    """Register every function in FUNCTIONS on `connection`; calling again is harmless."""
    # Registered already through this connection, a cursor of it, or another connection to
    # the same file: DuckDB would refuse a second registration.
    names = [f.name for f in FUNCTIONS]
    registered = {
        row[0]
        for row in connection.execute(
            "SELECT function_name FROM duckdb_functions() WHERE list_contains(?, function_name)",
            [names],
        ).fetchall()
    }
    register_view_functions(connection)  # the tool-call check, which the views use too
    for udf in FUNCTIONS:
        if udf.name not in registered:
            connection.create_function(
                udf.name,
                udf.function,
                list[Any](udf.parameters),  # DuckDB's stub wants a list of a wider union
                udf.returns(connection),
                null_handling=SPECIAL,
                side_effects=False,
            )
