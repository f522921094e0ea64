"""The run page `tracegrade run --html` writes for the real example, in Chromium: it loads
with no console error and no request leaving it, draws a mark per bin, budget line and
run, expands a failing case into its trajectory diff, shows every span of a turn in
order, and reads without JavaScript."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.browser.conftest import Example
from tests.support.browser import OpenPage, Watched, screenshot
from tracegrade.report.pages.charts import histograms, trends
from tracegrade.report.queries import find_scoring
from tracegrade.report.summary import scoring_info
from tracegrade.store import LocalReader, connect

FAILING = "home/bedside_lamp_off"
WRONG_TYPE = "home/device_3_by_number"


@pytest.fixture(scope="module")
def reader(example: Example) -> Iterator[LocalReader]:
    connection = connect(example.db, read_only=True)
    yield LocalReader(connection)
    connection.close()


@pytest.fixture
def page(open_page: OpenPage, example: Example) -> Watched:
    return open_page(example.run_html.as_uri())


def _case(eval_set_case: str) -> str:
    return f"details.case[data-case='{eval_set_case}']"


def _sql(reader: LocalReader, sql: str, *params: object) -> list[tuple[object, ...]]:
    return reader.query(sql, params)[1]


def test_the_run_page_loads_clean(page: Watched, example: Example) -> None:
    assert page.page.title().startswith("FAILED · run ")
    assert "10/12 cases passed, 2 failed, 0 errored" in page.page.inner_text("#verdict")
    page.page.wait_for_timeout(100)  # any late script error or request
    page.assert_clean()
    screenshot(page.page, "run")


def test_each_plot_draws_a_mark_per_bin_budget_line_and_run(
    page: Watched, reader: LocalReader, example: Example
) -> None:
    scoring = scoring_info(find_scoring(reader, None, example.run_id))
    charts = histograms(reader, scoring.scoring_id, scoring.criteria)
    assert {c.metric for c in charts} >= {"latency", "token_usage", "response_match_score"}
    for chart in charts:
        figure = page.page.locator(f"#chart-{chart.metric}")
        assert figure.locator("svg").count() >= 1, chart.metric
        assert figure.locator("g.bins > rect").count() == len(chart.bins), chart.metric
        assert figure.locator("g.budget > line").count() == len(chart.rules), chart.metric
        heights = figure.locator("g.bins > rect").evaluate_all(
            "rs => rs.map(r => r.getBBox().height)"
        )
        assert all(h > 0 for h in heights), chart.metric  # each bin holds a turn: a bar shows
    # The token budget (max 4,000) and the p95 latency budget are drawn as lines.
    assert page.page.locator("#chart-token_usage g.budget > line").count() == 1
    assert page.page.locator("#chart-latency g.budget > line").count() == 1
    lines = trends(reader, example.run_id, scoring.criteria)
    assert lines, "two runs of the same eval set make a trend"
    for line in lines:
        dots = page.page.locator(f"#trend-{line.metric} g.runs > circle")
        assert dots.count() == len(line.points) == 2, line.metric


def test_expanding_a_failing_case_shows_its_trajectory_diff(
    page: Watched, reader: LocalReader, example: Example
) -> None:
    (detail,) = _sql(
        reader,
        "SELECT detail FROM scores JOIN scorings USING (scoring_id) WHERE scores.run_id = ? "
        "AND case_id = 'bedside_lamp_off' AND level = 'turn' "
        "AND metric = 'tool_trajectory_avg_score' ORDER BY scored_at DESC LIMIT 1",
        example.run_id,
    )[0]
    expected_calls = json.loads(str(detail))
    case = page.page.locator(_case(FAILING))
    diff = case.locator("table.trajectory-diff")
    assert not diff.is_visible()
    case.locator("summary").click()
    assert diff.is_visible()
    rows = diff.locator("tbody tr")
    expected, actual = expected_calls["expected"], expected_calls["actual"]
    assert rows.count() == max(len(expected), len(actual)) == 2
    assert rows.nth(0).get_attribute("class") == "differs"
    cells = rows.nth(0).locator("td")
    assert cells.nth(1).inner_text() == 'list_devices(location="Bedroom")'
    assert cells.nth(2).inner_text() == 'set_device_info(device_id="device_1", status="OFF")'
    # Argument level: the wrong device is marked in the actual call (and the name too).
    marked = cells.nth(2).locator(".differs").all_inner_texts()
    assert 'device_id="device_1"' in marked
    assert "missing list_devices" in case.inner_text()
    page.assert_clean()


def test_a_wrong_typed_argument_shows_its_reason(page: Watched) -> None:
    case = page.page.locator(_case(WRONG_TYPE))
    case.locator("summary").click()
    assert 'device_id: 3 is not of type "string" (wrong_type)' in case.inner_text()


def test_the_waterfall_shows_every_span_of_the_turn_in_order(
    page: Watched, reader: LocalReader, example: Example
) -> None:
    (turn_id, trace_id) = _sql(
        reader,
        "SELECT turn_id, trace_id FROM turns WHERE run_id = ? AND case_id = 'device_3_by_number'",
        example.run_id,
    )[0]
    spans = _sql(
        reader,
        "SELECT span_id, is_error FROM agent_spans WHERE trace_id = ? ORDER BY start_ns, span_id",
        trace_id,
    )
    # From the failing case, its turn's waterfall link opens the turn where it is.
    page.page.locator(_case(WRONG_TYPE)).locator("summary").click()
    page.page.locator(_case(WRONG_TYPE)).get_by_role("link", name="waterfall").click()
    table = page.page.locator(f"table.waterfall[data-turn-id='{turn_id}']")
    assert table.is_visible()
    rows = table.locator("tr.span")
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.spanId)") == [s[0] for s in spans]
    errors = table.locator("tr.span.is-error")
    assert errors.evaluate_all("rs => rs.map(r => r.dataset.spanId)") == [
        s[0] for s in spans if s[1]
    ]
    assert errors.count() == 1  # the call with device_id=3: the tool answered an error
    assert "error" in errors.first.inner_text()
    lefts = table.locator(".b").evaluate_all("bs => bs.map(b => b.getBoundingClientRect().left)")
    assert lefts == sorted(lefts)  # bars start in order along the time axis
    assert '{"device_id": 3}' in table.inner_text()  # the tool's arguments as captured
    assert "700/20" in table.inner_text()  # tokens in/out of the first model call
    screenshot(page.page, "run-waterfall")
    page.assert_clean()


def test_the_diff_against_the_baseline_is_on_the_page(page: Watched, example: Example) -> None:
    section = page.page.locator("section.diff")
    assert f"Against {example.baseline_id}" in section.locator("h2").inner_text()
    assert "No regression" in section.inner_text()


def test_the_summary_reads_without_javascript(open_page: OpenPage, example: Example) -> None:
    page = open_page(example.run_html.as_uri(), java_script_enabled=False)
    assert "FAILED: 10/12 cases passed" in page.page.inner_text("#verdict")
    assert page.page.locator("table.cases tbody tr").count() == 12
    assert page.page.locator("table.metrics tbody tr").count() >= 5
    assert page.page.locator("noscript").first.is_visible()
    assert page.page.locator("svg").count() == 0
    # The numbers behind each chart are a table.
    numbers = page.page.locator("#chart-token_usage details")
    numbers.locator("summary").click()
    assert numbers.locator("tbody tr").count() >= 1
    page.assert_clean()
