"""The pages' data and HTML, without a browser: the numbers equal the reports', histograms
count every score once, a large run stays within its limits, untrusted text is escaped,
and only the page's own scripts may run."""

from __future__ import annotations

import base64
import hashlib
import html as html_text
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.report.helpers import BASE_RUN, NEXT_RUN, JsonReader
from tests.report.pages.hostile import CASE_ID, HOSTILE, make_hostile_run
from tests.support.tiers import costly
from tracegrade.report import build_report
from tracegrade.report.pages import PageLimits, build_run_page, run_file
from tracegrade.report.pages.charts import bin_edges, histograms
from tracegrade.report.pages.links import FileLinks, LiveLinks, case_anchor
from tracegrade.report.pages.render import CHART_SCRIPTS
from tracegrade.report.queries import find_scoring
from tracegrade.store import LocalReader, connect

STATIC = Path(__file__).parents[3] / "src" / "tracegrade" / "report" / "pages" / "static"


@costly
def test_totals_equal_the_report_s(reader: LocalReader, json_reader: JsonReader) -> None:
    for run_id in (BASE_RUN, NEXT_RUN):
        report = build_report(reader, run_id=run_id)
        for source in (reader, json_reader):  # the file, and rows as a server sends them
            page = build_run_page(source, run_id=run_id, waterfalls=False)
            assert page.totals == report.totals
            assert page.metrics == report.metrics
            verdicts = [c.verdict for c in report.cases]
            assert page.counts == {v: verdicts.count(v) for v in set(verdicts)}


def test_cases_come_worst_first(reader: LocalReader) -> None:
    report = build_report(reader, run_id=BASE_RUN)
    page = build_run_page(reader, run_id=BASE_RUN, waterfalls=False)
    rank = {"error": 0, "failed": 1}
    expected = sorted(
        report.cases,
        key=lambda c: (rank.get(c.verdict, 2 if c.flaky else 3), c.eval_set_id, c.case_id),
    )
    assert [(c.eval_set_id, c.case_id) for c in page.cases] == [
        (c.eval_set_id, c.case_id) for c in expected
    ]
    assert {c.verdict for c in page.cases} >= {"passed", "failed", "error"}
    detailed = [(v.case.eval_set_id, v.case.case_id) for v in page.details]
    failing = [(c.eval_set_id, c.case_id) for c in expected if c.verdict in ("failed", "error")]
    assert detailed == failing
    by_key = {(c.eval_set_id, c.case_id): c for c in report.cases}
    assert all(v.case == by_key[(v.case.eval_set_id, v.case.case_id)] for v in page.details)


def test_each_histogram_counts_every_score_once(reader: LocalReader) -> None:
    scoring = find_scoring(reader, None, BASE_RUN)
    sid = str(scoring["scoring_id"])
    charts = histograms(reader, sid, [])
    assert charts
    for chart in charts:
        _, rows = reader.query(
            "SELECT score FROM scores WHERE scoring_id = ? AND level = 'turn' AND metric = ? "
            "AND score IS NOT NULL AND isfinite(score)",
            [sid, chart.metric],
        )
        scores = [float(r[0]) for r in rows]
        assert sum(b.turns for b in chart.bins) == chart.turns == len(scores)
        for b in chart.bins:
            inside = [s for s in scores if b.x0 - 1e-9 <= s < b.x1 - 1e-9 or s == max(scores)]
            assert b.turns <= len(inside), (chart.metric, b)
        assert chart.domain[0] <= min(scores)
        assert max(scores) <= chart.domain[1]


@pytest.mark.parametrize(
    ("lo", "hi", "marks", "ratio", "expected"),
    [
        (0.5, 1.0, [0.6], True, (0.0, 0.1, 10)),  # a score: tenths of [0, 1]
        (120.0, 3338.0, [4000.0], False, (0.0, 200.0, 21)),  # tokens up to their budget
        (0.00027, 0.00029, [], False, (0.0, 0.00002, 15)),  # USD is not a ratio
        (5.0, 5.0, [], False, (0.0, 0.5, 11)),
        (-3.0, 2.0, [], False, (-3.0, 0.5, 11)),
    ],
)
def test_bin_edges_are_round_and_cover_scores_and_budgets(
    lo: float, hi: float, marks: list[float], ratio: bool, expected: tuple[float, float, int]
) -> None:
    start, width, count = bin_edges(lo, hi, marks, ratio)
    assert (start, count) == (expected[0], expected[2])
    assert width == pytest.approx(expected[1])
    assert start <= min([lo, *marks, 0])
    assert start + count * width >= max([hi, *marks])


