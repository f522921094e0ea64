"""Where the shipped SQL lives.

`queries/` sits at the top of the repository and is copied into the wheel as
`tracegrade/queries`. An editable install has no copy, so fall back to the checkout.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def queries_dir() -> Path:
    packaged = Path(str(resources.files("tracegrade"))) / "queries"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "queries"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"tracegrade's SQL files are missing: looked in {packaged} and {checkout}"
    )


def sql_files(subdir: str) -> list[Path]:
    """The `.sql` files of `queries/<subdir>`, in name order (numbered where order matters)."""
    return sorted((queries_dir() / subdir).glob("*.sql"))


def scoring_sql(step: str) -> str:
    """The text of `queries/scoring/NN_<step>.sql` (selected, expected, inputs, derived,
    levels or store)."""
    return query_text("scoring", step)


def query_text(subdir: str, step: str) -> str:
    """The text of `queries/<subdir>/NN_<step>.sql`."""
    (path,) = [p for p in sql_files(subdir) if p.stem.split("_", 1)[1] == step]
    return path.read_text()
