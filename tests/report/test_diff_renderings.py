"""One diff, four renderings: `tracegrade diff` (terminal and `--json`), the Markdown summary
and the live run page with `?baseline=` put each case in the same one category with the
same counts; a judged metric's drop beyond its tolerance fails the diff, as `--help` says."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from pathlib import Path

from tests.report.helpers import BASE_RUN, NEXT_RUN
from tests.support.cli import invoke
from tests.support.tiers import costly
from tracegrade.exit_codes import ExitCode
from tracegrade.report import RunReport, diff_reports, diff_runs
from tracegrade.report.diff.build import CATEGORIES
from tracegrade.report.judges import JudgeUsage
from tracegrade.report.models import MetricScore
from tracegrade.report.pages import build_run_page, run_live
from tracegrade.report.run.markdown import to_markdown
from tracegrade.store import LocalReader

Found = tuple[dict[str, str], str]
"""Each listed case's category, and the verdict sentence."""

EXPECTED = {
    "shop/transfer": "regressed",  # passed → failed, and worse beyond tolerances too
    "shop/two_turns_with_state": "worse",  # still passing, cost and tokens up
    "extras/pear_price": "improved",
}
SUMMARY = "REGRESSION: 1 case passed before and not now, 1 case got worse beyond a tolerance"
_TITLES = {title: category for category, title in CATEGORIES.items()}


