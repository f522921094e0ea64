-- metric: inference_call_count
-- better: lower
-- needs: nothing
-- range: 0..
-- aliases: inference_call_count_v1
-- One row per turn: model calls that answered, as ADK's inference_call_count_v1 counts them
-- (a call that raised is not counted; AgentTool internals are not). NULL when the turn has
-- no model-call spans. detail: {failed_calls}
SELECT
    turn_id,
    CASE WHEN llm_calls > 0 THEN (llm_calls - llm_errors)::DOUBLE END AS score,
    json_object('failed_calls', llm_errors) AS detail
FROM scored_turns
