-- metric: tool_call_count
-- better: lower
-- needs: nothing
-- range: 0..
-- aliases: tool_call_count_v1
-- One row per turn: the number of tool calls, as ADK's tool_call_count_v1 counts them
-- (sub-agents' calls and transfer_to_agent included, AgentTool internals not).
SELECT turn_id, tool_calls::DOUBLE AS score, NULL::JSON AS detail
FROM scored_turns
