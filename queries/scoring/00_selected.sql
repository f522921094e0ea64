-- The selected traces' spans normalised once for a scoring. `scoring_spans` (a view the
-- engine makes over `spans`: an eval run's traces, or traffic narrowed by since and sample)
-- goes through the views' own SQL, the tg_* table macros, into tables that the turns, model
-- calls and tool calls are then built from. Read through the views instead, each of turns,
-- llm_calls and tool_calls would normalise and walk every stored span again.
-- The engine drops these tables once the input tables are filled.

-- Without the attributes: most of the spans' bytes, and turns reads them from the spans.
CREATE OR REPLACE TEMP TABLE scoring_agent_spans AS
SELECT * EXCLUDE (attributes), NULL::JSON AS attributes FROM tg_agent_spans('scoring_spans');

CREATE OR REPLACE TEMP TABLE scoring_span_tree AS
SELECT * FROM tg_span_tree('scoring_agent_spans', 'scoring_spans');

-- The model calls, their message documents left out where the turn's eval-turn span records
-- its user and final text: `turns` takes those two from that span first, and nothing else
-- scoring reads depends on the messages (the calls' user_text, output_text and
-- output_tool_calls only feed them; content_captured reads false). Parsing the documents was
-- most of the model calls' cost: 6.3 of 7.8 s CPU at 320k ADK calls.
CREATE OR REPLACE TEMP VIEW scoring_model_spans AS
WITH texts_recorded AS (
    SELECT trace_id || '-' || span_id AS turn_id
    FROM scoring_spans
    WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_turn'
      AND attrs."tracegrade.user_text" IS NOT NULL AND attrs."tracegrade.final_text" IS NOT NULL
)
SELECT s.* REPLACE (
    CASE WHEN r.turn_id IS NULL THEN s.input_messages END AS input_messages,
    CASE WHEN r.turn_id IS NULL THEN s.output_messages END AS output_messages
)
FROM scoring_agent_spans s
JOIN scoring_span_tree t USING (trace_id, span_id)
LEFT JOIN texts_recorded r ON r.turn_id = t.turn_id
WHERE s.op IN ('llm', 'llm_wrapper');

CREATE OR REPLACE TEMP TABLE scoring_llm_calls AS
SELECT * FROM tg_llm_calls('scoring_model_spans', 'scoring_span_tree');

-- Without the schema check's columns: the tool_call_validity metric checks each distinct
-- call once (scored_calls.raw_args), where this would check every call.
CREATE OR REPLACE TEMP TABLE scoring_tool_calls AS
SELECT * EXCLUDE (valid, validity_errors) FROM tg_tool_calls('scoring_agent_spans', 'scoring_span_tree');

CREATE OR REPLACE TEMP VIEW scoring_turns AS
SELECT * FROM tg_turns(
    'scoring_agent_spans', 'scoring_span_tree', 'scoring_llm_calls', 'scoring_tool_calls',
    'scoring_spans'
);

-- The eval-case spans of the selected traces (an eval run's cases are in its run's trace,
-- which carries its run id), read once: they are spread over the file, and each read of
-- their attributes reads the whole column (~0.6 s CPU at 1.16M ADK spans), which the
-- expected turns, their calls, the plan and the scenarios each did.
CREATE OR REPLACE TEMP TABLE scoring_case_spans AS
SELECT * FROM scoring_spans WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case';

CREATE OR REPLACE TEMP TABLE scoring_expected_turns AS
SELECT * FROM tg_expected_turns('scoring_case_spans');
