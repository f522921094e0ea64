-- expected_tool_calls: one row per expected tool call, in order (seq from 1) within its turn.
-- args is NULL when the eval set gave no args at all, which ADK does not treat as {}.
CREATE OR REPLACE VIEW expected_tool_calls AS
WITH calls AS (
    SELECT
        run_id,
        eval_set_id,
        case_id,
        turn_index,
        json_extract(tool_calls, '$[*]') AS calls
    FROM expected_turns
),
flat AS (
    SELECT
        run_id, eval_set_id, case_id, turn_index,
        unnest(calls) AS call,
        generate_subscripts(calls, 1) AS seq
    FROM calls
)
SELECT
    run_id,
    eval_set_id,
    case_id,
    turn_index,
    seq,
    call->>'name' AS name,
    CASE WHEN json_type(call->'args') <> 'NULL' THEN json(call->'args') END AS args
FROM flat
