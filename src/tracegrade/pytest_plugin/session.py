"""One pytest session's eval runs: capture into DuckDB, replay each spec once, score it.

Imported only when a test asks for `case_result` or `eval_run`, so a pytest run that
uses no eval cases never loads google-adk or opens a database.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tracegrade.pytest_plugin.results import EvalRunResult
from tracegrade.pytest_plugin.spec import CaseParam, EvalCases
from tracegrade.workspace.api import read_report
from tracegrade.workspace.evaluation import evaluate
from tracegrade.workspace.requests import Criteria, EvalRequest, judge_settings, load_criteria
from tracegrade.workspace.store import Store

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
        self._store = Store(db_path)
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
        self._store.close()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)

    def _replay_and_score(self, spec: EvalCases) -> EvalRunResult:
        # One capture for the session, added to an SDK provider already installed (OTel
        # allows one per process); the run is scored and read through its connection.
        self._store.keep_capture(service_name="tracegrade-pytest")
        criteria = load_criteria(spec.config, spec.eval_sets, [Path(d) for d in spec.metric_dirs])
        result = evaluate(self._request(spec, criteria), self._store)
        report = read_report(self._store, scoring_id=result.scoring_id)
        skipped = {(s.eval_set_id, s.case_id): s.reason for s in result.not_replayable}
        return EvalRunResult(report, str(self.db_path), skipped)

    def _request(self, spec: EvalCases, criteria: Criteria) -> EvalRequest:
        """What `tracegrade run` would be asked: the criteria found for the whole spec (a
        selection of its cases finds the same file), the settings `eval_cases` gave."""
        return EvalRequest(
            eval_sets=tuple(_selection(spec, self._selected.get(spec))),
            agent=spec.agent,
            config=criteria,
            repeats=self._repeats or spec.repeats or 1,
            parallel=self._parallel or spec.parallel or 1,
            turn_timeout_s=spec.turn_timeout_s,
            ignore_unknown_keys=spec.ignore_unknown_keys,
            allow_not_evaluated=spec.allow_not_evaluated,
            judge=judge_settings(dict(spec.judge)),
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
