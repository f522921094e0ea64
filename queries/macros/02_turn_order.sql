-- tg_turn_seq(turn_id, tool_depth, start_ns, span_id): a call's place in its turn, 1, 2, ...
-- in start order (span id breaking ties), counting the turn's own calls only: NULL for a
-- call inside an AgentTool (tool_depth > 0), which ADK eval does not see in the outer turn.
-- A window function: llm_calls and tool_calls number their rows with it.
CREATE OR REPLACE MACRO tg_turn_seq(turn_id, tool_depth, start_ns, span_id) AS (
    CASE WHEN tool_depth = 0 THEN row_number() OVER (
        PARTITION BY turn_id, tool_depth = 0 ORDER BY start_ns, span_id
    ) END
);
