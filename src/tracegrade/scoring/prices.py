"""The price table cost_usd reads: shipped list prices, overridden by the user's."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import duckdb

PRICE_COLUMNS = ("input", "cached_input", "output", "reasoning")


def default_prices() -> dict[str, dict[str, float]]:
    text = resources.files("tracegrade.scoring").joinpath("prices.json").read_text()
    models: dict[str, dict[str, float]] = json.loads(text)["models"]
    return models


def load_prices(
    connection: duckdb.DuckDBPyConnection, overrides: dict[str, dict[str, Any]]
) -> None:
    """(Re)create the temporary `prices` table: one row per model, USD per 1M tokens."""
    table = default_prices() | overrides
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE prices "
        "(model VARCHAR, input DOUBLE, cached_input DOUBLE, output DOUBLE, reasoning DOUBLE)"
    )
    rows = [[model, *(entry.get(c) for c in PRICE_COLUMNS)] for model, entry in table.items()]
    if rows:
        connection.executemany("INSERT INTO prices VALUES (?, ?, ?, ?, ?)", rows)
