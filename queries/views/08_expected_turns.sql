-- expected_turns: one row per expected turn of each case of each eval run, as the eval set
-- said at run time (recorded in the run's `tracegrade.eval_case` spans).
--
-- Columns:
--   run_id         the run
--   eval_set_id    the eval set
--   case_id        the case
--   turn_index     the turn's position, from 0 (turns pair with actual ones by position)
--   user_text      the user's message
--   final_text     the reference response, NULL if none was given
--   n_tool_calls   expected tool calls
--   tool_calls     expected calls as JSON [{name, args}]
--   intermediate_texts  the texts the agent should say before the final response, as a
--                  JSON list (what ADK's judges add with include_intermediate_responses_in_final)
--   rubrics        this turn's rubrics for LLM judges, ADK's Rubric JSON list
--   case_rubrics   the case's rubrics (for every turn), ADK's Rubric JSON list
CREATE OR REPLACE VIEW expected_turns AS
WITH cases AS (
    SELECT
        attributes->>'tracegrade.run_id' AS run_id,
        attributes->>'tracegrade.eval_set_id' AS eval_set_id,
        attributes->>'tracegrade.case_id' AS case_id,
        json_extract(attributes->>'tracegrade.expected', '$.turns[*]') AS turns,
        coalesce(json_extract(attributes->>'tracegrade.expected', '$.rubrics'), '[]') AS case_rubrics
    FROM spans
    WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case'
),
flat AS (
    SELECT run_id, eval_set_id, case_id, case_rubrics, unnest(turns) AS turn FROM cases
)
SELECT
    run_id,
    eval_set_id,
    case_id,
    (turn->>'turn_index')::INTEGER AS turn_index,
    turn->>'user_text' AS user_text,
    turn->>'final_text' AS final_text,
    json_array_length(turn->'tool_calls')::INTEGER AS n_tool_calls,
    turn->'tool_calls' AS tool_calls,
    coalesce(turn->'intermediate_texts', '[]') AS intermediate_texts,
    coalesce(turn->'rubrics', '[]') AS rubrics,
    case_rubrics
FROM flat
