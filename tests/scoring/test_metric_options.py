"""A metric of your own declares its options in its SQL header (`-- option:`), the criteria
file's values are checked against them, and the metric's SQL reads them from `tg_options`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import invoke, one_line_error
from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.errors import ConfigError
from tracegrade.harness import RunOptions, run_eval
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.engine import run_metric, score
from tracegrade.scoring.inputs import load_inputs
from tracegrade.scoring.metrics import available_metrics, read_spec
from tracegrade.scoring.selection import Selection
from tracegrade.store import SpanWriter, connect

SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"
SHORT_ENOUGH = """\
-- metric: short_enough
-- better: higher
-- range: 0..1
-- option: max_chars integer = 100000  the longest final response that passes
-- option: label string = "default"  copied into each row's detail
-- One row per turn: 1.0 when the final response has at most max_chars characters.
SELECT turn_id,
       (length(coalesce(final_text, ''))
            <= (getvariable('tg_options')->>'max_chars')::INTEGER)::DOUBLE AS score,
       json_object('max_chars', (getvariable('tg_options')->>'max_chars')::INTEGER,
                   'label', getvariable('tg_options')->>'label') AS detail
FROM scored_turns
"""


@pytest.fixture
def metrics_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "short_enough.sql").write_text(SHORT_ENOUGH)
    return folder


def _turn_rows(writer: SpanWriter, scoring_id: str) -> dict[str, tuple[float, dict[str, Any]]]:
    rows = writer.connection.execute(
        "SELECT turn_id, score, detail FROM scores "
        "WHERE scoring_id = ? AND metric = 'short_enough' AND level = 'turn'",
        [scoring_id],
    ).fetchall()
    return {turn_id: (value, json.loads(detail)) for turn_id, value, detail in rows}


@costly
def test_a_header_option_reaches_the_metric_sql_with_its_default_or_the_criterions_value(
    captured: BlockingSpanProcessor, writer: SpanWriter, metrics_dir: Path
) -> None:
    run_id = run_eval(
        RunOptions(eval_sets=[str(SHOP)], agent="tests.harness.shop_agent.agent:root_agent")
    ).run_id
    assert captured.force_flush()
    specs = available_metrics([metrics_dir])
    turns = writer.connection.execute(
        "SELECT turn_id, length(coalesce(final_text, '')), is_error FROM turns WHERE run_id = ?",
        [run_id],
    ).fetchall()
    answered = {turn for turn, n, crashed in turns if n > 0 and not crashed}
    crashed = {turn for turn, _, crashed in turns if crashed}
    assert answered  # a limit of 0 must fail these
    assert crashed  # and these have no score at all

    def scored(criterion: Any) -> dict[str, tuple[float, dict[str, Any]]]:
        config = parse_config({"criteria": {"short_enough": criterion}}, specs)
        result = score(writer.connection, Selection(run_id=run_id), config, specs)
        return _turn_rows(writer, result.scoring_id)

    # A bare threshold: every option at its declared default.
    loose = scored(1.0)
    assert loose.keys() == {turn for turn, _, _ in turns}
    for turn_id, (value, detail) in loose.items():
        assert value == (None if turn_id in crashed else 1.0)
        assert detail == {"max_chars": 100000, "label": "default"}

    # The criterion's values, as the SQL reads them.
    tight = scored({"threshold": 1.0, "max_chars": 0, "label": "tight"})
    assert tight.keys() == loose.keys()
    for turn_id, (value, detail) in tight.items():
        assert detail == {"max_chars": 0, "label": "tight"}
        assert value == (0.0 if turn_id in answered else None if turn_id in crashed else 1.0)


@pytest.mark.parametrize(
    ("criterion", "message"),
    [
        (
            {"threshold": 1.0, "max_chars": "ten"},
            "criteria.short_enough.max_chars: expected an integer, got 'ten'",
        ),
        (
            {"threshold": 1.0, "max_chars": 2.5},
            "criteria.short_enough.max_chars: expected an integer, got 2.5",
        ),
        (
            {"threshold": 1.0, "max_chars": True},
            "criteria.short_enough.max_chars: expected an integer, got True",
        ),
        (
            {"threshold": 1.0, "label": 3},
            "criteria.short_enough.label: expected a string, got 3",
        ),
        (
            {"threshold": 1.0, "max_char": 10},
            "criteria.short_enough: unknown setting max_char (did you mean max_chars?)",
        ),
        ({"max_chars": 10}, "criteria.short_enough: give a threshold (or max, p50, p95)"),
    ],
)
def test_a_bad_option_value_is_one_line_naming_the_metric_and_the_option(
    metrics_dir: Path, criterion: dict[str, Any], message: str
) -> None:
    specs = available_metrics([metrics_dir])
    with pytest.raises(ConfigError) as raised:
        parse_config({"criteria": {"short_enough": criterion}}, specs)
    assert str(raised.value) == message


@costly
def test_the_score_command_refuses_a_bad_option_in_one_line(
    metrics_dir: Path, tmp_path: Path
) -> None:
    db = tmp_path / "empty.duckdb"
    SpanWriter.open(db).close()
    config = tmp_path / "test_config.json"
    config.write_text(
        json.dumps({"criteria": {"short_enough": {"threshold": 1, "max_chars": "x"}}})
    )
    args = ["score", "--db", str(db), "--since", "24h", "--config", str(config)]
    result = invoke(*args, "--metrics", str(metrics_dir))
    assert result.exit_code == 2
    assert one_line_error(result.stderr) == (
        f"tracegrade: {config}: criteria.short_enough.max_chars: expected an integer, got 'x'"
    )
    # Without --metrics the metric is unknown: the folder is what declares it.
    result = invoke(*args)
    assert result.exit_code == 2
    assert "unknown metric 'short_enough'" in one_line_error(result.stderr)


@costly
def test_run_metric_gives_the_sql_the_defaults_under_the_options_passed(
    metrics_dir: Path,
) -> None:
    connection = connect(":memory:")
    load_inputs(connection, {"scored_turns": {"turn_id": ["a", "b"], "final_text": ["hi", ""]}})
    spec = read_spec(metrics_dir / "short_enough.sql")
    rows = run_metric(connection, spec)
    assert [(t, s, json.loads(d or "null")) for t, s, d in rows] == [
        ("a", 1.0, {"max_chars": 100000, "label": "default"}),
        ("b", 1.0, {"max_chars": 100000, "label": "default"}),
    ]
    rows = run_metric(connection, spec, {"max_chars": 1})
    assert [(t, s) for t, s, _ in rows] == [("a", 0.0), ("b", 1.0)]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "-- option: limit float = 1",
            "the type must be number, integer, boolean, string, not float",
        ),
        ("-- option: limit integer = 1.5", "the default 1.5 is no integer"),
        ("-- option: limit integer = true", "the default true is no integer"),
        ("-- option: limit string = plain", "the default must be a JSON value (string)"),
        ("-- option: limit integer", "write it as NAME TYPE = DEFAULT  WHAT IT MEANS"),
        ("-- option: threshold number = 1", "threshold is a criterion key already"),
        ('-- option: error_predicate string = ""', "error_predicate is a criterion key already"),
    ],
)
def test_a_bad_declaration_is_refused_naming_the_file_and_the_option(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "m.sql"
    path.write_text(f"-- metric: m\n{line}\nSELECT turn_id, 1.0 AS score FROM scored_turns\n")
    with pytest.raises(ConfigError) as raised:
        read_spec(path)
    assert str(raised.value).startswith(f"metric file {path}: option ")
    assert problem in str(raised.value)


def test_an_option_declared_twice_or_on_a_judged_metric_is_refused(tmp_path: Path) -> None:
    twice = tmp_path / "twice.sql"
    twice.write_text("-- option: n integer = 1\n-- option: n integer = 2\nSELECT 1\n")
    with pytest.raises(ConfigError, match="n is declared twice"):
        read_spec(twice)
    judged = tmp_path / "judged.sql"
    judged.write_text("-- judge: judged.prompt\n-- option: n integer = 1\nSELECT 1\n")
    with pytest.raises(ConfigError, match="a judged metric takes no '-- option:' lines"):
        read_spec(judged)
