-- metric: rubric_based_tool_use_quality_v1
-- better: higher
-- range: 0..1
-- needs: nothing
-- judge: adk
-- One row per judged turn: ADK's rubric_based_tool_use_quality_v1. An LLM judge rates the agent's tool calls and their results against each rubric
-- (from the criterion, and the eval case's and turn's rubrics of ADK's type for this
-- metric) yes or no, num_samples times. Each rubric is decided by majority (a tie is no),
-- the turn scores the mean of its rubrics; the case scores the mean of every rubric score
-- of every turn (`weight`). A failed call leaves the turn not evaluated, as in ADK.
-- detail: {rubrics: [{id, score, rationale}], weight, reason, judge_error}
SELECT
    turn_id,
    score,
    tg_judge_detail(score, problem, failed, unjudged,
        json_object('rubrics', rubrics, 'weight', weight)) AS detail
FROM tg_rubric_turns('rubric_based_tool_use_quality_v1')