@costly
def test_a_large_run_is_cut_to_its_limits(reader: LocalReader) -> None:
    limits = PageLimits(cases=2, details=1, waterfalls=1, slowest=1)
    page = build_run_page(reader, run_id=BASE_RUN, limits=limits)
    assert len(page.cases) == 2 < page.cases_total
    assert len(page.details) == 1 < page.failing_total
    assert 1 <= len(page.turns) <= 2  # one failing turn, the slowest (maybe the same)
    html = run_file(reader, run_id=BASE_RUN, limits=limits)
    assert html.count('class="case-row"') == 2
    assert f"{page.cases_total - 2} more cases not shown" in html
    assert html.count('<table class="waterfall"') == len(page.turns)


def test_links_of_a_file_stay_in_it_and_live_links_are_urls() -> None:
    links = FileLinks([("set a", "c/1")], ["t1-s1"])
    assert links.case("r", "set a", "c/1") == f"#{case_anchor('set a', 'c/1')}"
    assert links.case("r", "set a", "other") is None  # not in the file: no dead link
    assert links.turn("t1-s1") == "#turn-t1-s1"
    assert links.turn("t2-s2") is None
    assert case_anchor("home", "lamp") == "case-home.lamp"
    assert case_anchor("a_b", "c") != case_anchor("a", "b_c")
    assert re.fullmatch(r"case-[\w.-]+", case_anchor("set a", "c/1"))
    live = LiveLinks()
    assert live.case("r 1", "set a", "c/1") == "/runs/r%201/cases/set%20a/c%2F1"
    assert live.turn("t1-s1") == "/turns/t1-s1"


def _csp(html: str) -> str:
    match = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert match
    return html_text.unescape(match[1])


def test_only_the_page_s_own_scripts_may_run(reader: LocalReader) -> None:
    html = run_file(reader, run_id=BASE_RUN)
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    assert len(scripts) == len(CHART_SCRIPTS)
    allowed = re.findall(r"'sha256-([^']+)'", _csp(html))
    assert allowed == [
        base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in scripts
    ]
    assert _csp(html).startswith("default-src 'none';")
    assert "unsafe-inline" not in _csp(html).split("style-src")[0]  # scripts: hashes only


def test_the_vendored_scripts_are_the_npm_files() -> None:
    vendor = json.loads((STATIC / "VENDOR.json").read_text())
    for package in vendor["packages"]:
        for name, entry in package["files"].items():
            digest = hashlib.sha256((STATIC / name).read_bytes()).hexdigest()
            assert digest == entry["sha256"], f"{name} differs from {package['name']}"


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalReader]:
    connection = connect(make_hostile_run(tmp_path_factory.mktemp("hostile")), read_only=True)
    yield LocalReader(connection)
    connection.close()


@costly
def test_untrusted_text_is_shown_as_text(hostile_db: LocalReader) -> None:
    html = run_file(hostile_db)
    assert "onerror=alert" in html.replace("&#34;", '"')  # the text is there...
    for raw in ("<img src=x", "<iframe", "<b>1</b>", "<script>alert", "<set>"):
        assert raw not in html, raw  # ...never as markup
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert html.count("<script>") == len(CHART_SCRIPTS)
    # The failing case is in full: its anchor is plain, its id is escaped text.
    assert f'id="{case_anchor("hostile<set>", CASE_ID)}"' in html
    assert "case&lt;b&gt;1&lt;/b&gt;" in html
    assert HOSTILE not in html


def test_a_gating_metric_s_status_says_failed_where_turns_missed_its_bound(
    reader: LocalReader,
) -> None:
    """A metric gated per turn has no run-level bound (its run row is 'informational'): the
    status column says failed where turns missed the threshold, passed where none did."""
    report = build_report(reader, run_id=BASE_RUN)
    gating = {c.metric for c in report.scoring.criteria}
    page = run_file(reader, run_id=BASE_RUN)
    table = page.split('<table class="metrics">')[1].split("</table>")[0]
    per_turn = [m for m in report.metrics if m.metric in gating and m.status == "informational"]
    assert any(m.breached for m in per_turn)
    for metric in per_turn:
        row = table.split(f'<th scope="row">{metric.metric}</th>')[1].split("</tr>")[0]
        status = re.findall(r'<span class="(\w+)">', row)[-1]
        assert status == ("failed" if metric.breached else "passed"), (metric.metric, row)
        assert "informational</span>" not in row.split("<td>")[-1]
