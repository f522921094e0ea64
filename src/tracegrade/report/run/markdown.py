"""`to_markdown`: the summary a pull request shows, for `$GITHUB_STEP_SUMMARY` or a PR comment.

The verdict, each failing or errored case with the one-line reason, the budgets breached,
the diff against a baseline when there is one, and the totals. GitHub Markdown (GFM):
free text is escaped so a case id, a tool argument or a model's answer cannot break a
table, open a link, mention someone (`@team`) or link an issue (`#12`).

Limits it keeps: a PR comment holds at most 65,536 characters and a step summary 1 MiB (over
that, the upload fails and the summary is lost while the step still passes), so the text is
at most 60,000 characters: the failing cases are cut first, saying how many were left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tracegrade.report.diff.build import CATEGORIES, RunDiff
from tracegrade.report.pages.cases import CaseView
from tracegrade.report.pages.diffs import diff_groups
from tracegrade.report.pages.run import CaseRow, RunPage
from tracegrade.report.run.text import totals_lines
from tracegrade.report.values import exit_meaning, num, plural

LIMIT = 60_000
# One reason at most this long: a table row stays one readable line.
REASON_LIMIT = 300
# Changed cases listed per group of the diff; the rest are counted.
DIFF_CASES = 50

_ICON = {"passed": "✅", "failed": "❌", "errors": "💥"}
# '_' stays: GFM never reads an underscore inside a word (case ids) as emphasis.
_SPECIAL = re.compile(r"([\\`*{}\[\]<>|#@!~])")
_BACKTICKS = re.compile(r"`+")


def md(text: object) -> str:
    """Free text for a GFM table cell: special characters escaped, lines joined by <br>."""
    escaped = _SPECIAL.sub(r"\\\1", str(text))
    return escaped.replace("\r", "").replace("\n", "<br>")


def code(text: object) -> str:
    """A code span that survives a table cell (GFM splits cells on `|` even inside code) and
    any backticks inside: its fence is longer than their longest run (CommonMark), so none
    closes it, and spaced off them (the renderer drops those two spaces)."""
    inner = " ".join(str(text).split()).replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(inner)), default=0)
    if not longest:
        return f"`{inner}`"
    fence = "`" * (longest + 1)
    return f"{fence} {inner} {fence}"


def to_markdown(page: RunPage) -> str:
    """The summary, cut to LIMIT characters (the fewest failing cases dropped)."""
    failing = list(_failing(page))

    def text(keep: int) -> str:
        return "\n".join(_lines(page, failing[:keep], len(failing) - keep)) + "\n"

    low, high = 0, len(failing)  # the most rows that fit: a binary search, not one render each
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if len(text(middle)) <= LIMIT else (low, middle - 1)
    return text(low)


def _lines(page: RunPage, failing: list[str], more: int) -> Iterator[str]:
    counts = page.counts
    yield (
        f"### {_ICON.get(page.verdict, '❔')} tracegrade: {counts.get('passed', 0)}/"
        f"{page.cases_total} cases passed, {counts.get('failed', 0)} failed, "
        f"{counts.get('error', 0)} errored"
    )
    yield ""
    yield (
        f"Run {code(page.run.run_id)} · agent {code(page.run.agent or '–')} · "
        f"{page.verdict.upper()} → exit {exit_meaning(page.exit_code)}"
    )
    if failing or more:
        yield from ["", "| case | result | why |", "| :--- | :--- | :--- |", *failing]
    if more:
        yield from ["", f"…and {more} more failing cases (see the HTML report)."]
    yield from _budgets(page)
    yield from _diff(page)
    yield ""
    yield md(" · ".join(totals_lines(page.totals)))


def _failing(page: RunPage) -> Iterator[str]:
    """A row per failed or errored case: the detailed ones with their first finding, the
    others (past the page's limit) with the metrics they failed."""
    detailed = {(v.case.eval_set_id, v.case.case_id): v for v in page.details}
    for row in page.cases:
        if row.verdict not in ("failed", "error"):
            continue
        view = detailed.get((row.eval_set_id, row.case_id))
        why = _why(view) if view else _metrics_failed(row)
        result = row.verdict + (" (flaky)" if row.flaky else "")
        yield f"| {md(row.eval_set_id + '/' + row.case_id)} | {result} | {why} |"


def _why(view: CaseView) -> str:
    for finding in view.findings:
        if finding.lines:
            return code(_cut(finding.lines[0]))
        for turn in finding.turns:
            for metric in turn.metrics:
                first = [f"{label}: {text}" for label, text in metric.texts[:1]]
                reason = "; ".join([metric.reason, *first] if metric.reason else first)
                return md(metric.headline) + (f": {code(_cut(reason))}" if reason else "")
    return md(", ".join(view.case.failed_metrics))


def _metrics_failed(row: CaseRow) -> str:
    errored = f"{plural(row.errored_repeats, 'repeat')} errored" if row.errored_repeats else ""
    return md("; ".join(p for p in (", ".join(row.failed_metrics), errored) if p))


def _cut(text: str) -> str:
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 1] + "…"


def _budgets(page: RunPage) -> Iterator[str]:
    breached = [m for m in page.metrics if m.breached]
    if not breached:
        return
    yield ""
    yield "| metric | past its bound | mean | p50 | p95 | max |"
    yield "| :--- | :--- | ---: | ---: | ---: | ---: |"
    for m in breached:
        cells = " | ".join(num(v) for v in (m.mean, m.p50, m.p95, m.max))
        yield f"| {md(m.metric)} | {md('; '.join(m.breached))} | {cells} |"


def _diff(page: RunPage) -> Iterator[str]:
    diff = page.diff
    if diff is None:
        return
    verdict = f"**{md(diff.summary)}**" if diff.failed else md(diff.summary)
    yield from ["", f"Against {code(diff.base_run_id)}: {verdict}."]
    for group in diff_groups(diff):
        yield ""
        yield f"<details><summary>{group.title} ({len(group.cases)})</summary>"
        yield ""
        for case in group.cases[:DIFF_CASES]:
            changes = "; ".join(c.message for c in case.changes)
            name = md(f"{case.eval_set_id}/{case.case_id}")
            yield f"- {name}: {md(case.reason)} — {md(changes)}"
        if len(group.cases) > DIFF_CASES:
            yield f"- …and {len(group.cases) - DIFF_CASES} more"
        yield ""
        yield "</details>"
    yield from _diff_rest(diff)


def _diff_rest(diff: RunDiff) -> Iterator[str]:
    """The cases not listed: counted, or named when in one run only."""
    unchanged = diff.totals.unchanged
    rest = [f"{plural(unchanged, 'case')} unchanged"] if unchanged else []
    for title, ids in (
        (CATEGORIES["gone"], diff.only_in_base),
        (CATEGORIES["new"], diff.only_in_new),
    ):
        if ids:
            rest.append(f"{title.lower()}: {md(', '.join(ids))}")
    if rest:
        yield from ["", "; ".join(rest) + "."]
