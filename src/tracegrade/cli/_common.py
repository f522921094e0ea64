"""What every command shares: the database option, and turning errors into exit codes."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tracegrade.errors import NothingSelected, TracegradeError
from tracegrade.exit_codes import ExitCode
from tracegrade.terminal_safe import terminal_text

if TYPE_CHECKING:
    from tracegrade.workspace.requests import JudgeSettings

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="DuckDB file (default: $TRACEGRADE_DB, else ./tracegrade.duckdb).",
        show_default=False,
    ),
]


ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="TRACEGRADE_SERVER",
        help="URL of the `tracegrade serve` holding the database (found by itself when "
        "it runs on this machine; needed when it runs in a container).",
        show_default=False,
    ),
]


JsonOption = Annotated[
    Path | None, typer.Option("--json", help="Write the JSON report here.", show_default=False)
]
JunitOption = Annotated[
    Path | None, typer.Option("--junit", help="Write JUnit XML here.", show_default=False)
]
HtmlOption = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help="Write the HTML report here: one self-contained file that opens offline.",
        show_default=False,
    ),
]
MarkdownOption = Annotated[
    bool,
    typer.Option(
        "--markdown",
        help="Print a Markdown summary on stdout instead of the terminal one (for "
        "$GITHUB_STEP_SUMMARY or a PR comment; at most 60,000 characters).",
    ),
]


def _checked_tags(tags: list[str] | None) -> list[str] | None:
    """`--tag` values, each checked before anything runs; one line for a bad one."""
    from tracegrade.report.baseline import tag_problem

    for tag in tags or []:
        problem = tag_problem(tag)
        if problem:
            raise fail(f"--tag {tag!r}: {problem}")
    return list(dict.fromkeys(tags)) if tags else tags


TagOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="Name the run (repeatable, e.g. --tag main --tag $GIT_SHA): `--baseline NAME` "
        "is then the newest run carrying it.",
        show_default=False,
        callback=_checked_tags,
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        help="What to diff against: previous (the last run of this agent and these eval "
        "sets), a tag, a run id, or a JSON report file (`run --json`, e.g. main's CI "
        "artifact). Checked first; a regression fails.",
        show_default=False,
    ),
]
MetricsOption = Annotated[
    list[Path] | None,
    typer.Option("--metrics", help="A folder of extra metric .sql files.", show_default=False),
]


JudgeConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--judge-concurrency",
        min=1,
        help="Judge calls in flight at once, across turns, samples and metrics (default 64).",
        show_default=False,
    ),
]
JudgeBudgetOption = Annotated[
    float | None,
    typer.Option(
        "--judge-budget-usd",
        min=0.0,
        help="Stop calling judges once their estimated cost reaches this; what is left is "
        "reported unjudged.",
        show_default=False,
    ),
]
JudgeTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--judge-timeout",
        min=0.001,
        help="Seconds one judge call may take before it is retried (default 120).",
        show_default=False,
    ),
]
JudgeRetriesOption = Annotated[
    int | None,
    typer.Option(
        "--judge-retries",
        min=0,
        help="Retries of a judge call that got 429, 5xx or timed out (default 6).",
        show_default=False,
    ),
]


def judge_options(
    concurrency: int | None, budget_usd: float | None, timeout: float | None, retries: int | None
) -> JudgeSettings:
    """The judge settings of a run or scoring, from the --judge-* options given (the rest
    left unset: their defaults, wherever the scoring runs)."""
    from tracegrade.workspace.requests import JudgeSettings

    given = {"concurrency": concurrency, "budget_usd": budget_usd, "timeout_s": timeout,
             "retries": retries}  # fmt: skip
    return JudgeSettings(**{key: value for key, value in given.items() if value is not None})


def fail(message: str, code: ExitCode = ExitCode.USAGE_ERROR) -> typer.Exit:
    """Print one line to stderr; the caller raises what this returns."""
    typer.echo(f"tracegrade: {terminal_text(message)}", err=True)  # it may quote data
    return typer.Exit(int(code))


def prepare_outputs(outputs: dict[str, Path | None]) -> None:
    """The files asked for (option → path), before anything runs: their folders made (a
    CI job's `reports/` does not exist yet), a path that cannot be written refused."""
    for option, path in outputs.items():
        if path is None:
            continue
        if path.is_dir():
            raise fail(f"{option} {path}: is a folder; give a file name in it")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
            why = f"{blocking} is a file, not a folder" if blocking else exc.strerror
            raise fail(f"{option} {path}: cannot create its folder ({why})") from None
        writable = os.access(path, os.W_OK) if path.exists() else os.access(path.parent, os.W_OK)
        if not writable:
            raise fail(f"{option} {path}: this user cannot write it (permission denied)")


@contextmanager
def user_errors() -> Iterator[None]:
    """A `TracegradeError` becomes one line on stderr and exit code 2 (an empty traffic
    selection: 6); bugs keep their traceback."""
    try:
        yield
    except NothingSelected as exc:
        raise fail(str(exc), ExitCode.NOTHING_SELECTED) from None
    except TracegradeError as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt as exc:
        raise fail(
            f"interrupted: {exc}" if str(exc) else "interrupted", ExitCode.INTERRUPTED
        ) from None
    except Exception as exc:
        damaged = _damaged(exc)
        if damaged is None:
            raise
        raise fail(damaged) from None


def _damaged(exc: Exception) -> str | None:
    """A damaged block met by a query, long after the open checked what it could."""
    if not type(exc).__module__.lstrip("_").startswith("duckdb"):
        return None  # no need to import DuckDB to know
    from tracegrade.store.damage import damaged_while_reading

    error = damaged_while_reading(exc)
    return None if error is None else str(error)


@contextmanager
def sql_errors(what: str) -> Iterator[None]:
    """DuckDB failing the user's own SQL as it runs (an unknown column, a write in a
    read-only query) is theirs to fix: one line with DuckDB's message, exit 2."""
    import duckdb

    from tracegrade.store.readonly import one_line

    try:
        yield
    except duckdb.Error as exc:
        # A damaged block is the database's fault, not the query's: said as such.
        raise fail(_damaged(exc) or f"{what}: {one_line(str(exc))}") from None


def quiet_agent_logs() -> None:
    """google-adk logs every crash with a traceback; the report already names each error."""
    logging.getLogger("google_adk").setLevel(logging.CRITICAL)
