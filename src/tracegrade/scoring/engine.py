"""Scoring: the selected turns, every metric's SQL, the three levels, and the verdict.

`score()` materialises what the scorers read (`scored_turns`, `scored_calls`, ...; see
queries/scoring/01_inputs.sql), runs each metric's SQL with its criterion's options in the
`tg_options` variable, and stores every row in `scores`, the cases' outcomes in
`case_results` and the scoring in `scorings`. Re-scoring a stored run needs no agent.
Judged metrics are judged first (scoring/judging), and scored from the answers like any
other metric.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import duckdb

from tracegrade._resources import scoring_sql
from tracegrade.errors import ConfigError, NothingSelected, TracegradeError
from tracegrade.scoring.criteria import ScoringConfig
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.matching import Matching, drop_matched, match_sessions
from tracegrade.scoring.metrics import MetricSpec
from tracegrade.scoring.predicate import define_predicate
from tracegrade.scoring.prices import load_prices
from tracegrade.scoring.selected import create_scored_turns, drop_selected, select_traces
from tracegrade.scoring.selection import Selection, traffic_words
from tracegrade.scoring.verdict import ScoringResult, decide

if TYPE_CHECKING:
    from tracegrade.evalset import Case
    from tracegrade.scoring.judging import JudgeSettings
    from tracegrade.scoring.judging.settings import Stop


def score(
    connection: duckdb.DuckDBPyConnection,
    selection: Selection,
    config: ScoringConfig,
    specs: dict[str, MetricSpec],
    judging: JudgeSettings | None = None,
    *,
    stop: Stop | None = None,
) -> ScoringResult:
    """Score the turns `selection` picks from the views, record and return the verdict."""
    register_functions(connection)
    prepare_inputs(connection, selection)
    if not connection.execute("SELECT 1 FROM scored_turns LIMIT 1").fetchall():
        raise _nothing(selection)
    return score_loaded(connection, config, specs, selection, judging, stop=stop)


def score_matched(
    connection: duckdb.DuckDBPyConnection,
    selection: Selection,
    cases: Sequence[Case],
    config: ScoringConfig,
    specs: dict[str, MetricSpec],
    judging: JudgeSettings | None = None,
    *,
    stop: Stop | None = None,
) -> tuple[ScoringResult, Matching]:
    """Score the stored sessions that match `cases` (scoring/matching.py) as the case
    repeats of the eval run `selection.run_id`, which only this scoring knows."""
    assert selection.run_id is not None
    register_functions(connection)
    select_traces(connection, None)
    matching = match_sessions(connection, selection.run_id, cases)
    # The matched turns as the case repeats of the run only this scoring knows.
    connection.execute(
        """
        CREATE OR REPLACE TEMP VIEW scoring_matched_turns AS
        SELECT t.* REPLACE (m.run_id AS run_id, m.eval_set_id AS eval_set_id,
                            m.case_id AS case_id, m.repeat AS repeat,
                            m.turn_index AS turn_index),
               true AS has_expected
        FROM scoring_turns t JOIN scoring_matches m USING (turn_id)
        """
    )
    create_scored_turns(connection, turns="scoring_matched_turns")
    connection.execute("DROP VIEW scoring_matched_turns")
    _fill_inputs(connection)
    if not connection.execute("SELECT 1 FROM scored_turns LIMIT 1").fetchall():
        raise NothingSelected(_no_session_matched(matching))
    try:
        result = score_loaded(connection, config, specs, selection, judging, stop=stop)
    finally:
        drop_matched(connection)
    return result, matching


def _no_session_matched(matching: Matching) -> str:
    sessions = len(matching.unmatched_sessions)
    return (
        f"nothing scored: no stored session matches a case of the eval set ({sessions} "
        "session(s) of no "
        "eval run are stored): a session matches a case when its user messages are the "
        "case's, in order"
    )


def score_loaded(
    connection: duckdb.DuckDBPyConnection,
    config: ScoringConfig,
    specs: dict[str, MetricSpec],
    selection: Selection | None = None,
    judging: JudgeSettings | None = None,
    *,
    stop: Stop | None = None,
) -> ScoringResult:
    """Score what the input tables hold (filled by `prepare_inputs` or `inputs.load_inputs`)."""
    if selection is None:
        runs = connection.execute("SELECT DISTINCT run_id FROM scored_turns").fetchall()
        selection = Selection(run_id=runs[0][0] if len(runs) == 1 else None)
    register_functions(connection)
    load_prices(connection, config.prices)
    config = applicable(config, specs, selection.run_id, has_expected=_has_expected(connection))
    scoring_id = uuid.uuid4().hex[:12]
    judged = [m for m in _metrics_to_run(config, specs) if m.judge]
    _judge(connection, config, judged, judging, scoring_id, stop)
    run_metrics(connection, config, specs)
    store_levels(connection, config, scoring_id)
    result = decide(connection, scoring_id, selection, config)
    record(connection, result, selection, config)
    return result


def applicable(
    config: ScoringConfig,
    specs: dict[str, MetricSpec],
    run_id: str | None,
    *,
    has_expected: bool,
) -> ScoringConfig:
    """The criteria as they apply: traffic without expected turns drops the metrics that
    need them (see `_without_expected`)."""
    if run_id is None and not has_expected:
        return _without_expected(config, specs)
    return config


def run_metrics(
    connection: duckdb.DuckDBPyConnection, config: ScoringConfig, specs: dict[str, MetricSpec]
) -> None:
    """Every metric's SQL over the input tables (judged ones read `judgements`), into
    `turn_scores` (with `scoring_criteria`); the functions and prices must be loaded first.
    Spark tasks run this on their share of turns."""
    metrics = load_criteria(connection, config, specs)
    _run_scorers(connection, metrics, config)


def load_criteria(
    connection: duckdb.DuckDBPyConnection, config: ScoringConfig, specs: dict[str, MetricSpec]
) -> list[MetricSpec]:
    """The metrics to run, and their criteria into `scoring_criteria`, which the levels read."""
    metrics = _metrics_to_run(config, specs)
    _load_criteria(connection, config, metrics)
    return metrics


def store_levels(
    connection: duckdb.DuckDBPyConnection, config: ScoringConfig, scoring_id: str
) -> None:
    """From `scored_turns` and `turn_scores` to the turn, case and run rows of `scores` and
    `case_results`. The Spark driver runs this on the rows its tasks returned."""
    connection.execute("SET VARIABLE tg_scoring_id = ?", [scoring_id])
    connection.execute("SET VARIABLE tg_policy = ?", [config.repeat_policy.kind])
    connection.execute("SET VARIABLE tg_policy_k = ?", [config.repeat_policy.k])
    connection.execute(scoring_sql("levels"))
    connection.execute(scoring_sql("store"))


class NothingToScore(TracegradeError):
    """No turns where the user asked."""


def _nothing(selection: Selection) -> TracegradeError:
    if selection.run_id:
        return NothingToScore(f"no stored turns match eval run '{selection.run_id}'")
    since = selection.since.total_seconds() if selection.since is not None else None
    words = traffic_words(since, selection.sample, selection.where)
    if words == "all traffic":
        return NothingSelected("nothing scored: no traffic turn (of no eval run) is stored")
    return NothingSelected(
        f"nothing scored: {words} selects no stored turn (widen the window, raise the sample)"
    )


def prepare_inputs(connection: duckdb.DuckDBPyConnection, selection: Selection) -> None:
    select_traces(connection, selection.trace_predicate())
    predicate, params = selection.predicate()
    create_scored_turns(connection, predicate, params)
    _fill_inputs(connection)


def _fill_inputs(connection: duckdb.DuckDBPyConnection) -> None:
    """From `scored_turns` and the selected traces to every input table the scorers read."""
    connection.execute(scoring_sql("inputs"))
    drop_selected(connection)
    connection.execute(scoring_sql("derived"))


def _judge(
    connection: duckdb.DuckDBPyConnection,
    config: ScoringConfig,
    judged: list[MetricSpec],
    settings: JudgeSettings | None,
    scoring_id: str,
    stop: Stop | None,
) -> None:
    """Judged metrics' answers into `scored_judgements`, before any scorer reads them."""
    if judged:
        from tracegrade.scoring.judging import JudgeSettings, judge

        judge(connection, config, judged, settings or JudgeSettings(), scoring_id, stop)


