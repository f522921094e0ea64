"""The SQL side of the response metrics: the registered tokenizers and the macros of
`queries/macros/10_text.sql`, against the pure-Python references in tests/scoring/reference.py."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.scoring.reference import rouge1_f, token_f1, unigram_f1
from tests.scoring.text_strategies import characters, text_pairs, texts, unicode_texts
from tracegrade._resources import queries_dir
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.text import rouge_tokens, unigram_tokens

tokens = st.lists(st.text(characters, max_size=3), max_size=40)


def _connect() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    register_functions(connection)
    connection.execute((queries_dir() / "macros" / "10_text.sql").read_text())
    return connection


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    # Module scope: hypothesis examples share one connection, as a scorer run would.
    connection = _connect()
    yield connection
    connection.close()


def _one(con: duckdb.DuckDBPyConnection, sql: str, *params: object) -> object:
    [(value,)] = con.execute(sql, list(params)).fetchall()
    return value


@given(pair=text_pairs())
def test_sql_rouge1_equals_rouge1_f(con: duckdb.DuckDBPyConnection, pair: tuple[str, str]) -> None:
    score = _one(con, "SELECT tg_token_f1(tg_rouge_tokens(?), tg_rouge_tokens(?))", *pair)
    assert score == pytest.approx(rouge1_f(*pair), abs=1e-9)


@given(pair=text_pairs())
def test_sql_unigram_f1_equals_unigram_f1(
    con: duckdb.DuckDBPyConnection, pair: tuple[str, str]
) -> None:
    score = _one(con, "SELECT tg_token_f1(tg_unigram_tokens(?), tg_unigram_tokens(?))", *pair)
    assert score == pytest.approx(unigram_f1(*pair), abs=1e-9)


@given(actual=tokens, reference=tokens)
def test_macros_equal_python_on_any_token_lists(
    con: duckdb.DuckDBPyConnection, actual: list[str], reference: list[str]
) -> None:
    counts, p, r, f = con.execute(
        "SELECT tg_token_counts($a, $r), tg_token_precision($a, $r), "
        "tg_token_recall($a, $r), tg_token_f1($a, $r)",
        {"a": actual, "r": reference},
    ).fetchall()[0]
    overlap = sum((Counter(actual) & Counter(reference)).values())
    assert counts == {"overlap": overlap, "actual": len(actual), "reference": len(reference)}
    assert p == pytest.approx(overlap / max(len(actual), 1), abs=1e-12)
    assert r == pytest.approx(overlap / max(len(reference), 1), abs=1e-12)
    assert f == pytest.approx(token_f1(actual, reference), abs=1e-9)


@given(text=texts())
def test_udfs_return_the_python_tokens(con: duckdb.DuckDBPyConnection, text: str) -> None:
    assert _one(con, "SELECT tg_rouge_tokens(?)", text) == rouge_tokens(text)
    assert _one(con, "SELECT tg_unigram_tokens(?)", text) == unigram_tokens(text)


@given(text=st.one_of(texts(), unicode_texts))
def test_unigram_tokens_are_sqls_ascii_alphanumeric_runs(
    con: duckdb.DuckDBPyConnection, text: str
) -> None:
    # Ours is plain enough for SQL alone; only ASCII is case-folded, so DuckDB's lower()
    # and Python's agree.
    sql = "SELECT list_transform(regexp_extract_all(?, '[A-Za-z0-9]+'), lambda w: lower(w))"
    assert unigram_tokens(text) == _one(con, sql, text)


def test_null_text_is_empty_and_scores_zero(con: duckdb.DuckDBPyConnection) -> None:
    row = con.execute(
        "SELECT tg_rouge_tokens(NULL), tg_unigram_tokens(NULL), "
        "tg_token_f1(tg_rouge_tokens(NULL), ['x']), tg_token_f1(NULL, NULL), "
        "tg_token_precision(NULL, ['x']), tg_token_recall(['x'], NULL)"
    ).fetchall()
    assert row == [([], [], 0.0, 0.0, 0.0, 0.0)]
    assert rouge1_f("", "x") == 0.0


def test_registering_again_and_from_a_cursor_is_harmless(
    con: duckdb.DuckDBPyConnection,
) -> None:
    register_functions(con)
    cursor = con.cursor()
    register_functions(cursor)
    assert cursor.execute("SELECT tg_rouge_tokens('Sunny')").fetchall() == [(["sunni"],)]


def test_functions_outlive_the_connection_that_registered_them(tmp_path: Path) -> None:
    # Connections to one file share registered functions (duckdb/duckdb-python#530).
    first = duckdb.connect(str(tmp_path / "shared.duckdb"))
    second = duckdb.connect(str(tmp_path / "shared.duckdb"))
    register_functions(first)
    register_functions(second)
    first.close()
    del first
    gc.collect()
    row = second.execute("SELECT tg_rouge_tokens('Sunny'), tg_unigram_tokens('Sunny')").fetchall()
    second.close()
    assert row == [(["sunni"], ["sunny"])]


def test_macros_evaluate_each_argument_once_per_row() -> None:
    # A macro is expanded in place; without binding its arguments, each Python tokenizer
    # call would run once per mention (five times a row).
    calls: list[str] = []

    def tokenize(text: str) -> list[str]:
        calls.append(text)
        return text.split()

    varchar = duckdb.sqltype("VARCHAR")
    with _connect() as con:
        con.create_function("counting_tokens", tokenize, [varchar], duckdb.list_type(varchar))
        con.execute("""
            SELECT tg_token_f1(counting_tokens(t), counting_tokens('a b')),
                   tg_token_precision(counting_tokens(t), counting_tokens('a b'))
            FROM (SELECT 'a c ' || i AS t FROM range(100) r(i))
        """).fetchall()
    per_row_text = Counter(text for text in calls if text.startswith("a c "))
    assert len(per_row_text) == 100
    assert set(per_row_text.values()) == {1}
