"""SQL an attacker would send wherever a user's text reaches a query: to write, to read files,
to change settings, or to crash the parser. Each must be refused before it runs.

`{secret}` is a file whose content must never come back; `{out}` a path that must never be
written. The tests fill both in with paths of their own.
"""

from __future__ import annotations

from pathlib import Path

SECRET_TEXT = "the-secret-content-7f3a"

# Texts sent as a `where` condition over the turns view.
CONDITIONS = [
    "true); DELETE FROM spans; SELECT (1",
    "true); DROP TABLE spans; SELECT (1",
    "true) OR (true); UPDATE spans SET name = 'x'; SELECT (1",
    "EXISTS (WITH d AS (DELETE FROM spans RETURNING 1) SELECT 1 FROM d)",
    "true) UNION ALL SELECT * FROM turns WHERE (true",
    "true ORDER BY 1",
    "(SELECT count(*) FROM read_text('{secret}')) > 0",
    "user_text = (SELECT content FROM read_text('{secret}'))",
    "user_text IN (SELECT * FROM '{secret}')",
    "(SELECT count(*) FROM glob('/*')) > 0",
    "true; COPY spans TO '{out}'",
    "true; ATTACH '{out}' AS other",
    "(SELECT count(*) FROM checkpoint()) >= 0",
    "nextval('no_such_sequence') > 0",
    "(SELECT count(*) FROM query('DELETE FROM spans')) >= 0",
    "true; SET enable_external_access = true",
    "true; INSTALL httpfs",
    "true; UPDATE EXTENSIONS",
    "",
    "(" * 100_000 + "true" + ")" * 100_000,
]

# Whole queries, as `tracegrade sql` and POST /v1/sql take them.
QUERIES = [
    "DELETE FROM spans",
    "DROP TABLE spans",
    "WITH d AS (DELETE FROM spans RETURNING *) SELECT count(*) FROM d",
    "WITH u AS (UPDATE spans SET name = 'x' RETURNING *) SELECT count(*) FROM u",
    "WITH i AS (INSERT INTO spans (trace_id, span_id) VALUES ('a', 'b') RETURNING *) "
    "SELECT * FROM i",
    "SELECT * FROM (WITH d AS (DELETE FROM spans RETURNING 1) SELECT * FROM d)",
    "SELECT 1; DELETE FROM spans",
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM read_csv('{secret}', header = false)",
    "SELECT * FROM '{secret}'",
    "SELECT * FROM glob('/*')",
    "COPY spans TO '{out}'",
    "COPY (SELECT 1) TO '{out}'",
    "ATTACH '{out}' AS other",
    "SELECT * FROM checkpoint()",
    "SELECT * FROM query('DELETE FROM spans')",
    "SELECT * FROM enable_logging()",
    "SET enable_external_access = true",
    "UPDATE EXTENSIONS",
    "INSTALL httpfs",
    "SELECT '\ud800'",
    "SELECT " + "(" * 100_000 + "1" + ")" * 100_000,
    "",
]


def fill(text: str, secret: Path, out: Path) -> str:
    return text.replace("{secret}", str(secret)).replace("{out}", str(out))


def make_secret(folder: Path) -> Path:
    secret = folder / "secret.csv"
    secret.write_text(f"{SECRET_TEXT}\n{SECRET_TEXT}\n")
    return secret
