"""Traffic scorings from the command line: listed (`runs --traffic`), printed again
(`report ID`), compared (`diff A B`, `diff --rule`), an empty sample (exit 6), windows in
human units, per-service lines and the worst turns' tool-error column.

The traffic is ADK-shaped spans from the real OTel SDK, stored through the real exporter
into a real DuckDB file, stamped near now so that `--since` windows hold them."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from tests.support.cli import invoke, one_line_error
from tests.support.new_database import new_database
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.exit_codes import ExitCode
from tracegrade.report.pages import traffic_file
from tracegrade.report.pages.traffic import build_traffic_page
from tracegrade.scoring.selection import traffic_words, window_text
from tracegrade.store import LocalReader, SpanWriter, connect, records

HOUR_NS = 3600 * 10**9
V1 = {"service.name": "shop", "service.version": "1.0.0"}
V2 = {"service.name": "shop", "service.version": "1.1.0"}


def _store(db: Path, spans: list[ReadableSpan]) -> None:
    writer = SpanWriter.open(new_database(db))
    exporter = DuckDBSpanExporter(writer=writer)
    try:
        assert exporter.export(spans).name == "SUCCESS"
        exporter.shutdown()
    finally:
        writer.close()


def _traffic(db: Path) -> int:
    """Two releases of one service: 1.0.0 two hours ago (3 turns, fast, one with a failing
    tool), 1.1.0 in the last hour (4 turns, ten times slower, two with a failing tool). The
    cut between them."""
    now = time.time_ns()
    fast = adk_like_spans(3, seed=1, resource=V1, start_ns=now - 2 * HOUR_NS, failing_tools={1})
    _store(db, fast)
    slow = adk_like_spans(4, seed=2, resource=V2, start_ns=now - HOUR_NS // 2,
                          step_ns=10_000_000, failing_tools={1, 3})  # fmt: skip
    _store(db, slow)
    return now - HOUR_NS


def _score(db: Path, *args: str, code: int = 0) -> str:
    """The scoring's id (the newest listed) after scoring traffic as `args` select."""
    result = invoke("score", "--db", str(db), *args)
    assert result.exit_code == code, result.output
    return str(
        json.loads(invoke("runs", "--traffic", "--json", "--db", str(db)).stdout)[0]["scoring_id"]
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "traffic.duckdb"


@costly
def test_an_empty_sample_is_one_line_and_exit_6(db: Path) -> None:
    _traffic(db)
    result = invoke("score", "--db", str(db), "--since", "90m", "--sample", "0.000001")
    assert result.exit_code == ExitCode.NOTHING_SELECTED
    assert int(ExitCode.NOTHING_SELECTED) == 6  # documented: a change is a break
    assert one_line_error(result.stderr) == (
        "tracegrade: nothing scored: traffic of the last 90m sampled at 0.0001% of trace ids "
        "selects no stored turn (widen the window, raise the sample)"
    )
    assert result.stdout == ""
    with connect(db, read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM scorings").fetchone() == (0,)


@costly
def test_windows_read_in_human_units(db: Path) -> None:
    _traffic(db)
    result = invoke("score", "--db", str(db), "--since", "24h")
    assert result.exit_code == 0, result.output
    assert "traffic of the last 24h · 7 turns scored" in result.stdout
    assert "86400" not in result.stdout
    for since in ("7d", "90m"):
        assert invoke("score", "--db", str(db), "--since", since).exit_code == 0
    listed = invoke("runs", "--traffic", "--db", str(db)).stdout
    for words in ("of the last 90m", "of the last 7d", "of the last 24h"):
        assert words in listed


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(86400, "24h"), (7 * 86400, "7d"), (5400, "90m"), (3600, "1h"), (172800, "2d"),
     (45, "45s"), (0.5, "0.5s"), (90, "90s"), (120, "2m")],
)  # fmt: skip
def test_window_text(seconds: float, text: str) -> None:
    assert window_text(seconds) == text


def test_traffic_words() -> None:
    assert traffic_words(None, None, None) == "all traffic"
    assert traffic_words(86400, 0.05, "tool_errors > 0") == (
        "traffic of the last 24h sampled at 5% of trace ids where tool_errors > 0"
    )


@costly
def test_summaries_have_a_line_per_service_and_version(db: Path) -> None:
    _traffic(db)
    written = db.with_suffix(".json")
    result = invoke("score", "--db", str(db), "--since", "7d", "--json", str(written))
    assert result.exit_code == 0, result.output
    report = json.loads(written.read_text())
    services = {row["name"]: row for row in report["by_service"]}
    assert sorted(services) == ["shop 1.0.0", "shop 1.1.0"]
    assert (services["shop 1.0.0"]["turns"], services["shop 1.1.0"]["turns"]) == (3, 4)
    assert (services["shop 1.0.0"]["tool_errors"], services["shop 1.1.0"]["tool_errors"]) == (1, 2)
    lines = result.stdout.splitlines()
    heading = lines.index("per service")
    assert lines[heading + 1].split()[:3] == ["shop", "1.0.0", "3"]
    assert lines[heading + 2].split()[:3] == ["shop", "1.1.0", "4"]


