"""`tracegrade archive`: move old spans of a stopped database into the Parquet archive."""

from __future__ import annotations

from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, user_errors

ArchiveOption = Annotated[
    str,
    typer.Option(
        "--archive",
        help="Root folder of the Parquet archive, shared by every shard (a local or mounted "
        "folder: object-store URLs are refused).",
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


PruneDaysOption = Annotated[
    float | None,
    typer.Option(
        "--prune-days",
        min=0.0,
        help="Then delete this database's archived day partitions older than N days, "
        "recorded in its manifest.",
        show_default=False,
    ),
]
PruneMissingOption = Annotated[
    bool,
    typer.Option(
        "--prune-missing",
        help="First record archived files deleted by hand (a day folder removed) as pruned, "
        "so that archiving goes on without them.",
    ),
]
CompactOption = Annotated[
    bool,
    typer.Option(
        "--compact",
        help="Then rewrite each hour partition of this database holding several files into one.",
    ),
]


def archive(
    archive: ArchiveOption,
    retain_days: RetainOption = 7.0,
    shard: ShardOption = "s0",
    prune_days: PruneDaysOption = None,
    prune_missing: PruneMissingOption = False,
    compact: CompactOption = False,
    db: DbOption = None,
) -> None:
    """Move every trace that ended more than --retain-days ago into the Parquet archive.

    Files land at ARCHIVE/shard=S/day=D/hour=H/*.parquet with the `spans` columns, and
    the views read the database and the archive as one from then on. A crash (even
    kill -9) loses and duplicates nothing: the next run finishes or undoes it. For a
    database `tracegrade serve` holds, give serve --archive instead (and prune or
    compact it with this command while serve is stopped).
    """
    from tracegrade.report.values import plural
    from tracegrade.store import resolve_path
    from tracegrade.store.archive import Upkeep, archive_database
    from tracegrade.store.connection import require_database

    upkeep = Upkeep(prune_missing=prune_missing, prune_older_than_days=prune_days, compact=compact)
    with user_errors():
        require_database(resolve_path(db))  # nothing to archive in a mistyped path
        done = archive_database(db, archive, shard=shard, retain_days=retain_days, upkeep=upkeep)
    moved = done.moved
    hot = "hot copy" if moved.copies == 1 else "hot copies"
    copies = f"; deleted {moved.copies:,} {hot} of archived spans" if moved.copies else ""
    typer.echo(
        f"archived {plural(moved.spans, 'span')} into {plural(moved.files, 'file')} "
        f"under {archive}{copies}"
    )
    for what, pruned in (("recorded as deleted", done.missing), ("pruned", done.pruned)):
        if pruned.files:
            days = f"{pruned.days[0]} to {pruned.days[-1]}" if pruned.days else ""
            typer.echo(
                f"{what}: {plural(pruned.files, 'file')}, {plural(pruned.spans, 'span')} "
                f"(days {days})"
            )
    if done.compacted.partitions:
        typer.echo(
            f"compacted {plural(done.compacted.files_before, 'file')} into "
            f"{plural(done.compacted.partitions, 'file')} "
            f"({plural(done.compacted.partitions, 'partition')})"
        )
