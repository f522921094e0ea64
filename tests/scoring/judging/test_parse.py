"""The answers tracegrade reads itself are read as ADK reads them: hallucinations_v1's
validator and segmenter answers, held to ADK's own (private) parsers on generated
answers: odd spacing, case, extra blocks, labels ADK does not know."""

from __future__ import annotations

from google.adk.evaluation import hallucinations_v1 as adk
from hypothesis import given
from hypothesis import strategies as st

from tracegrade.scoring.judging import parse

LABEL = st.sampled_from(
    ["supported", "Supported ", "unsupported", "contradictory", "disputed", "not_applicable",
     "NOT_APPLICABLE", "maybe", ""]
)  # fmt: skip
TEXT = st.text(st.characters(blacklist_characters="\n", blacklist_categories=["Cs"]), max_size=20)


@st.composite
def validator_answers(draw: st.DrawFn) -> str:
    blocks = []
    for _ in range(draw(st.integers(0, 4))):
        sentence, rationale = draw(TEXT), draw(TEXT)
        excerpt = draw(st.sampled_from(["null", "NULL", "a quote"]))
        blocks.append(
            f"sentence: {sentence}\nlabel: {draw(LABEL)}\nrationale: {rationale}\n"
            f"supporting_excerpt: {excerpt}\ncontradicting_excerpt: null"
        )
    return draw(st.sampled_from(["", "Here you go:\n"])) + "\n".join(blocks)


@given(validator_answers())
def test_validator_answers_read_as_adks_parser_reads_them(answer: str) -> None:
    theirs = adk._parse_validation_results(answer)
    score, verdicts = parse.validation(answer)
    assert [(v["sentence"], v["label"], v["rationale"]) for v in verdicts] == [
        (r["sentence"], r["label"], r["rationale"]) for r in theirs
    ]
    labels = [str(r["label"]).strip().lower() for r in theirs]
    counted = [1 if x in adk._POSITIVE_LABELS else 0 for x in labels
               if x in adk._POSITIVE_LABELS | adk._NEGATIVE_LABELS]  # fmt: skip
    assert score == (sum(counted) / len(counted) if counted else None)


@given(st.lists(TEXT, max_size=4), st.sampled_from(["", "noise", "<sentence>"]))
def test_segmenter_answers_read_as_adks_parser_reads_them(sentences: list[str], tail: str) -> None:
    answer = "\n".join(f"<sentence>{s}</sentence>" for s in sentences) + tail
    assert parse.sentences(answer) == adk._parse_sentences(answer)


def test_a_judges_json_is_found_fenced_or_bare() -> None:
    assert parse.json_answer('Sure.\n```json\n{"a": [1, 2]}\n```\nDone.') == {"a": [1, 2]}
    assert parse.json_answer('The verdict: {"a": 1} and more {') == {"a": 1}
    assert parse.json_answer("no json at all") is None


def test_a_final_response_judges_reasoning_is_kept() -> None:
    answer = (
        '{\n  "reasoning": "The \\"lamp\\" is off.",\n  "is_the_agent_response_valid": "valid"\n}'
    )
    assert parse.reasoning(answer) == 'The "lamp" is off.'
