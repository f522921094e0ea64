"""`tracegrade db ...`: where the database is, and bringing an old file up to date."""

from __future__ import annotations

import typer

from tracegrade.cli._common import DbOption, user_errors
from tracegrade.cli._help import Command, Group

app = typer.Typer(
    cls=Group, help="The DuckDB file: its path, and upgrading it.", no_args_is_help=True
)


@app.command("path", cls=Command)
def path(db: DbOption = None) -> None:
    """Print the database path, to open it in any DuckDB client."""
    from tracegrade.store import resolve_path

    typer.echo(str(resolve_path(db).resolve()))


@app.command("upgrade", cls=Command)
def upgrade(db: DbOption = None) -> None:
    """Apply pending migrations, refresh the views and macros, and compute the turn facts
    of traces stored without them (scoring then reads them instead of rebuilding)."""
    from tracegrade.store import connect, resolve_path
    from tracegrade.store.connection import require_database
    from tracegrade.store.turn_facts import keep_all

    with user_errors():
        require_database(resolve_path(db))  # an upgrade of a mistyped path creates nothing
        connection = connect(db)
        try:
            keeper = connection.cursor()  # the facts' temporary tables are its own
            computed = keep_all(keeper)
            keeper.close()
        finally:
            connection.close()
    if computed:
        typer.echo(f"turn facts computed for {computed:,} traces stored without them")
    typer.echo(f"{resolve_path(db)} is up to date")
