"""`tracegrade ingest FILE...`: load trace files into the database."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tracegrade.cli._common import DbOption, fail, user_errors
from tracegrade.exit_codes import ExitCode
from tracegrade.terminal_safe import terminal_text

if TYPE_CHECKING:
    from tracegrade.ingest import FileReport


def ingest(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Trace files: OTLP (JSON lines, protobuf, .gz, .zst), or a Jaeger or Tempo"
            " JSON export."
        ),
    ],
    db: DbOption = None,
    max_record_mib: Annotated[
        int,
        typer.Option(min=1, help="Largest line or record (MiB); a longer one is skipped."),
    ] = 64,
    max_inflation: Annotated[
        int,
        typer.Option(
            min=1,
            help="A .gz or .zst file stops after inflating to this many times its size "
            "(at least --max-record-mib).",
        ),
    ] = 1000,
) -> None:
    """Load OpenTelemetry trace files (e.g. the Collector's file exporter output, or a
    trace as Jaeger's or Tempo's API returns it; the format is read from the content).

    Spans already stored are skipped, so loading a file twice adds nothing. A record
    that cannot be decoded, and a span refused, is reported on stderr with its file and
    line; the rest still load. Exit code 2 when anything was reported.
    """
    from tracegrade.ingest import ingest_files
    from tracegrade.ingest.stream import MIB, Limits
    from tracegrade.report.values import plural
    from tracegrade.store import SpanWriter, resolve_path

    limits = Limits(max_record_bytes=max_record_mib * MIB, max_inflation=max_inflation)
    with user_errors():
        writer = SpanWriter.open(db)
        try:
            reports = ingest_files(files, writer, limits)
        finally:
            writer.close()
    for report in reports:
        for problem in report.bad_records:
            typer.echo(terminal_text(problem), err=True)  # it may quote the record
        if report.unlisted:
            typer.echo(f"{report.path}: and {plural(report.unlisted, 'more problem')}", err=True)
        typer.echo(_summary(report))
    if any(not r.ok for r in reports):
        raise fail(
            f"some records could not be loaded into {resolve_path(db)}", ExitCode.USAGE_ERROR
        )


def _summary(report: FileReport) -> str:
    from tracegrade.report.values import plural

    parts = [f"{plural(report.stored, 'span')} stored", f"{report.duplicates} already present"]
    if report.rejected_spans:
        parts.append(f"{report.rejected_spans} rejected")
    if report.bad:
        parts.append(plural(report.bad, "bad record"))
    return f"{report.path}: {plural(report.records, 'record')}, " + ", ".join(parts)
