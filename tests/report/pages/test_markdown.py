"""`--markdown`: golden files for a failing run and for a diff, text that cannot break a GFM
table, and the 60,000-character cap a PR comment needs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from markdown_it import MarkdownIt

from tests.report.helpers import BASE_RUN, NEXT_RUN
from tracegrade.report import diff_runs
from tracegrade.report.pages import build_run_page
from tracegrade.report.pages.run import CaseRow
from tracegrade.report.run.markdown import LIMIT, code, md, to_markdown
from tracegrade.store import LocalReader

Golden = Callable[[str, str], None]


def test_summary_of_a_failing_run(reader: LocalReader, golden: Golden) -> None:
    page = build_run_page(reader, run_id=BASE_RUN, waterfalls=False)
    golden("run_summary.md", to_markdown(page))


def test_summary_with_a_diff(reader: LocalReader, golden: Golden) -> None:
    diff = diff_runs(reader, BASE_RUN, NEXT_RUN)
    page = build_run_page(reader, run_id=NEXT_RUN, diff=diff, waterfalls=False)
    golden("diff_summary.md", to_markdown(page))


def _tables(text: str) -> list[list[int]]:
    """Each table's cell count per row (header included), as a GFM renderer parses it."""
    tables: list[list[int]] = []
    cells = 0
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            cells = 0
        elif token.type in ("th_open", "td_open"):
            cells += 1
        elif token.type == "tr_close":
            tables[-1].append(cells)
    return tables


def test_every_table_row_has_its_header_s_cells(reader: LocalReader) -> None:
    page = build_run_page(reader, run_id=BASE_RUN, waterfalls=False)
    tables = _tables(to_markdown(page))
    assert len(tables) == 2  # failing cases, metrics past their bound
    for rows in tables:
        assert len(rows) > 1
        assert set(rows) == {rows[0]}


def test_free_text_cannot_break_a_table_or_ping_anyone() -> None:
    assert md("a|b <script> @team #12 *x* [l](u) snake_case") == (
        r"a\|b \<script\> \@team \#12 \*x\* \[l\](u) snake_case"
    )
    assert md("two\nlines") == "two<br>lines"
    assert code("f(x=1|2)") == r"`f(x=1\|2)`"
    assert code("a `tick`") == r"`` a `tick` ``"
    text = f"| {md('x|y')} | {code('p|q')} |"
    header = "| a | b |\n| - | - |\n"
    assert _tables(header + text) == [[2, 2]]


def test_a_long_list_of_failures_is_cut_to_fit_a_pr_comment(reader: LocalReader) -> None:
    page = build_run_page(reader, run_id=BASE_RUN, waterfalls=False)
    failing = CaseRow("set", "case_0", "failed", 1, 0, 0, False, ["metric_" + "x" * 80], 1, 1, 1)
    many = [dataclasses.replace(failing, case_id=f"case_{i:05d}") for i in range(3000)]
    text = to_markdown(dataclasses.replace(page, cases=many))
    assert len(text) <= LIMIT
    shown = text.count("| set/case_")
    assert 100 < shown < 3000
    assert f"…and {3000 - shown} more failing cases (see the HTML report)." in text
    assert text.rstrip().endswith("turns priced)")  # the totals are never cut


IMG = "``<img src=x onerror=alert(1)>``"


def _html(text: str) -> str:
    # The commonmark preset passes raw HTML through, as GitHub's renderer does before it
    # sanitises: a raw tag here is one that reached the renderer.
    html: str = MarkdownIt("commonmark").enable("table").render(text)
    return html


def test_a_code_span_survives_any_run_of_backticks() -> None:
    for text in (IMG, "`" + IMG, "a ``` b ` c", "```", "x`"):
        span = _html(code(text))
        assert "<img" not in span
        assert span.count("<code>") == 1
        assert span.strip().removeprefix("<p><code>").removesuffix("</code></p>") == (
            text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;")
        )  # fmt: skip


def test_no_raw_html_reaches_the_renderer_from_data(reader: LocalReader) -> None:
    page = build_run_page(reader, run_id=BASE_RUN, waterfalls=False)
    evil = dataclasses.replace(page.cases[0], verdict="failed", case_id=f"c {IMG}")
    page = dataclasses.replace(
        page, cases=[evil, *page.cases[1:]], run=page.run.model_copy(update={"agent": IMG})
    )
    html = _html(to_markdown(page))
    assert "onerror" in html  # the text is shown...
    assert "<img" not in html  # ...as text
    assert "<code>" + IMG.replace("<", "&lt;").replace(">", "&gt;") + "</code>" in html
