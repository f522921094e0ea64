"""The Python functions SQL scorers call, registered on a connection."""

from __future__ import annotations

import duckdb

from tracegrade.scoring.canonical import register_canonical_function
from tracegrade.scoring.overlap import register_overlap_functions
from tracegrade.scoring.text import register_text_functions


def register_functions(connection: duckdb.DuckDBPyConnection) -> None:
    """tg_canonical_json, tg_rouge_tokens, tg_unigram_tokens, tg_rouge_counts and
    tg_unigram_counts (idempotent)."""
    register_canonical_function(connection)
    register_text_functions(connection)
    register_overlap_functions(connection)
