"""`tracegrade archive`: move old spans of a stopped database into the Parquet archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, user_errors

ArchiveOption = Annotated[
    Path,
    typer.Option(
        "--archive",
        help="Root folder of the Parquet archive (shared by every shard).",
        show_default=False,
    ),
]
RetainOption = Annotated[
    float,
    typer.Option(
        "--retain-days",
        min=0.0,
        help="Keep traces that ended in the last N days in the database (0: archive all).",
    ),
]
ShardOption = Annotated[
    str,
    typer.Option(
        "--shard",
        help="This database's shard name in the archive: one database a name, others are refused.",
    ),
]


def archive(
    archive: ArchiveOption,
    retain_days: RetainOption = 7.0,
    shard: ShardOption = "s0",
    db: DbOption = None,
) -> None:
    """Move every trace that ended more than --retain-days ago into the Parquet archive.

    Files land at ARCHIVE/shard=S/day=D/hour=H/*.parquet with the `spans` columns, and
    the views read the database and the archive as one from then on. A crash (even
    kill -9) loses and duplicates nothing: the next run finishes or undoes it. For a
    database `tracegrade serve` holds, give serve --archive instead.
    """
    from tracegrade.report.values import plural
    from tracegrade.store import resolve_path
    from tracegrade.store.archive import archive_database
    from tracegrade.store.connection import require_database

    with user_errors():
        require_database(resolve_path(db))  # nothing to archive in a mistyped path
        done = archive_database(db, archive, shard=shard, retain_days=retain_days)
    moved = f"archived {plural(done.spans, 'span')} into {plural(done.files, 'file')}"
    hot = "hot copy" if done.copies == 1 else "hot copies"
    copies = f"; deleted {done.copies:,} {hot} of archived spans" if done.copies else ""
    typer.echo(f"{moved} under {archive}{copies}")