def _once(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    cases = [case for case, _ in pairs]
    assert len(cases) == len(set(cases)), f"a case is listed twice: {pairs}"
    return dict(pairs)


def _terminal(text: str) -> Found:
    heads = re.findall(r"^(REGRESSED|WORSE|IMPROVED|CHANGED) (\S+)$", text, re.MULTILINE)
    verdict = " ".join(text.rstrip().split("\n\n")[-1].split())  # the last lines, unwrapped
    return _once([(case, label.lower()) for label, case in heads]), verdict


def _json(text: str) -> Found:
    diff = json.loads(text)
    listed = [c for c in diff["cases"] if c["category"] not in ("unchanged", "new", "gone")]
    assert diff["totals"] == {
        category: sum(1 for c in diff["cases"] if c["category"] == category)
        for category in CATEGORIES
    }
    return _once([(f"{c['eval_set_id']}/{c['case_id']}", c["category"]) for c in listed]), diff[
        "summary"
    ]


def _markdown(text: str) -> Found:
    pairs = []
    for title, count, body in re.findall(
        r"<summary>(.+?) \((\d+)\)</summary>\n\n(.*?)\n\n</details>", text, re.DOTALL
    ):
        cases = re.findall(r"^- (\S+?):", body, re.MULTILINE)
        assert len(cases) == int(count)
        pairs += [(case, _TITLES[title]) for case in cases]
    return _once(pairs), re.findall(r"^Against `[^`]+`: \*\*(.+?)\*\*\.$", text, re.MULTILINE)[0]


def _page(page: str) -> Found:
    section = page[page.index('<section aria-labelledby="diff-h"') :]
    section = section[: section.index("</section>")]
    pairs = []
    for title, count, kind, body in re.findall(
        r'<h3 class="\w+">(.+?) \((\d+)\)</h3>\n<table class="diff-(\w+)">(.*?)</table>',
        section,
        re.DOTALL,
    ):
        cases = re.findall(r"<tr><td><a [^>]*>([^<]+)</a></td>", body)
        assert len(cases) == int(count)
        assert _TITLES[html.unescape(title)] == kind
        pairs += [(html.unescape(case), kind) for case in cases]
    verdict = re.findall(r'<p class="verdict"><strong[^>]*>(.+?)</strong>', section)[0]
    return _once(pairs), html.unescape(verdict)


@costly
def test_every_rendering_lists_each_case_once_in_the_same_category(
    reader: LocalReader, runs_db: Path
) -> None:
    terminal = invoke("diff", BASE_RUN, NEXT_RUN, "--db", str(runs_db))
    as_json = invoke("diff", BASE_RUN, NEXT_RUN, "--json", "--db", str(runs_db))
    diff = diff_runs(reader, BASE_RUN, NEXT_RUN)
    markdown = to_markdown(build_run_page(reader, run_id=NEXT_RUN, diff=diff, waterfalls=False))
    page = run_live(reader, NEXT_RUN, BASE_RUN)

    assert terminal.exit_code == as_json.exit_code == ExitCode.GATE_FAILED
    found = {
        "terminal": _terminal(terminal.stdout),
        "json": _json(as_json.stdout),
        "markdown": _markdown(markdown),
        "page": _page(page),
    }
    for name, (categories, verdict) in found.items():
        assert categories == EXPECTED, name
        assert verdict.startswith(SUMMARY), (name, verdict)
    assert "3 cases unchanged" in terminal.stdout
    assert "3 cases unchanged" in markdown
    assert "3 cases unchanged." in page
    # The case that stayed passed is not shown as changed "passed → passed" beside a
    # regression: it is worse beyond a tolerance, and says it still passes.
    worse = next(c for c in diff.cases if c.category == "worse")
    assert worse.reason == (
        "cost per repeat, tokens per repeat worse beyond tolerance, still passing"
    )


JUDGED = "final_response_match_v2"


def _judged(report: RunReport, scores: dict[str, float | None]) -> RunReport:
    """The report with a judged metric's case score on the named cases."""
    judge = JudgeUsage(
        metric=JUDGED, judge_model="scripted-judge", judgements=len(scores), cached=0,
        calls=len(scores), failed=0, unjudged=0, input_tokens=None, output_tokens=None,
        cost_usd=None, budget_usd=None,
    )  # fmt: skip
    cases = []
    for case in report.cases:
        name = f"{case.eval_set_id}/{case.case_id}"
        if name in scores:
            score = MetricScore(
                metric=JUDGED, score=scores[name], threshold=None, status="informational",
                gating=False,
            )  # fmt: skip
            repeats = [
                r.model_copy(update={"scores": [*r.scores, score]}) for r in case.repeat_results
            ]
            case = case.model_copy(update={"repeat_results": repeats})
        cases.append(case)
    return report.model_copy(update={"cases": cases, "judges": [judge]})


def test_a_judged_drop_beyond_its_tolerance_fails_as_help_says(base_report: RunReport) -> None:
    before: dict[str, float | None] = {"shop/pear_only": 1.0, "shop/two_turns_with_state": 1.0}
    base = _judged(base_report, before)
    dropped: dict[str, float | None] = {"shop/pear_only": 0.9, "shop/two_turns_with_state": 0.97}
    diff = diff_reports(base, _judged(base_report, dropped))

    assert diff.failed
    category = {f"{c.eval_set_id}/{c.case_id}": c.category for c in diff.cases}
    assert category["shop/pear_only"] == "worse"
    assert category["shop/two_turns_with_state"] == "unchanged"  # 0.03 is within 0.05
    pear = next(c for c in diff.cases if c.case_id == "pear_only")
    drop = next(m for m in pear.metrics if m.metric == JUDGED)
    assert (drop.before, drop.after, drop.tolerance, drop.worse) == (1.0, 0.9, "-0.05", True)
    assert [c.message for c in pear.changes] == [f"{JUDGED} 1.00 → 0.90"]
    assert diff.summary == "REGRESSION: 1 case got worse beyond a tolerance"
    # Judged no more (its judge failed) is worse too; a looser --score-drop lets 0.1 pass.
    gone = diff_reports(base, _judged(base_report, {"shop/pear_only": None}))
    assert {c.case_id: c.category for c in gone.cases}["pear_only"] == "worse"
    loose = diff_reports(base, _judged(base_report, dropped), diff.tolerances.model_copy(
        update={"score_drop": 0.2}))  # fmt: skip
    assert not loose.failed

    help_text = " ".join(invoke("diff", "--help").stdout.split())
    assert "judged metric's case score down by more than --score-drop" in help_text
    assert "Exit 1 when" in help_text
    assert "do not fail" not in help_text