@costly
def test_runs_lists_traffic_scorings_and_report_prints_one_again(db: Path) -> None:
    _traffic(db)
    scored = invoke("score", "--db", str(db), "--since", "24h")
    first = _score(db, "--sample", "0.5")
    listed = json.loads(invoke("runs", "--traffic", "--json", "--db", str(db)).stdout)
    assert listed[0]["scoring_id"] == first
    assert [s["selection"] for s in listed] == [
        "traffic sampled at 50% of trace ids",
        "traffic of the last 24h",
    ]
    assert all(s["rule"] is None for s in listed)
    earlier = listed[1]["scoring_id"]
    assert invoke("runs", "--traffic", "--limit", "1", "--db", str(db)).stdout.count("traffic") == 1

    again = invoke("report", earlier, "--db", str(db), "--json", str(db.with_suffix(".json")))
    assert (again.exit_code, again.stdout) == (scored.exit_code, scored.stdout)
    assert json.loads(db.with_suffix(".json").read_text())["scoring"]["scoring_id"] == earlier
    markdown = invoke("report", earlier, "--db", str(db), "--markdown")
    assert markdown.exit_code == 0
    assert f"(scoring `{earlier}`)" in markdown.stdout
    assert "| service shop 1.1.0 | 4 |" in markdown.stdout
    refused = invoke("report", earlier, "--db", str(db), "--baseline", first)
    assert refused.exit_code == ExitCode.USAGE_ERROR
    assert f"`tracegrade diff OTHER {earlier}`" in one_line_error(refused.stderr)


@costly
def test_diff_of_two_traffic_windows(db: Path) -> None:
    cut = _traffic(db)
    before = _score(db, "--where", f"start_ns < {cut}")
    after = _score(db, "--where", f"start_ns >= {cut}")
    result = invoke("diff", before, after, "--db", str(db))
    assert result.exit_code == ExitCode.GATE_FAILED, result.output
    assert result.stdout.startswith(f"Traffic diff {before} → {after}\n")
    worse = [line for line in result.stdout.splitlines() if line.startswith("WORSE")]
    assert "WORSE all: latency p95 " in worse[0]
    assert any(line.startswith("WORSE agent shop: latency p95") for line in worse)
    document = json.loads(invoke("diff", before, after, "--json", "--db", str(db)).stdout)
    latency = next(c for c in document["changes"] if c["scope"] == "all"
                   and c["measure"] == "latency_p95_ms")  # fmt: skip
    assert latency["worse"]
    assert latency["after"] > 5 * latency["before"]
    assert document["failed"] is True

    same = invoke("diff", after, after, "--db", str(db))
    assert same.exit_code == 0, same.output
    assert "nothing worse beyond a tolerance → exit code 0" in same.stdout
    mixed = invoke("diff", after, "no-such-run", "--db", str(db))
    assert mixed.exit_code == ExitCode.USAGE_ERROR
    assert f"'{after}' is a traffic scoring and 'no-such-run' is not" in one_line_error(
        mixed.stderr
    )


@costly
def test_diff_of_a_rules_latest_two_scorings(db: Path) -> None:
    cut = _traffic(db)
    before = _score(db, "--where", f"start_ns < {cut}")
    after = _score(db, "--where", f"start_ns >= {cut}")
    # Online rules (serve) tag their scorings' selection with the rule; these two are tagged
    # so, as serve would, to stand for two windows of the rule `checkout`.
    with connect(db) as connection:
        connection.execute(
            'UPDATE scorings SET selection = json_merge_patch(selection, \'{"rule": "checkout"}\')'
        )
    result = invoke("diff", "--rule", "checkout", "--db", str(db))
    assert result.exit_code == ExitCode.GATE_FAILED, result.output
    assert result.stdout.startswith(f"Traffic diff {before} → {after}\n")
    assert "base: rule checkout: traffic where start_ns <" in result.stdout
    listed = json.loads(invoke("runs", "--traffic", "--json", "--db", str(db)).stdout)
    assert {s["rule"] for s in listed} == {"checkout"}
    mistyped = invoke("diff", "--rule", "chekout", "--db", str(db))
    assert mistyped.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(mistyped.stderr) == (
        "tracegrade: no online rule 'chekout' has scored traffic "
        "(did you mean 'checkout'? rules that have: checkout)"
    )
    with connect(db) as connection:
        connection.execute(
            'UPDATE scorings SET selection = json_merge_patch(selection, \'{"rule": "nightly"}\') '
            "WHERE scoring_id = ?",
            [before],
        )
    lonely = invoke("diff", "--rule", "checkout", "--db", str(db))
    assert lonely.exit_code == ExitCode.USAGE_ERROR
    assert "rule 'checkout' has 1 scoring stored; a diff needs two" in lonely.stderr
    both = invoke("diff", before, "--rule", "checkout", "--db", str(db))
    assert one_line_error(both.stderr).endswith("or --rule NAME alone")


@costly
def test_worst_turns_show_and_rank_tool_errors(db: Path) -> None:
    _traffic(db)
    # The slow release breaks the duration budget on every turn. The turns whose tool
    # failed rank first, the fast one that broke no budget too, with their count shown.
    criteria = db.with_name("criteria.json")
    criteria.write_text(json.dumps({"criteria": {"invocation_duration": {"max": 0.03}}}))
    scoring = _score(db, "--since", "24h", "--config", str(criteria), code=1)
    with connect(db, read_only=True) as connection:
        reader = LocalReader(connection)
        page = build_traffic_page(reader, scoring)
        html = traffic_file(reader, scoring)
        failing = records(reader, "SELECT count(*) AS n FROM scores WHERE scoring_id = ? "
                          "AND status = 'failed' AND level = 'turn'", [scoring])  # fmt: skip
    assert failing[0]["n"] == 4  # the slow release's turns, tool errors or not
    assert [t.tool_errors for t in page.worst] == [1, 1, 1, 0, 0, 0, 0]
    assert all(not t.is_error for t in page.worst)
    assert [bool(t.failed) for t in page.worst] == [True, True, False, True, True, False, False]
    assert '<th scope="col" class="num">tool errors</th>' in html
    assert "then tool errors, then the most metrics failed" in html