def _has_expected(connection: duckdb.DuckDBPyConnection) -> bool:
    return bool(connection.execute("SELECT 1 FROM scored_expected LIMIT 1").fetchall())


NOT_APPLICABLE = "not applicable: it needs expected turns, and traffic has none"


def _without_expected(config: ScoringConfig, specs: dict[str, MetricSpec]) -> ScoringConfig:
    """Traffic has no expected turns: the metrics that need them are left out, and say so.
    One test_config.json then serves eval runs and traffic alike."""
    skipped = {name: NOT_APPLICABLE for name in config.criteria if specs[name].needs_expected}
    kept = {name: c for name, c in config.criteria.items() if name not in skipped}
    not_evaluated = {**config.not_evaluated, **skipped}
    return config.model_copy(update={"criteria": kept, "not_evaluated": not_evaluated})


def _metrics_to_run(config: ScoringConfig, specs: dict[str, MetricSpec]) -> list[MetricSpec]:
    """Every configured metric, and every reference-free one as information (judged ones
    only when configured: a judge costs money)."""
    informational = [s for s in specs.values() if not s.needs_expected and not s.judge]
    return [s for s in specs.values() if s.name in config.criteria or s in informational]


def _load_criteria(
    connection: duckdb.DuckDBPyConnection, config: ScoringConfig, metrics: Iterable[MetricSpec]
) -> None:
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE scoring_criteria (metric VARCHAR, better VARCHAR, "
        "needs_expected BOOLEAN, gating BOOLEAN, "
        "threshold DOUBLE, max DOUBLE, p50 DOUBLE, p95 DOUBLE)"
    )
    rows = []
    for spec in metrics:
        c = config.criteria.get(spec.name)
        gates = (c.threshold, c.max, c.p50, c.p95) if c else (None, None, None, None)
        rows.append([spec.name, spec.better, spec.needs_expected, c is not None, *gates])
    connection.executemany("INSERT INTO scoring_criteria VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def _run_scorers(
    connection: duckdb.DuckDBPyConnection, metrics: Iterable[MetricSpec], config: ScoringConfig
) -> None:
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE turn_scores "
        "(metric VARCHAR, turn_id VARCHAR, score DOUBLE, detail JSON)"
    )
    for spec in metrics:
        criterion = config.criteria.get(spec.name)
        _set_options(connection, criterion.options if criterion else spec.default_options())
        insert = "INSERT INTO turn_scores SELECT ?, turn_id, score, detail FROM ({})"
        _execute_metric(connection, spec, insert, [spec.name])


