-- metric: rubric_based_multi_turn_trajectory_quality_v1
-- better: higher
-- range: 0..1
-- needs: nothing
-- judge: adk
-- One row per turn of a judged conversation: ADK's multi-turn trajectory judge rates the
-- whole conversation (every turn's messages, tool calls and results, the agents'
-- instructions and tools) against each rubric at its last turn; the earlier turns are not
-- evaluated, so the case's score is its last turn's. Rubrics are decided as in
-- rubric_based_final_response_quality_v1. On traffic, each scored turn is rated with the
-- turns of its session before it.
-- detail: {rubrics: [{id, score, rationale}], weight, reason, judge_error}
SELECT
    turn_id,
    score,
    tg_judge_detail(score, problem, failed, unjudged,
        json_object('rubrics', rubrics, 'weight', weight)) AS detail
FROM tg_rubric_turns('rubric_based_multi_turn_trajectory_quality_v1')
