"""One pytest session's eval runs: capture into DuckDB, replay each spec once, score it.

Imported only when a test asks for `case_result` or `eval_run`, so a pytest run that
uses no eval cases never loads google-adk or opens a database.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

import duckdb

from tracegrade.capture import Capture, DuckDBSpanExporter, configure
from tracegrade.errors import TracegradeError
from tracegrade.harness import RunOptions, RunResult, run_eval
from tracegrade.pytest_plugin.results import EvalRunResult
from tracegrade.pytest_plugin.spec import CaseParam, EvalCases
from tracegrade.report import build_report
from tracegrade.scoring import LoadedConfig, Selection, load_scoring_config, score
from tracegrade.store import LocalReader

_UNSELECTABLE = (",", ":")  # characters `file.json:a,b` cannot carry in a case id


class EvalSession:
    """Runs are replayed lazily, on the first test that needs one, and cached.

    `selected` holds, per spec, the cases pytest collected after `-k`, `--lf` and friends,
    so only those are replayed; None means every case.
    """

    def __init__(
        self,
        db_path: Path | None,
        repeats: int | None,
        parallel: int | None,
        selected: dict[EvalCases, frozenset[CaseParam] | None],
    ) -> None:
        self.kept = db_path is not None
        self._tempdir: Path | None = None
        if db_path is None:
            self._tempdir = Path(tempfile.mkdtemp(prefix="tracegrade-pytest-"))
            db_path = self._tempdir / "spans.duckdb"
        self.db_path = db_path
        self._repeats = repeats
        self._parallel = parallel
        self._selected = selected
        self._capture: Capture | None = None
        self._runs: dict[EvalCases, EvalRunResult | Exception] = {}

    @property
    def run_ids(self) -> list[str]:
        return [r.run_id for r in self._runs.values() if isinstance(r, EvalRunResult)]

    def run(self, spec: EvalCases) -> EvalRunResult:
        """The spec's scored run, replayed on first use. A run that raised (a bad eval set,
        agent or config) raises the same again for every test of the spec, without
        replaying."""
        if spec not in self._runs:
            try:
                self._runs[spec] = self._replay_and_score(spec)
            except Exception as exc:  # kept: the next test of this spec fails the same way
                self._runs[spec] = exc
        outcome = self._runs[spec]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def close(self) -> None:
        if self._capture is not None:
            self._capture.shutdown()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)

    def _replay_and_score(self, spec: EvalCases) -> EvalRunResult:
        capture = self._start_capture()
        loaded = load_scoring_config(spec.config, list(spec.eval_sets), spec.metric_dirs)
        result = run_eval(self._options(spec, loaded))
        if not capture.flush():
            raise TracegradeError(f"spans of run {result.run_id} were not all stored in time")
        connection = _reading_connection(capture)
        try:
            _require_turns(connection, result)
            scored = score(connection, Selection(run_id=result.run_id), loaded.config, loaded.specs)
            report = build_report(LocalReader(connection), scoring_id=scored.scoring_id)
        finally:
            connection.close()
        skipped = {(c.eval_set_id, c.case_id): why for c, why in result.not_replayable}
        return EvalRunResult(report, str(self.db_path), skipped)

    def _start_capture(self) -> Capture:
        # Added to an SDK provider already installed (OTel allows one per process).
        if self._capture is None:
            self._capture = configure(self.db_path, service_name="tracegrade-pytest")
        return self._capture

    def _options(self, spec: EvalCases, loaded: LoadedConfig) -> RunOptions:
        return RunOptions(
            eval_sets=_selection(spec, self._selected.get(spec)),
            agent=spec.agent,
            repeats=self._repeats or spec.repeats or 1,
            parallel=self._parallel or spec.parallel or 1,
            criteria=loaded.raw or {},
        )


def _selection(spec: EvalCases, chosen: Iterable[CaseParam] | None) -> list[str]:
    """The eval sets as `tracegrade run` takes them, narrowed to the chosen cases."""
    if chosen is None:
        return list(spec.eval_sets)
    by_file: dict[str, list[str]] = {}
    for param in chosen:
        by_file.setdefault(param.eval_set_path, []).append(param.case_id)
    ids = [case_id for cases in by_file.values() for case_id in cases]
    if not by_file or any(ch in case_id for case_id in ids for ch in _UNSELECTABLE):
        return list(spec.eval_sets)
    return [f"{path}:{','.join(sorted(cases))}" for path, cases in sorted(by_file.items())]


def _reading_connection(capture: Capture) -> duckdb.DuckDBPyConnection:
    exporter = capture.exporter
    assert isinstance(exporter, DuckDBSpanExporter)  # configure() writes to DuckDB
    # A cursor is a connection of its own: the exporter's thread keeps the writer's.
    return exporter.writer.connection.cursor()


def _require_turns(connection: duckdb.DuckDBPyConnection, result: RunResult) -> None:
    found = connection.execute(
        "SELECT count(*) FROM turns WHERE run_id = ?", [result.run_id]
    ).fetchall()
    if result.outcomes and found[0][0] == 0:
        raise TracegradeError(
            f"no spans of run {result.run_id} reached the database: a global OpenTelemetry "
            "tracer provider that is not the SDK's is installed, so tracegrade could not add "
            "its span processor to it"
        )