def run_metric(
    connection: duckdb.DuckDBPyConnection,
    spec: MetricSpec,
    options: dict[str, Any] | None = None,
    prices: dict[str, dict[str, float]] | None = None,
) -> list[tuple[str, float | None, str | None]]:
    """One metric over the input tables as they are (see `inputs.load_inputs`): its rows
    (turn_id, score, detail) by turn id. For testing a metric, shipped or your own."""
    register_functions(connection)
    load_prices(connection, prices or {})
    _set_options(connection, {**spec.default_options(), **(options or {})})
    rows = _execute_metric(
        connection, spec, "SELECT turn_id, score, detail FROM ({}) ORDER BY turn_id", []
    )
    return [(r[0], r[1], r[2]) for r in rows]


def _set_options(connection: duckdb.DuckDBPyConnection, options: dict[str, Any]) -> None:
    connection.execute("SET VARIABLE tg_options = ?::JSON", [json.dumps(options)])
    define_predicate(connection, options.get("error_predicate"))


def _execute_metric(
    connection: duckdb.DuckDBPyConnection, spec: MetricSpec, wrapper: str, params: list[Any]
) -> list[tuple[Any, ...]]:
    query = wrapper.format(spec.sql.strip().rstrip(";"))
    try:
        return connection.execute(query, params).fetchall()
    except duckdb.Error as exc:
        raise ConfigError(f"metric '{spec.name}' ({spec.path}) failed: {exc}") from None


def record(
    connection: duckdb.DuckDBPyConnection,
    result: ScoringResult,
    selection: Selection,
    config: ScoringConfig,
) -> None:
    """The scoring's row in `scorings`: its selection, criteria and the gate's verdict.
    The Spark driver writes it too, as scorings.parquet."""
    from tracegrade import __version__

    config_json = json.dumps(config.model_dump())  # criteria, not_evaluated, repeat_policy, ...
    connection.execute(
        "INSERT INTO scorings (scoring_id, run_id, selection, config, turns, error_rate, verdict, "
        "exit_code, tracegrade_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            result.scoring_id,
            selection.run_id,
            json.dumps(selection.describe()),
            config_json,
            result.turns,
            result.error_rate,
            result.verdict,
            int(result.exit_code),
            __version__,
        ],
    )
