"""A metric of the user's own (`--metrics DIR`) keeps its direction in every report."""

from __future__ import annotations

from pathlib import Path

from tests.scoring.test_engine import FLAKY, FLAKY_AGENT, _run, _score
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.report import build_report, render_terminal
from tracegrade.store import LocalReader, SpanWriter

WORDS_IN_ANSWER = """-- metric: words_in_answer
-- better: lower
-- needs: nothing
-- One row per turn: the words of its final response.
SELECT turn_id, len(string_split(final_text, ' '))::DOUBLE AS score, NULL::JSON AS detail
FROM scored_turns
"""


def test_a_custom_lower_is_better_metric_reads_as_a_budget(
    captured: BlockingSpanProcessor, writer: SpanWriter, tmp_path: Path
) -> None:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "words_in_answer.sql").write_text(WORDS_IN_ANSWER)
    run_id = _run(captured, FLAKY, FLAKY_AGENT)  # answers "Found Paris." (2 words)
    config = {"criteria": {"words_in_answer": {"threshold": 1}}}

    result = _score(writer, run_id, config, metrics=[folder])
    report = build_report(LocalReader(writer.connection), scoring_id=result.scoring_id)
    text = render_terminal(report, width=120)

    assert [c.better for c in report.scoring.criteria] == ["lower"]
    assert "words_in_answer 2.00, needs ≤ 1.00" in text
    header = next(line for line in text.splitlines() if line.startswith("case "))
    assert "≤ 1.00" in header
