-- expected_tool_calls: one row per expected tool call, in order within its turn.
--
-- Columns:
--   run_id         the run
--   eval_set_id    the eval set
--   case_id        the case
--   turn_index     the turn
--   seq            1, 2, ... in expected order
--   name           the tool
--   args           expected arguments as JSON; NULL when the eval set gave none, which ADK
--                  does not treat as {}
--
-- tg_expected_tool_calls(expected): the same rows from the relation named `expected` (rows
-- of expected_turns), as scoring reads them.
CREATE OR REPLACE MACRO tg_expected_tool_calls(expected) AS TABLE
WITH calls AS (
    SELECT
        run_id,
        eval_set_id,
        case_id,
        turn_index,
        json_extract(tool_calls, '$[*]') AS calls
    FROM query_table(expected)
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
FROM flat;

CREATE OR REPLACE VIEW expected_tool_calls AS SELECT * FROM tg_expected_tool_calls('expected_turns');
