"""Progress of a run on stderr: a bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tracegrade.harness import CaseOutcome
from tracegrade.harness.run import Progress as ProgressCallback
from tracegrade.terminal_safe import terminal_text


@contextmanager
def case_progress(total: int) -> Iterator[ProgressCallback]:
    """A callback for each finished case repeat; renders until the block ends."""
    if not sys.stderr.isatty():
        done = [0]

        def line(outcome: CaseOutcome) -> None:
            done[0] += 1
            state = f"error: {outcome.error}" if outcome.error else "ran"
            said = terminal_text(f"{outcome.case_id} (repeat {outcome.repeat}) {state}")
            print(f"[{done[0]}/{total}] {said}", file=sys.stderr)

        yield line
        return
    columns = (
        TextColumn("replaying"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", markup=False),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=total)

        def advance(outcome: CaseOutcome) -> None:
            bar.update(task, advance=1, description=terminal_text(outcome.case_id))

        yield advance
